import { describe, expect, it } from 'vitest';
import { diffMetadata, renderDiffText, summarize } from '../../src/metadata/diff.js';
import { retry, T, uid, type Obj } from './diff-fixtures.js';

// diffMetadata for each kind of object of the cli.md §4.12 table: added, removed, changed, unchanged.

const list = (o: Obj, key: string): unknown[] => (o[key] ??= []) as unknown[];
const table0 = (d: Obj): Obj => (d['tables'] as Obj[])[0] as Obj;
const customTypes = (d: Obj): Obj => (d['custom_types'] ??= {}) as Obj;

/** The project before any case is put in: one table and one action. */
const base = (): Obj => ({
  version: 2,
  tables: [{ table: T }],
  actions: [{ name: 'create_user', definition: { handler: 'http://h/create_user', output_type: 'UserId', kind: 'synchronous' } }],
});

interface Case {
  kind: string;
  name: string;
  put: (d: Obj, v: Obj) => void;
  v1: Obj;
  v2: Obj;
  /** Field lines of the change v1 → v2. */
  fields: string[];
}

const child = (key: string) => (d: Obj, v: Obj) => list(table0(d), key).push(v);
const top = (key: string) => (d: Obj, v: Obj) => list(d, key).push(v);
const et = { enable_manual: true, insert: { columns: '*' } };

