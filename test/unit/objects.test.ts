import { describe, expect, it } from 'vitest';
import { KIND_ORDER, metadataObjects, normaliseObject, type CanonicalDocument } from '../../src/metadata/objects.js';

/** engine-api.md §6.4, plus one of every † key (§6.5) and a second schema. */
const doc: CanonicalDocument = {
  version: 2,
  tables: [
    {
      table: { schema: 'public', name: 'article' },
      object_relationships: [{ name: 'author', using: { foreign_key_constraint_on: 'author_id' } }],
      select_permissions: [{ role: 'user', permission: { columns: ['id', 'title'], filter: { author_id: { _eq: 'X-Engine-User-Id' } }, limit: 10 }, comment: 'own rows' }],
      event_triggers: [{
        name: 'article_events',
        definition: { enable_manual: true, insert: { columns: '*' }, update: { columns: ['title'], payload: ['id', 'title'] } },
        retry_conf: { num_retries: 3, interval_sec: 10, timeout_sec: 60 },
        webhook: '{{EVENTS_BASE_URL}}/article',
        headers: [{ name: 'x-token', value_from_env: 'EVENTS_TOKEN' }],
      }],
    },
    {
      table: { schema: 'public', name: 'author' },
      is_enum: true,
      configuration: { custom_root_fields: { select: 'authors' } },
      array_relationships: [{ name: 'articles', using: { foreign_key_constraint_on: { table: { schema: 'public', name: 'article' }, column: 'author_id' } } }],
      computed_fields: [{ name: 'full_name', definition: { function: { schema: 'public', name: 'author_full_name' } } }],
      remote_relationships: [{ name: 'profile', definition: { remote_schema: 'users', hasura_fields: ['id'] } }],
      insert_permissions: [{ role: 'user', permission: { check: { id: { _eq: 'X-Engine-User-Id' } }, columns: ['name'], backend_only: true } }],
      select_permissions: [{ role: 'user', permission: { columns: '*', computed_fields: ['full_name'], filter: {} } }],
      update_permissions: [{ role: 'user', permission: { columns: ['name'], filter: { id: { _eq: 'X-Engine-User-Id' } }, check: null } }],
      delete_permissions: [{ role: 'user', permission: { filter: { id: { _eq: 'X-Engine-User-Id' } } } }],
    },
    { table: { schema: 'billing', name: 'invoice' } },
  ],
  functions: [{ function: { schema: 'public', name: 'search_articles' }, configuration: { session_argument: 'session' } }],
  remote_schemas: [{ name: 'users', definition: { url: 'https://users.example.com/graphql', timeout_seconds: 5 }, comment: 'user service' }],
  query_collections: [{ name: 'allowed', definition: { queries: [{ name: 'q1', query: 'query { author { id } }' }] } }],
  allowlist: [{ collection: 'allowed' }],
  actions: [{
    name: 'create_user',
    definition: { handler: '{{ACTION_BASE_URL}}/create_user', output_type: 'UserId', arguments: [{ name: 'email', type: 'String!' }], kind: 'synchronous' },
    permissions: [{ role: 'user' }, { role: 'admin_like', comment: 'ops' }],
  }],
  custom_types: {
    input_objects: [{ name: 'SampleInput', fields: [{ name: 'username', type: 'String!' }] }],
    objects: [{ name: 'UserId', fields: [{ name: 'id', type: 'Int!' }], relationships: [{ name: 'author', type: 'object', remote_table: { schema: 'public', name: 'author' }, field_mapping: { id: 'id' } }] }],
    scalars: [{ name: 'Date', description: 'ISO date' }],
    enums: [{ name: 'Color', values: [{ value: 'RED' }, { value: 'BLUE', is_deprecated: true }] }],
  },
  cron_triggers: [{ name: 'nightly', webhook: 'https://jobs.example.com/nightly', schedule: '0 3 * * *', include_in_metadata: true, payload: { a: 1 } }],
  rest_endpoints: [{ name: 'get_allowed', url: 'allowed/:id', methods: ['POST', 'GET'], definition: { query: { collection_name: 'allowed', query_name: 'q' } } }],
  inherited_roles: [{ role_name: 'staff', role_set: ['user', 'editor', 'user'] }],
  api_limits: { disabled: false, depth_limit: { global: 5, per_role: { user: 3 } } },
};

