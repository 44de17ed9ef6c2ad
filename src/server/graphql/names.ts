import type { QualifiedName } from '../../metadata/types.js';

/** A valid GraphQL name that is not reserved for introspection (graphql-api.md §2.2). */
export const isGraphqlName = (s: string): boolean => /^[_A-Za-z][_0-9A-Za-z]*$/.test(s) && !s.startsWith('__');

/** The GraphQL name of a table or function: its name in `public`, else `<schema>_<name>`. */
export const gqlName = (q: QualifiedName): string => (q.schema === 'public' ? q.name : `${q.schema}_${q.name}`);