const cases: Case[] = [
  {
    kind: 'table', name: 'public.tag', put: top('tables'),
    v1: { table: { schema: 'public', name: 'tag' } },
    v2: { table: { schema: 'public', name: 'tag' }, is_enum: true, configuration: { custom_root_fields: { select: 'tags' } } },
    fields: ['+ is_enum: true', '+ configuration: {"custom_root_fields":{"select":"tags"}}'],
  },
  {
    kind: 'object_relationship', name: 'public.author.publisher', put: child('object_relationships'),
    v1: { name: 'publisher', using: { foreign_key_constraint_on: 'publisher_id' } },
    v2: { name: 'publisher', using: { manual_configuration: { remote_table: { schema: 'public', name: 'publisher' }, column_mapping: { publisher_id: 'id' } } }, comment: 'manual' },
    fields: [
      '+ using.manual_configuration: {"remote_table":{"schema":"public","name":"publisher"},"col…',
      '- using.foreign_key_constraint_on: "publisher_id"',
      '+ comment: "manual"',
    ],
  },
  {
    kind: 'array_relationship', name: 'public.author.articles', put: child('array_relationships'),
    v1: { name: 'articles', using: { foreign_key_constraint_on: { table: { schema: 'public', name: 'article' }, column: 'author_id' } } },
    v2: { name: 'articles', using: { foreign_key_constraint_on: { table: { schema: 'public', name: 'article' }, column: 'writer_id' } } },
    fields: ['~ using.foreign_key_constraint_on.column: "author_id" → "writer_id"'],
  },
  {
    kind: 'remote_relationship', name: 'public.author.profile', put: child('remote_relationships'),
    v1: { name: 'profile', definition: { remote_schema: 'users', lhs_fields: ['id'] } },
    v2: { name: 'profile', definition: { remote_schema: 'users', lhs_fields: ['id', 'name'] } },
    fields: ['~ definition.lhs_fields: ["id"] → ["id","name"]'],
  },
  {
    kind: 'computed_field', name: 'public.author.full_name', put: child('computed_fields'),
    v1: { name: 'full_name', definition: { function: { schema: 'public', name: 'author_full_name' } } },
    v2: { name: 'full_name', definition: { function: { schema: 'public', name: 'author_full_name' }, table_argument: 'a' }, comment: 'display' },
    fields: ['+ definition.table_argument: "a"', '+ comment: "display"'],
  },
  {
    kind: 'event_trigger', name: 'public.author.author_events', put: child('event_triggers'),
    v1: { name: 'author_events', definition: et, retry_conf: retry, webhook: 'http://e/x' },
    v2: { name: 'author_events', definition: { ...et, enable_manual: false }, retry_conf: { ...retry, num_retries: 3 }, webhook_from_env: 'EVENTS_URL' },
    fields: ['~ definition.enable_manual: true → false', '~ retry_conf.num_retries: 0 → 3', '+ webhook_from_env: "EVENTS_URL"', '- webhook: "http://e/x"'],
  },
  {
    kind: 'insert_permission', name: 'public.author.user', put: child('insert_permissions'),
    v1: { role: 'user', permission: { check: {}, columns: ['name'] } },
    v2: { role: 'user', permission: { check: { id: uid }, columns: ['name'], backend_only: true } },
    fields: ['+ permission.check.id: {"_eq":"X-Engine-User-Id"}', '+ permission.backend_only: true'],
  },
  {
    kind: 'select_permission', name: 'public.author.user', put: child('select_permissions'),
    v1: { role: 'user', permission: { columns: '*', filter: { id: uid } } },
    v2: { role: 'user', permission: { columns: '*', filter: { id: uid, $or: [{ active: true }] }, allow_aggregations: true } },
    fields: ['+ permission.filter[\'$or\']: [{"active":true}]', '+ permission.allow_aggregations: true'],
  },
  {
    kind: 'update_permission', name: 'public.author.user', put: child('update_permissions'),
    v1: { role: 'user', permission: { columns: ['name'], filter: { id: uid }, check: null } },
    v2: { role: 'user', permission: { columns: ['name'], filter: { id: uid }, check: { id: uid }, set: { updated_by: 'X-Engine-User-Id' } } },
    fields: ['~ permission.check: null → {"id":{"_eq":"X-Engine-User-Id"}}', '+ permission.set: {"updated_by":"X-Engine-User-Id"}'],
  },
  {
    kind: 'delete_permission', name: 'public.author.user', put: child('delete_permissions'),
    v1: { role: 'user', permission: { filter: {} } },
    v2: { role: 'user', permission: { filter: { id: uid } } },
    fields: ['+ permission.filter.id: {"_eq":"X-Engine-User-Id"}'],
  },
  {
    kind: 'function', name: 'public.search_authors', put: top('functions'),
    v1: { function: { schema: 'public', name: 'search_authors' } },
    v2: { function: { schema: 'public', name: 'search_authors' }, configuration: { session_argument: 'session' } },
    fields: ['+ configuration: {"session_argument":"session"}'],
  },
  {
    kind: 'remote_schema', name: 'users', put: top('remote_schemas'),
    v1: { name: 'users', definition: { url: 'https://a.example.com/graphql' } },
    v2: { name: 'users', definition: { url: 'https://b.example.com/graphql', timeout_seconds: 5 } },
    fields: ['~ definition.url: "https://a.example.com/graphql" → "https://b.example.com/graphql"', '+ definition.timeout_seconds: 5'],
  },
  {
    kind: 'query_collection', name: 'allowed', put: top('query_collections'),
    v1: { name: 'allowed', definition: { queries: [{ name: 'authors', query: 'query { author { id } }' }] } },
    v2: { name: 'allowed', definition: { queries: [{ name: 'authors', query: 'query { author { id name } }' }] } },
    fields: ['~ definition.queries: [{"name":"authors","query":"query { author { id } }"}] → [{"name":"authors","query":"query { author { id name } }"}]'],
  },
  {
    kind: 'cron_trigger', name: 'nightly', put: top('cron_triggers'),
    v1: { name: 'nightly', webhook: 'http://jobs/nightly', schedule: '0 3 * * *', include_in_metadata: true },
    v2: { name: 'nightly', webhook: 'http://jobs/nightly', schedule: '30 2 * * *', include_in_metadata: true, payload: { full: true } },
    fields: ['~ schedule: "0 3 * * *" → "30 2 * * *"', '+ payload: {"full":true}'],
  },
  {
    // An allow-list entry is named by its only key; a change can only be in a key the format does not know.
    kind: 'allowlist_entry', name: 'allowed', put: top('allowlist'),
    v1: { collection: 'allowed' },
    v2: { collection: 'allowed', scope: { global: false } },
    fields: ['+ scope: {"global":false}'],
  },
  {
    kind: 'custom_type', name: 'Date', put: (d, v) => list(customTypes(d), 'scalars').push(v),
    v1: { name: 'Date' },
    v2: { name: 'Date', description: 'ISO 8601 date' },
    fields: ['+ description: "ISO 8601 date"'],
  },
  {
    kind: 'action', name: 'send_email', put: top('actions'),
    v1: { name: 'send_email', definition: { handler: 'http://h/send', output_type: 'Boolean', kind: 'synchronous' } },
    v2: { name: 'send_email', definition: { handler: 'http://h/send', output_type: 'Boolean', kind: 'asynchronous', timeout: 60 } },
    fields: ['~ definition.kind: "synchronous" → "asynchronous"', '+ definition.timeout: 60'],
  },
  {
    kind: 'action_permission', name: 'create_user.user', put: (d, v) => list((d['actions'] as Obj[])[0] as Obj, 'permissions').push(v),
    v1: { role: 'user' },
    v2: { role: 'user', comment: 'signed-in users' },
    fields: ['+ comment: "signed-in users"'],
  },
];

