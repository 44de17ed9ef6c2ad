import { describe, expect, it } from 'vitest';
import {
  diffMetadata, fieldChanges, renderDiffJson, renderDiffText, showValue, summarize, type Change, type OriginLookup,
} from '../../src/metadata/diff.js';
import type { CanonicalDocument } from '../../src/metadata/objects.js';

type Obj = Record<string, unknown>;
const T = { schema: 'public', name: 'author' };
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
const uid = { _eq: 'X-Engine-User-Id' };
const et = { enable_manual: true, insert: { columns: '*' } };
const retry = { num_retries: 0, interval_sec: 10, timeout_sec: 60 };

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

/** The documents behind the example of cli.md §4.12. */
const exampleFrom: CanonicalDocument = {
  version: 2,
  tables: [{
    table: T,
    select_permissions: [
      { role: 'anonymous', permission: { columns: ['id'], filter: {} } },
      { role: 'user', permission: { columns: ['id'], filter: { author_id: uid } }, comment: 'legacy' },
    ],
  }],
};
const exampleTo: CanonicalDocument = {
  version: 2,
  tables: [{ table: T, select_permissions: [{ role: 'user', permission: { columns: ['id', 'name'], filter: { author_id: uid }, limit: 10 } }] }],
  actions: [{ name: 'createUser', definition: { handler: 'http://h/create', output_type: 'UserId', kind: 'synchronous' } }],
};

describe('text output', () => {
  const changes = diffMetadata(exampleFrom, exampleTo);

  it('reproduces the cli.md §4.12 example exactly', () => {
    // The example lists its changes as added, removed, changed; the rule above it orders by kind, so they are given here
    // in the example's order to check the format, and the diff's own order is checked below.
    const inExampleOrder = [...changes].sort((a, b) => ['added', 'removed', 'changed'].indexOf(a.change) - ['added', 'removed', 'changed'].indexOf(b.change));
    expect(renderDiffText(inExampleOrder)).toBe(
      `+ action createUser
- select_permission public.author.anonymous
~ select_permission public.author.user
    ~ permission.columns: ["id"] → ["id","name"]
    + permission.limit: 10
    - comment: "legacy"

Summary: 1 added, 1 removed, 1 changed.`,
    );
  });

  it('orders the example by kind (the §4.12 rule): permissions before actions', () => {
    expect(renderDiffText(changes)).toBe(
      `- select_permission public.author.anonymous
~ select_permission public.author.user
    ~ permission.columns: ["id"] → ["id","name"]
    + permission.limit: 10
    - comment: "legacy"
+ action createUser

Summary: 1 added, 1 removed, 1 changed.`,
    );
  });

  it('prints No differences. without changes', () => {
    expect(renderDiffText([])).toBe('No differences.');
    expect(renderDiffText(diffMetadata(exampleTo, structuredClone(exampleTo)))).toBe('No differences.');
  });

  it('recurses into mappings, compares arrays and scalars whole', () => {
    const a = { permission: { filter: { author_id: { _eq: 1 }, _or: [{ a: 1 }, { b: 2 }] }, columns: ['a'] } };
    const b = { permission: { filter: { author_id: { _eq: 2 }, _or: [{ a: 1 }] }, columns: '*' } };
    expect(fieldChanges(a, b)).toEqual([
      { path: 'permission.filter.author_id._eq', change: '~', from: 1, to: 2 },
      { path: 'permission.filter._or', change: '~', from: [{ a: 1 }, { b: 2 }], to: [{ a: 1 }] },
      { path: 'permission.columns', change: '~', from: ['a'], to: '*' },
    ]);
    // A mapping against a scalar is one change, not a recursion.
    expect(fieldChanges({ check: null }, { check: { id: 1 } })).toEqual([{ path: 'check', change: '~', from: null, to: { id: 1 } }]);
    // Key order of mappings does not matter.
    expect(fieldChanges({ m: { x: 1, y: [{ p: 1, q: 2 }] } }, { m: { y: [{ q: 2, p: 1 }], x: 1 } })).toEqual([]);
    // Keys that are not identifiers are quoted as in engine JSON paths.
    expect(fieldChanges({ set: { 'full name': 'a' } }, { set: { 'full name': 'b' } })[0]?.path).toBe("set['full name']");
  });

  it('cuts values to 60 characters: 59 and …', () => {
    const exactly60 = `"${'x'.repeat(58)}"`;
    expect(showValue('x'.repeat(58))).toBe(exactly60);
    expect(showValue('x'.repeat(59))).toBe(`"${'x'.repeat(58)}…`);
    expect([...showValue('x'.repeat(59))].length).toBe(60);
    expect(showValue({ a: 'y'.repeat(100) })).toBe(`{"a":"${'y'.repeat(53)}…`);
    // Characters are code points: an emoji is not split, non-ASCII is not escaped.
    expect(showValue('😀'.repeat(70))).toBe(`"${'😀'.repeat(58)}…`);
    expect(showValue('é')).toBe('"é"');
    expect(showValue(null)).toBe('null');
    const long = { role: 'u', permission: { columns: ['id'], filter: {} }, comment: 'c'.repeat(80) };
    const text = renderDiffText(diffMetadata(
      { version: 2, tables: [{ table: T, select_permissions: [{ ...long, comment: 'short' }] }] },
      { version: 2, tables: [{ table: T, select_permissions: [long] }] },
    ));
    expect(text.split('\n')[1]).toBe(`    ~ comment: "short" → "${'c'.repeat(58)}…`);
  });
});

