import type { CanonicalDocument } from '../../src/metadata/objects.js';

// Shared by the diff-*.test.ts files: the table of the base project and the documents behind the cli.md §4.12 example.

export type Obj = Record<string, unknown>;
export const T = { schema: 'public', name: 'author' };
export const uid = { _eq: 'X-Engine-User-Id' };
export const retry = { num_retries: 0, interval_sec: 10, timeout_sec: 60 };

/** The documents behind the example of cli.md §4.12. */
export const exampleFrom: CanonicalDocument = {
  version: 2,
  tables: [{
    table: T,
    select_permissions: [
      { role: 'anonymous', permission: { columns: ['id'], filter: {} } },
      { role: 'user', permission: { columns: ['id'], filter: { author_id: uid } }, comment: 'legacy' },
    ],
  }],
};
export const exampleTo: CanonicalDocument = {
  version: 2,
  tables: [{ table: T, select_permissions: [{ role: 'user', permission: { columns: ['id', 'name'], filter: { author_id: uid }, limit: 10 } }] }],
  actions: [{ name: 'createUser', definition: { handler: 'http://h/create', output_type: 'UserId', kind: 'synchronous' } }],
};