describe('metadataObjects', () => {
  const objects = metadataObjects(doc);
  const find = (kind: string, name: string) => objects.find((o) => o.kind === kind && o.name === name)?.value;

  it('names every object and lists them by kind order, then name', () => {
    expect(objects.map((o) => `${o.kind} ${o.name}`)).toEqual([
      'table billing.invoice',
      'table public.article',
      'table public.author',
      'object_relationship public.article.author',
      'array_relationship public.author.articles',
      'remote_relationship public.author.profile',
      'computed_field public.author.full_name',
      'event_trigger public.article.article_events',
      'insert_permission public.author.user',
      'select_permission public.article.user',
      'select_permission public.author.user',
      'update_permission public.author.user',
      'delete_permission public.author.user',
      'function public.search_articles',
      'remote_schema users',
      'query_collection allowed',
      'cron_trigger nightly',
      'allowlist_entry allowed',
      'rest_endpoint get_allowed',
      'custom_type Color',
      'custom_type Date',
      'custom_type SampleInput',
      'custom_type UserId',
      'action create_user',
      'action_permission create_user.admin_like',
      'action_permission create_user.user',
      'inherited_role staff',
      'api_limits api_limits',
    ]);
    expect(find('inherited_role', 'staff')).toEqual({ role_name: 'staff', role_set: ['editor', 'user'] });
    // Every kind of the §4.12 table occurs.
    expect(new Set(objects.map((o) => o.kind))).toEqual(new Set(KIND_ORDER));
  });

  it('a table is its entry without the nine child lists', () => {
    expect(find('table', 'public.author')).toEqual({
      table: { schema: 'public', name: 'author' },
      is_enum: true,
      configuration: { custom_root_fields: { select: 'authors' } },
    });
    expect(find('table', 'billing.invoice')).toEqual({ table: { schema: 'billing', name: 'invoice' } });
  });

  it('child objects are their items', () => {
    expect(find('object_relationship', 'public.article.author')).toEqual({ name: 'author', using: { foreign_key_constraint_on: 'author_id' } });
    expect(find('remote_relationship', 'public.author.profile')).toEqual({ name: 'profile', definition: { remote_schema: 'users', hasura_fields: ['id'] } });
    expect(find('select_permission', 'public.article.user')).toEqual({
      role: 'user',
      permission: { columns: ['id', 'title'], filter: { author_id: { _eq: 'X-Engine-User-Id' } }, limit: 10 },
      comment: 'own rows',
    });
    expect(find('insert_permission', 'public.author.user')).toEqual({
      role: 'user', permission: { check: { id: { _eq: 'X-Engine-User-Id' } }, columns: ['name'], backend_only: true },
    });
    expect(find('function', 'public.search_articles')).toEqual({ function: { schema: 'public', name: 'search_articles' }, configuration: { session_argument: 'session' } });
    expect(find('remote_schema', 'users')).toEqual(doc['remote_schemas'] && (doc['remote_schemas'] as unknown[])[0]);
    expect(find('allowlist_entry', 'allowed')).toEqual({ collection: 'allowed' });
    expect(find('cron_trigger', 'nightly')).toEqual((doc['cron_triggers'] as unknown[])[0]);
  });

  it('custom types carry their group first; actions lose their permissions', () => {
    const date = find('custom_type', 'Date');
    expect(date).toEqual({ group: 'scalars', name: 'Date', description: 'ISO date' });
    expect(Object.keys(date as object)[0]).toBe('group');
    expect(find('custom_type', 'Color')).toMatchObject({ group: 'enums' });
    expect(find('custom_type', 'SampleInput')).toMatchObject({ group: 'input_objects' });
    expect(find('custom_type', 'UserId')).toMatchObject({ group: 'objects', relationships: [{ name: 'author' }] });
    expect(find('action', 'create_user')).toEqual({
      name: 'create_user',
      definition: { handler: '{{ACTION_BASE_URL}}/create_user', output_type: 'UserId', arguments: [{ name: 'email', type: 'String!' }], kind: 'synchronous' },
    });
    expect(find('action_permission', 'create_user.admin_like')).toEqual({ role: 'admin_like', comment: 'ops' });
  });

  it('canonical values are left as they are, and normalisation is idempotent', () => {
    for (const o of objects) {
      const group = (o.value as { group?: string }).group;
      const again = normaliseObject(o.kind, o.kind === 'custom_type' ? { ...(o.value as object), group: undefined } : o.value, group);
      expect(JSON.stringify(again)).toBe(JSON.stringify(o.value));
    }
    expect(find('event_trigger', 'public.article.article_events')).toEqual((doc['tables'] as { event_triggers?: unknown[] }[])[0]?.event_triggers?.[0]);
    expect(find('update_permission', 'public.author.user')).toMatchObject({ permission: { check: null } });
  });

  it('an empty document has no objects; missing or odd lists are skipped', () => {
    expect(metadataObjects({ version: 2, tables: [] })).toEqual([]);
    expect(metadataObjects({ version: 2 })).toEqual([]);
    expect(metadataObjects({ version: 2, tables: [null, 3, { table: { schema: 'public', name: 't' }, select_permissions: 'x' }] }))
      .toEqual([{ kind: 'table', name: 'public.t', value: { table: { schema: 'public', name: 't' } } }]);
  });

  it('string names are public QT names (version-1 style)', () => {
    const objs = metadataObjects({ tables: [{ table: 'author', object_relationships: [] }], functions: [{ function: 'f' }] });
    expect(objs).toEqual([
      { kind: 'table', name: 'public.author', value: { table: { schema: 'public', name: 'author' } } },
      { kind: 'function', name: 'public.f', value: { function: { schema: 'public', name: 'f' } } },
    ]);
  });
});

