import {
  coerceInputValue, GraphQLEnumType, GraphQLInputObjectType, GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLScalarType, GraphQLString,
  type GraphQLInputType,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { inputValid } from '../../src/server/graphql/request/input-valid.js';

// The quick variable check (issue 30's nested insert benchmark) must accept exactly what the graphql package's
// coercion accepts: a value it calls valid skips that coercion.

const Color = new GraphQLEnumType({ name: 'Color', values: { RED: {}, BLUE: {} } });
const Even = new GraphQLScalarType({
  name: 'Even',
  parseValue: (v) => {
    if (typeof v !== 'number' || v % 2 !== 0) throw new TypeError('not even');
    return v;
  },
});
const Article = new GraphQLInputObjectType({ name: 'Article', fields: { title: { type: new GraphQLNonNull(GraphQLString) }, stars: { type: GraphQLInt } } });
const Author: GraphQLInputObjectType = new GraphQLInputObjectType({
  name: 'Author',
  fields: () => ({
    name: { type: new GraphQLNonNull(GraphQLString) },
    color: { type: Color },
    score: { type: Even },
    level: { type: new GraphQLNonNull(GraphQLInt), defaultValue: 1 },
    articles: { type: new GraphQLList(new GraphQLNonNull(Article)) },
    mentor: { type: Author },
  }),
});
const One = new GraphQLInputObjectType({ name: 'One', isOneOf: true, fields: { a: { type: GraphQLInt }, b: { type: GraphQLString } } });
const Authors = new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(Author)));

const accepted = (v: unknown, t: GraphQLInputType): boolean => {
  let ok = true;
  coerceInputValue(v, t, () => {
    ok = false;
  });
  return ok;
};

const cases: [string, unknown, GraphQLInputType][] = [
  ['a list of objects', [{ name: 'a', articles: [{ title: 't' }, { title: 'u', stars: 3 }] }], Authors],
  ['a single object as a list of one', { name: 'a' }, Authors],
  ['a nested object, an enum, a custom scalar', [{ name: 'a', color: 'RED', score: 4, mentor: { name: 'b', mentor: null } }], Authors],
  ['a field with a default left out, given null', [{ name: 'a', level: null }], Authors],
  ['null for the non-null list', null, Authors],
  ['null in the list', [null], Authors],
  ['a missing required field', [{ color: 'RED' }], Authors],
  ['a missing required field deep down', [{ name: 'a', articles: [{ stars: 1 }] }], Authors],
  ['an unknown field', [{ name: 'a', nope: 1 }], Authors],
  ['an inherited name as a field', [{ name: 'a', constructor: 1 }], Authors],
  ['a wrong scalar', [{ name: 1 }], Authors],
  ['a float for an Int', [{ name: 'a', articles: [{ title: 't', stars: 1.5 }] }], Authors],
  ['an unknown enum value', [{ name: 'a', color: 'GREEN' }], Authors],
  ['a custom scalar refusing', [{ name: 'a', score: 3 }], Authors],
  ['an array for an object', [[{ name: 'a' }]], Authors],
  ['a string for an object', ['a'], Authors],
  ['a oneOf with one key', { a: 1 }, One],
  ['a oneOf with two keys', { a: 1, b: 'x' }, One],
  ['a oneOf with a null', { a: null }, One],
];

describe('inputValid', () => {
  for (const [name, value, type] of cases) {
    it(`agrees with the graphql package: ${name}`, () => {
      const want = accepted(value, type);
      // Only a "valid" answer is trusted; a oneOf is always left to the package.
      if (type === One) expect(inputValid(value, type)).toBe(false);
      else expect(inputValid(value, type)).toBe(want);
    });
  }

  it('the cases cover both answers', () => {
    const answers = new Set(cases.map(([, v, t]) => accepted(v, t)));
    expect(answers).toEqual(new Set([true, false]));
  });
});