const withCase = (c: Case, v: Obj): Obj => {
  const d = base();
  c.put(d, structuredClone(v));
  return d;
};

describe('diff per kind', () => {
  it('the cases cover every kind of the §4.12 table, in its order', () => {
    expect(cases.map((c) => c.kind)).toEqual([
      'table', 'object_relationship', 'array_relationship', 'remote_relationship', 'computed_field', 'event_trigger',
      'insert_permission', 'select_permission', 'update_permission', 'delete_permission', 'function', 'remote_schema',
      'query_collection', 'cron_trigger', 'allowlist_entry', 'custom_type', 'action', 'action_permission',
    ]);
  });

  for (const c of cases) {
    describe(c.kind, () => {
      it('added', () => {
        const changes = diffMetadata(base(), withCase(c, c.v1));
        expect(changes).toEqual([{ change: 'added', kind: c.kind, name: c.name }]);
        expect(renderDiffText(changes)).toBe(`+ ${c.kind} ${c.name}\n\nSummary: 1 added, 0 removed, 0 changed.`);
      });

      it('removed', () => {
        const changes = diffMetadata(withCase(c, c.v1), base());
        expect(changes).toEqual([{ change: 'removed', kind: c.kind, name: c.name }]);
        expect(renderDiffText(changes)).toBe(`- ${c.kind} ${c.name}\n\nSummary: 0 added, 1 removed, 0 changed.`);
      });

      it('changed', () => {
        const changes = diffMetadata(withCase(c, c.v1), withCase(c, c.v2));
        expect(changes.map((x) => [x.change, x.kind, x.name])).toEqual([['changed', c.kind, c.name]]);
        expect(renderDiffText(changes)).toBe(
          [`~ ${c.kind} ${c.name}`, ...c.fields.map((f) => `    ${f}`), '', 'Summary: 0 added, 0 removed, 1 changed.'].join('\n'),
        );
      });

      it('unchanged', () => {
        expect(diffMetadata(withCase(c, c.v1), withCase(c, structuredClone(c.v1)))).toEqual([]);
      });
    });
  }

  it('all kinds at once: kind order of the table, then name', () => {
    const from = base();
    const to = base();
    for (const c of cases) {
      c.put(from, structuredClone(c.v1));
      c.put(to, structuredClone(c.v2));
    }
    const heads = renderDiffText(diffMetadata(from, to)).split('\n').filter((l) => l.startsWith('~'));
    expect(heads).toEqual(cases.map((c) => `~ ${c.kind} ${c.name}`));
    expect(summarize(diffMetadata(from, to))).toEqual({ added: 0, removed: 0, changed: cases.length });
    expect(diffMetadata(to, structuredClone(to))).toEqual([]);
  });

  it('a custom type that moves to another group is changed', () => {
    const from = { version: 2, tables: [], custom_types: { scalars: [{ name: 'Color' }] } };
    const to = { version: 2, tables: [], custom_types: { enums: [{ name: 'Color', values: [{ value: 'RED' }] }] } };
    expect(renderDiffText(diffMetadata(from, to))).toBe(
      '~ custom_type Color\n    ~ group: "scalars" → "enums"\n    + values: [{"value":"RED"}]\n\nSummary: 0 added, 0 removed, 1 changed.',
    );
  });

  it("an action's permissions are objects of their own, not part of the action", () => {
    const act = (permissions: Obj[]) => ({ version: 2, tables: [], actions: [{ name: 'a', definition: { handler: 'http://h', output_type: 'T' }, permissions }] });
    expect(diffMetadata(act([{ role: 'x' }]), act([{ role: 'y' }]))).toEqual([
      { change: 'removed', kind: 'action_permission', name: 'a.x' },
      { change: 'added', kind: 'action_permission', name: 'a.y' },
    ]);
  });

  it('removing a table removes its children too', () => {
    const from = { version: 2, tables: [{ table: T, select_permissions: [{ role: 'user', permission: { columns: '*', filter: {} } }] }] };
    expect(diffMetadata(from, { version: 2, tables: [] })).toEqual([
      { change: 'removed', kind: 'table', name: 'public.author' },
      { change: 'removed', kind: 'select_permission', name: 'public.author.user' },
    ]);
  });
});