describe('normalisation', () => {
  it('relationships: insertion_order null is its absence; the incumbent foreign-key forms compare as written (issue 29 point 5)', () => {
    const manual = (extra: object) => ({ name: 'r', using: { manual_configuration: { remote_table: 't', column_mapping: { a: 'b' }, ...extra } } });
    expect(normaliseObject('object_relationship', manual({ insertion_order: null }))).toEqual(normaliseObject('object_relationship', manual({})));
    expect(normaliseObject('object_relationship', manual({ insertion_order: 'after_parent' }))).not.toEqual(normaliseObject('object_relationship', manual({})));
    expect(normaliseObject('array_relationship', { name: 'r', using: { foreign_key_constraint_on: { table: 't', columns: ['a', 'b'] } } }))
      .toEqual({ name: 'r', using: { foreign_key_constraint_on: { table: { schema: 'public', name: 't' }, columns: ['a', 'b'] } } });
    expect(normaliseObject('object_relationship', { name: 'r', using: { foreign_key_constraint_on: ['a', 'b'] } }))
      .toEqual({ name: 'r', using: { foreign_key_constraint_on: ['a', 'b'] } });
  });

  it('columns, payload and permission computed_fields are sorted as sets', () => {
    expect(normaliseObject('select_permission', { role: 'u', permission: { columns: ['title', 'id', 'id'], computed_fields: ['b', 'a'], filter: {} } }))
      .toEqual({ role: 'u', permission: { columns: ['id', 'title'], computed_fields: ['a', 'b'], filter: {} } });
    expect(normaliseObject('insert_permission', { role: 'u', permission: { check: {}, columns: ['b', 'a'] } }))
      .toEqual({ role: 'u', permission: { check: {}, columns: ['a', 'b'] } });
    const et = normaliseObject('event_trigger', {
      name: 'e', definition: { enable_manual: true, update: { columns: ['b', 'a'], payload: ['z', 'y'] }, delete: { columns: '*' } },
      retry_conf: { num_retries: 0, interval_sec: 10, timeout_sec: 60 }, webhook: 'http://x',
    });
    expect(et).toMatchObject({ definition: { update: { columns: ['a', 'b'], payload: ['y', 'z'] }, delete: { columns: '*' } } });
  });

  it('other lists keep their order', () => {
    const a = normaliseObject('action', { name: 'a', definition: { handler: 'http://h', output_type: 'T', arguments: [{ name: 'b', type: 'Int' }, { name: 'a', type: 'Int' }] } });
    expect(a).toMatchObject({ definition: { arguments: [{ name: 'b' }, { name: 'a' }] } });
    const p = normaliseObject('select_permission', { role: 'u', permission: { columns: '*', filter: { _or: [{ b: { _eq: 1 } }, { a: { _eq: 1 } }] } } });
    expect(p).toEqual({ role: 'u', permission: { columns: '*', filter: { _or: [{ b: { _eq: 1 } }, { a: { _eq: 1 } }] } } });
  });

  it('always-written keys get their defaults, in canonical key order', () => {
    const et = normaliseObject('event_trigger', { name: 'e', definition: { insert: { columns: '*' } }, webhook: 'http://x' });
    expect(et).toEqual({ name: 'e', definition: { enable_manual: true, insert: { columns: '*' } }, retry_conf: { num_retries: 0, interval_sec: 10, timeout_sec: 60 }, webhook: 'http://x' });
    expect(JSON.stringify(et)).toBe('{"name":"e","definition":{"enable_manual":true,"insert":{"columns":"*"}},"retry_conf":{"num_retries":0,"interval_sec":10,"timeout_sec":60},"webhook":"http://x"}');
    expect(normaliseObject('event_trigger', { name: 'e', definition: { enable_manual: false }, retry_conf: { num_retries: 2 }, webhook: 'http://x' }))
      .toMatchObject({ definition: { enable_manual: false }, retry_conf: { num_retries: 2, interval_sec: 10, timeout_sec: 60 } });
    expect(normaliseObject('action', { name: 'a', definition: { handler: 'http://h', output_type: 'T', type: 'mutation' } }))
      .toEqual({ name: 'a', definition: { handler: 'http://h', output_type: 'T', kind: 'synchronous' } });
    expect(normaliseObject('update_permission', { role: 'u', permission: { columns: ['a'], filter: {} } }))
      .toEqual({ role: 'u', permission: { columns: ['a'], filter: {}, check: null } });
  });

  it('optional keys at their defaults are omitted', () => {
    expect(normaliseObject('table', { table: { schema: 'public', name: 't' }, is_enum: false, configuration: {}, select_permissions: [] }))
      .toEqual({ table: { schema: 'public', name: 't' } });
    expect(normaliseObject('object_relationship', { name: 'r', using: { foreign_key_constraint_on: 'c' }, comment: null }))
      .toEqual({ name: 'r', using: { foreign_key_constraint_on: 'c' } });
    expect(normaliseObject('computed_field', { name: 'c', definition: { function: { schema: 'public', name: 'f' }, table_argument: null }, comment: null }))
      .toEqual({ name: 'c', definition: { function: { schema: 'public', name: 'f' } } });
    expect(normaliseObject('select_permission', { role: 'u', permission: { columns: [], computed_fields: [], filter: {}, limit: null, allow_aggregations: false }, comment: null }))
      .toEqual({ role: 'u', permission: { columns: [], filter: {} } });
    expect(normaliseObject('insert_permission', { role: 'u', permission: { check: {}, set: {}, backend_only: false } }))
      .toEqual({ role: 'u', permission: { check: {} } });
    expect(normaliseObject('update_permission', { role: 'u', permission: { columns: '*', filter: {}, check: null, set: {} } }))
      .toEqual({ role: 'u', permission: { columns: '*', filter: {}, check: null } });
    expect(normaliseObject('function', { function: { schema: 's', name: 'f' }, configuration: {} })).toEqual({ function: { schema: 's', name: 'f' } });
    expect(normaliseObject('action', {
      name: 'a', definition: { handler: 'h', output_type: 'T', arguments: [], kind: 'asynchronous', forward_client_headers: false, headers: [], timeout: 30 },
      comment: null, permissions: [{ role: 'x' }],
    })).toEqual({ name: 'a', definition: { handler: 'h', output_type: 'T', kind: 'asynchronous' } });
    expect(normaliseObject('action', { name: 'a', definition: { handler: 'h', output_type: 'T', kind: 'synchronous', timeout: 31 } }))
      .toMatchObject({ definition: { timeout: 31 } });
    expect(normaliseObject('action_permission', { role: 'r', comment: null })).toEqual({ role: 'r' });
    expect(normaliseObject('remote_schema', { name: 'r', definition: { url: 'http://x', forward_client_headers: false, headers: [], timeout_seconds: null }, comment: null }))
      .toEqual({ name: 'r', definition: { url: 'http://x' } });
    expect(normaliseObject('cron_trigger', { name: 'c', webhook: 'http://x', schedule: '* * * * *', include_in_metadata: false, payload: null, headers: [], comment: null }))
      .toEqual({ name: 'c', webhook: 'http://x', schedule: '* * * * *', include_in_metadata: false });
    expect(normaliseObject('custom_type', { name: 'E', description: null, values: [{ value: 'A', description: null, is_deprecated: false }] }, 'enums'))
      .toEqual({ group: 'enums', name: 'E', values: [{ value: 'A' }] });
    expect(normaliseObject('custom_type', { name: 'O', fields: [{ name: 'f', type: 'Int', arguments: {} }], relationships: [] }, 'objects'))
      .toEqual({ group: 'objects', name: 'O', fields: [{ name: 'f', type: 'Int' }] });
  });

  it('explicit false is kept where the default is true; given values are kept', () => {
    expect(normaliseObject('cron_trigger', { name: 'c', webhook: 'w', schedule: 's', include_in_metadata: true, payload: {}, retry_conf: {} }))
      .toMatchObject({ payload: {}, retry_conf: {} });
    expect(normaliseObject('insert_permission', { role: 'u', permission: { check: {}, columns: [] } }))
      .toEqual({ role: 'u', permission: { check: {}, columns: [] } });
  });
});