describe('ordering', () => {
  it('orders by kind order, then name by code point', () => {
    const scalars = ['b', 'B', 'a', '\uff5e', '😀', 'a_b', 'ab'].map((name) => ({ name }));
    const changes = diffMetadata({ version: 2, tables: [] }, {
      version: 2,
      tables: [{ table: { schema: 'z', name: 't' } }, { table: { schema: 'a', name: 't' } }],
      custom_types: { scalars },
      actions: [{ name: 'a', definition: { handler: 'http://h', output_type: 'b', kind: 'synchronous' }, permissions: [{ role: 'r' }] }],
      functions: [{ function: { schema: 'public', name: 'f' } }],
    });
    expect(changes.map((c) => `${c.kind} ${c.name}`)).toEqual([
      'table a.t', 'table z.t', 'function public.f',
      'custom_type B', 'custom_type a', 'custom_type a_b', 'custom_type ab', 'custom_type b', 'custom_type \uff5e', 'custom_type 😀',
      'action a', 'action_permission a.r',
    ]);
  });

  it('interleaves added, removed and changed objects of one kind by name', () => {
    const perm = (role: string, columns: string[]) => ({ role, permission: { columns, filter: {} } });
    const from = { version: 2, tables: [{ table: T, select_permissions: [perm('a', ['id']), perm('c', ['id'])] }] };
    const to = { version: 2, tables: [{ table: T, select_permissions: [perm('b', ['id']), perm('c', ['name'])] }] };
    expect(diffMetadata(from, to).map((c) => `${c.change} ${c.name}`)).toEqual(['removed public.author.a', 'added public.author.b', 'changed public.author.c']);
  });
});

