import { describe, expect, it } from 'vitest';
import { canonicalDocument } from '../../src/metadata/document.js';

describe('canonicalDocument (the project tool keeps the §6.5 keys)', () => {
  it('puts every key of the format in canonical order and form', () => {
    const doc = canonicalDocument({
      cron_triggers: [{ name: 'nightly', webhook: 'http://x/y', schedule: '0 0 * * *', include_in_metadata: true, payload: { b: 1, a: 2 } }],
      allowlist: [{ collection: 'b' }, { collection: 'a' }],
      tables: [
        { table: 'b', is_enum: true, configuration: { comment: 'B', custom_root_fields: { select_by_pk: 'bOne', select: 'bs' }, custom_name: 'Bee',
          custom_column_names: { z: 'zed', a: 'ay' }, column_config: { z: { comment: 'Z', custom_name: 'zed' } } },
          insert_permissions: [{ role: 'u', permission: { check: {}, backend_only: true } }],
          remote_relationships: [{ name: 'r', definition: { x: 1 } }] },
        { table: { name: 'a' }, is_enum: false, configuration: {} },
      ],
      remote_schemas: [{ name: 'rs', definition: { url: 'http://remote/graphql', timeout_seconds: 10 } }],
      query_collections: [{ name: 'q', definition: { queries: [{ name: 'one', query: '{ a }' }] } }],
    });
    expect(JSON.stringify(doc)).toBe(JSON.stringify({
      version: 2,
      tables: [
        { table: { schema: 'public', name: 'a' } },
        { table: { schema: 'public', name: 'b' }, is_enum: true, configuration: { custom_name: 'Bee', custom_root_fields: { select: 'bs', select_by_pk: 'bOne' },
          column_config: { z: { custom_name: 'zed', comment: 'Z' } }, custom_column_names: { a: 'ay', z: 'zed' }, comment: 'B' },
          remote_relationships: [{ name: 'r', definition: { x: 1 } }],
          insert_permissions: [{ role: 'u', permission: { check: {}, backend_only: true } }] },
      ],
      remote_schemas: [{ name: 'rs', definition: { url: 'http://remote/graphql', timeout_seconds: 10 } }],
      query_collections: [{ name: 'q', definition: { queries: [{ name: 'one', query: '{ a }' }] } }],
      allowlist: [{ collection: 'a' }, { collection: 'b' }],
      cron_triggers: [{ name: 'nightly', webhook: 'http://x/y', schedule: '0 0 * * *', include_in_metadata: true, payload: { b: 1, a: 2 } }],
    }));
  });
});
