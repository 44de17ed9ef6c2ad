import { GraphQLInputObjectType, GraphQLList, GraphQLString, type GraphQLInputFieldConfigMap, type GraphQLScalarType } from 'graphql';
import { NO_EXTENSIONS } from './extensions.js';
import { sharedNonNull } from './shared-types.js';

/**
 * Comparison operators beyond equality and order, as the incumbent names and types them: POSIX regular expressions
 * on text, the ltree operators (graphql-api.md §8 follows the incumbent, issue 30.4) and jsonb's `_cast`. Compiled by
 * compile/operators-extra.ts.
 */

const field = <T>(type: T) => ({ type, extensions: NO_EXTENSIONS });
const TEXT = field(GraphQLString);
const STRINGS = field(new GraphQLList(sharedNonNull(GraphQLString)));

export const REGEX_OPERATORS = ['_iregex', '_niregex', '_nregex', '_regex'] as const;

/** `_regex` and its kin on a String comparison. */
export function regexFields(f: GraphQLInputFieldConfigMap): void {
  for (const op of REGEX_OPERATORS) f[op] = TEXT;
}

/** The ltree operators; `scalar` names the type of the ltree, lquery and ltxtquery operands. */
export function ltreeFields(f: GraphQLInputFieldConfigMap, ltree: GraphQLScalarType, scalar: (typeName: string) => GraphQLScalarType): void {
  Object.assign(f, {
    _ancestor: field(ltree),
    _ancestor_any: STRINGS,
    _descendant: field(ltree),
    _descendant_any: STRINGS,
    _matches: field(scalar('lquery')),
    _matches_any: STRINGS,
    _matches_fulltext: field(scalar('ltxtquery')),
  });
}

/** `_cast: jsonb_cast_exp` of a jsonb comparison: `{String: String_comparison_exp}` compares the value's text. */
export function castField(f: GraphQLInputFieldConfigMap, stringComparison: () => GraphQLInputObjectType, cache: Map<string, GraphQLInputObjectType>): void {
  let t = cache.get('jsonb_cast_exp');
  if (!t) {
    t = new GraphQLInputObjectType({ name: 'jsonb_cast_exp', extensions: NO_EXTENSIONS, fields: () => ({ String: field(stringComparison()) }) });
    cache.set('jsonb_cast_exp', t);
  }
  f['_cast'] = field(t);
}
