import fc from 'fast-check';
import { getVariableValues, Kind, parse, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { arrayLiteral } from '../../src/server/bool-exp/compile.js';
import { planOperation, type RootPlan } from '../../src/server/graphql/plan/index.js';
import { buildRoleSchema } from '../../src/server/graphql/schema/index.js';
import { SelectionContext } from '../../src/server/graphql/compile/index.js';
import { bind } from '../../src/server/graphql/compile/index.js';
import { validateDocument } from '../../src/server/graphql/request/index.js';
import { RoleView } from '../../src/server/graphql/schema/index.js';
import { as, gql, useExampleEngine } from './graphql-fixture.js';

// graphql-api.md §4.2: hostile input never reaches SQL text. Random hostile strings as GraphQL literals, variables
// (also inside whole input objects), function arguments and session-variable values compile to exactly the SQL text
// benign values give; the values appear only among the bound parameters; and running them never fails other than as
// a data-exception.

const e = useExampleEngine();

const FRAGMENTS = ["'", '"', '\\', '$1', '$$', ';', '--', '/*', '*/', '%', '_', '{', '}', ',', 'NULL', ' OR 1=1', 'x-engine-user-id', '\n', '\u0000x', 'é', '𝄞'];
const HOSTILE = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.array(fc.constantFrom(...FRAGMENTS), { minLength: 1, maxLength: 6 }).map((a) => a.join('')),
).filter((s) => !s.includes('\u0000'));
/** Header values: visible ASCII only (HTTP), still hostile to SQL. */
const HEADER = fc.array(fc.constantFrom("'", '"', '\\', '$1', ';', '--', 'OR', ' ', '1', 'a', '{', '}', ','), { minLength: 1, maxLength: 8 }).map((a) => a.join('').trim() || 'x');

/** A GraphQL string literal for any string (JSON escapes are GraphQL escapes). */
const lit = (s: string) => JSON.stringify(s);

const doc = (a: string, b: string, c: string) => `query ($v: String!, $w: article_bool_exp!) {
  article(where: {_and: [{title: {_eq: ${lit(a)}}}, {content: {_ilike: $v}}, $w]}, order_by: {id: asc}) { id title }
  author(where: {name: {_in: [${lit(b)}, "Ann"]}}, order_by: {id: asc}) { greet(args: {greeting: ${lit(c)}}) articles(where: {title: {_nlike: $v}}) { id } }
  search_articles(args: {search: ${lit(c)}}) { id }
}`;

function compile(query: string, variables: Record<string, unknown>): RootPlan[] {
  const cache = e.engine.schemaCache;
  const schema = buildRoleSchema(cache, 'user');
  const d = parse(query);
  const op = d.definitions.find((x): x is OperationDefinitionNode => x.kind === Kind.OPERATION_DEFINITION) as OperationDefinitionNode;
  expect(validateDocument(schema, d, op)).toBeNull();
  const coerced = getVariableValues(schema, op.variableDefinitions ?? [], variables);
  if (!('coerced' in coerced)) throw new Error('variables did not coerce');
  return planOperation(schema, new RoleView(cache, 'user'), new SelectionContext(d, op, variables, coerced.coerced ?? {}));
}

const sqlOf = (plans: RootPlan[]) => plans.map((p) => (p.kind === 'sql' ? p.sql : p.kind));

describe('§4.2 hostile values are parameters', () => {
  it('never change the SQL text; they are bound exactly as given', () => {
    const baseline = sqlOf(compile(doc('a', 'b', 'c'), { v: 'v', w: { content: { _neq: 'w' } } }));
    fc.assert(fc.property(HOSTILE, HOSTILE, HOSTILE, HOSTILE, HOSTILE, HEADER, (a, b, c, v, w, user) => {
      const plans = compile(doc(a, b, c), { v, w: { content: { _neq: w } } });
      expect(sqlOf(plans)).toEqual(baseline);
      const bound = plans.flatMap((p) => (p.kind === 'sql' ? bind(p.params, { 'x-engine-role': 'user', 'x-engine-user-id': user }, { v, w: { content: { _neq: w } } }) : []));
      for (const s of [a, c, v, w, user, arrayLiteral([b, 'Ann'])]) expect(bound).toContain(s);
    }), { numRuns: 300 });
  });

  it('run on the database: an answer or a data-exception, never another error', async () => {
    await fc.assert(fc.asyncProperty(HOSTILE, HOSTILE, HOSTILE, HEADER, async (a, b, v, user) => {
      const r = await gql(e, { query: doc(a, b, a), variables: { v, w: { content: { _neq: b } } } }, as('user', user));
      expect(r.status).toBe(200);
      if (r.body.errors) {
        expect(r.body.errors[0].extensions.code).toBe('data-exception');
        expect(r.body.errors[0].message).toMatch(/^invalid input syntax for type integer/);
      } else {
        expect(Object.keys(r.body.data)).toEqual(['article', 'author', 'search_articles']);
      }
    }), { numRuns: 40 });
    expect((await e.sql('SELECT count(*) FROM article')).result).toEqual([['count'], ['3']]);
  });

  it('aliases are GraphQL names: any of them is a response key, never SQL', async () => {
    await fc.assert(fc.asyncProperty(fc.stringMatching(/^[_A-Za-z][_0-9A-Za-z]{0,12}$/).filter((s) => !s.startsWith('__')), async (alias) => {
      const r = await gql(e, { query: `{ ${alias}: author_by_pk(id: 1) { ${alias}: name } }` }, as('user', 1));
      expect(r.body).toEqual({ data: { [alias]: { [alias]: 'Ann' } } });
    }), { numRuns: 30 });
  });
});
