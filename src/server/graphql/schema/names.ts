import type { QualifiedName } from '../../../metadata/types.js';

/** A valid GraphQL name that is not reserved for introspection (graphql-api.md §2.2). */
export const isGraphqlName = (s: string): boolean => /^[_A-Za-z][_0-9A-Za-z]*$/.test(s) && !s.startsWith('__');

/**
 * A name a generated enum value may have: a GraphQL name other than `true`, `false` and `null`, which the grammar
 * reads as literals (graphql-api.md §2.4). A column or constraint with such a name keeps its other fields.
 */
export const isEnumValueName = (s: string): boolean => isGraphqlName(s) && s !== 'true' && s !== 'false' && s !== 'null';

/** The GraphQL name of a table or function: its name in `public`, else `<schema>_<name>`. */
export const gqlName = (q: QualifiedName): string => (q.schema === 'public' ? q.name : `${q.schema}_${q.name}`);