describe('normalisation in the diff', () => {
  it('a non-canonical document equals its canonical form', () => {
    const canonical: CanonicalDocument = {
      version: 2,
      tables: [{
        table: T,
        computed_fields: [{ name: 'full_name', definition: { function: { schema: 'public', name: 'f' } } }],
        select_permissions: [{ role: 'user', permission: { columns: ['id', 'name'], computed_fields: ['a', 'full_name'], filter: {} } }],
        update_permissions: [{ role: 'user', permission: { columns: ['name'], filter: {}, check: null } }],
        event_triggers: [{ name: 'e', definition: { enable_manual: true, update: { columns: ['id', 'name'], payload: ['id', 'name'] } }, retry_conf: retry, webhook: 'http://e' }],
      }],
      actions: [{ name: 'a', definition: { handler: 'http://h', output_type: 'T', kind: 'synchronous' } }],
    };
    const loose: CanonicalDocument = {
      version: 2,
      tables: [{
        table: 'author',
        is_enum: false,
        configuration: {},
        object_relationships: [],
        computed_fields: [{ name: 'full_name', definition: { function: 'f', session_argument: null }, comment: null }],
        select_permissions: [{ role: 'user', permission: { columns: ['name', 'id'], computed_fields: ['full_name', 'a'], filter: {}, allow_aggregations: false, limit: null }, comment: null }],
        update_permissions: [{ role: 'user', permission: { columns: ['name'], filter: {}, set: {} } }],
        event_triggers: [{ name: 'e', definition: { update: { columns: ['name', 'id'], payload: ['name', 'id'] } }, webhook: 'http://e', headers: [] }],
      }],
      functions: [],
      actions: [{ name: 'a', definition: { handler: 'http://h', output_type: 'T', arguments: [], timeout: 30, type: 'mutation' }, permissions: [], comment: null }],
      custom_types: { scalars: [] },
    };
    expect(diffMetadata(canonical, loose)).toEqual([]);
    expect(diffMetadata(loose, canonical)).toEqual([]);
  });

  it('defaults differ from other values', () => {
    const trig = (definition: Obj, retry_conf?: Obj) => ({ version: 2, tables: [{ table: T, event_triggers: [{ name: 'e', definition, ...(retry_conf ? { retry_conf } : {}), webhook: 'http://e' }] }] });
    expect(renderDiffText(diffMetadata(trig({ insert: { columns: '*' } }), trig({ enable_manual: false, insert: { columns: '*' } }, { timeout_sec: 5 }))).split('\n').slice(1, 3))
      .toEqual(['    ~ definition.enable_manual: true → false', '    ~ retry_conf.timeout_sec: 60 → 5']);
    // Column order within a set does not count, but a "*" is not a list of every column.
    const sel = (columns: unknown) => ({ version: 2, tables: [{ table: T, select_permissions: [{ role: 'u', permission: { columns, filter: {} } }] }] });
    expect(diffMetadata(sel(['b', 'a']), sel(['a', 'b']))).toEqual([]);
    expect(diffMetadata(sel(['a']), sel('*'))).toHaveLength(1);
  });

  it('shows set-like lists sorted', () => {
    const sel = (columns: string[]) => ({ version: 2, tables: [{ table: T, select_permissions: [{ role: 'u', permission: { columns, filter: {} } }] }] });
    expect(renderDiffText(diffMetadata(sel(['name', 'id']), sel(['title', 'id']))).split('\n')[1])
      .toBe('    ~ permission.columns: ["id","name"] → ["id","title"]');
  });
});

describe('JSON output', () => {
  const changes = diffMetadata(exampleFrom, exampleTo);

  it('has the §4.12 shape with full values and key order', () => {
    const json = renderDiffJson(changes);
    expect(json).toEqual([
      { change: 'removed', kind: 'select_permission', name: 'public.author.anonymous' },
      {
        change: 'changed', kind: 'select_permission', name: 'public.author.user',
        fields: [
          { path: 'permission.columns', change: '~', from: ['id'], to: ['id', 'name'] },
          { path: 'permission.limit', change: '+', to: 10 },
          { path: 'comment', change: '-', from: 'legacy' },
        ],
      },
      { change: 'added', kind: 'action', name: 'createUser' },
    ]);
    expect(Object.keys(json[1] ?? {})).toEqual(['change', 'kind', 'name', 'fields']);
    expect(JSON.stringify(json[2])).toBe('{"change":"added","kind":"action","name":"createUser"}');
  });

  it('adds file, line and column from the origins lookup', () => {
    const seen: string[] = [];
    const origins: OriginLookup = (kind, name, change) => {
      seen.push(`${change} ${kind} ${name}`);
      return kind === 'action' ? undefined : { file: 'metadata/tables.yaml', line: 3, column: 7 };
    };
    const json = renderDiffJson(changes, origins);
    expect(seen).toEqual(['removed select_permission public.author.anonymous', 'changed select_permission public.author.user', 'added action createUser']);
    expect(json[2]).toEqual({ change: 'added', kind: 'action', name: 'createUser' });
    expect(Object.keys(json[1] ?? {})).toEqual(['change', 'kind', 'name', 'file', 'line', 'column', 'fields']);
    expect(json[0]).toEqual({ change: 'removed', kind: 'select_permission', name: 'public.author.anonymous', file: 'metadata/tables.yaml', line: 3, column: 7 });
  });

  it('keeps long values whole and null values present', () => {
    const long = 'x'.repeat(200);
    const c: Change[] = [{ change: 'changed', kind: 'cron_trigger', name: 'n', fields: [{ path: 'payload', change: '~', from: null, to: long }] }];
    expect(JSON.parse(JSON.stringify(renderDiffJson(c)))).toEqual([
      { change: 'changed', kind: 'cron_trigger', name: 'n', fields: [{ path: 'payload', change: '~', from: null, to: long }] },
    ]);
  });

  it('summarize counts each change type', () => {
    expect(summarize(changes)).toEqual({ added: 1, removed: 1, changed: 1 });
    expect(summarize([])).toEqual({ added: 0, removed: 0, changed: 0 });
  });
});
