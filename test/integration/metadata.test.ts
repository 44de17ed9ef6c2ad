import { describe, expect, it } from 'vitest';
import { useTestEngine } from '../helpers/engine.js';
import { expectErrorKeys, exported, qt, inconsistentError } from '../helpers/assertions.js';

// export_metadata and replace_metadata (engine-api.md §4.8.1–2, §6; §7 rows 23, 78). Parse errors and
// duplicates are in metadata-errors.test.ts; clear/reload/inconsistency operations in metadata-inconsistency.test.ts.

const e = useTestEngine();

const replace = (args: unknown) => ({ type: 'replace_metadata', args });
const EXPORT = { type: 'export_metadata', args: {} };

const SCHEMA = `
  create schema billing;
  create table author (id serial primary key, name text);
  create table article (id serial primary key, author_id int references author(id), title text);
  create table billing.invoice (id serial primary key, author_id int references author(id), amount numeric);
  create function search_articles(q text) returns setof article language sql stable as $$ select * from article where title = q $$;
  create function billing.my_invoices(sess json) returns setof billing.invoice language sql stable as $$ select * from billing.invoice $$;`;

/** The canonical §6 form of a document using every supported kind: sorted, in the key order of §6.1. */
const CANONICAL = {
  version: 2,
  tables: [
    { table: qt('invoice', 'billing'), object_relationships: [{ name: 'author', using: { foreign_key_constraint_on: 'author_id' }, comment: 'who is billed' }] },
    {
      table: qt('article'),
      object_relationships: [
        { name: 'author', using: { foreign_key_constraint_on: 'author_id' } },
        { name: 'author_m', using: { manual_configuration: { remote_table: qt('author'), column_mapping: { author_id: 'id', title: 'name' } } } },
      ],
    },
    {
      table: qt('author'),
      array_relationships: [
        { name: 'articles', using: { foreign_key_constraint_on: { table: qt('article'), column: 'author_id' } } },
        { name: 'invoices', using: { foreign_key_constraint_on: { table: qt('invoice', 'billing'), column: 'author_id' } } },
      ],
    },
  ],
  functions: [{ function: qt('my_invoices', 'billing'), configuration: { session_argument: 'sess' } }, { function: qt('search_articles') }],
};
const CANONICAL_TEXT = JSON.stringify(CANONICAL);

/** The same metadata, written in every other allowed way: unsorted, keys reordered, string names, nulls. */
const SHUFFLED = {
  functions: ['search_articles', { configuration: { session_argument: 'sess' }, function: { name: 'my_invoices', schema: 'billing' } }],
  tables: [
    {
      array_relationships: [
        { using: { foreign_key_constraint_on: { column: 'author_id', table: { name: 'invoice', schema: 'billing' } } }, name: 'invoices', comment: null },
        { name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } },
      ],
      table: 'author',
      object_relationships: [],
    },
    {
      object_relationships: [
        { name: 'author_m', using: { manual_configuration: { column_mapping: { title: 'name', author_id: 'id' }, remote_table: 'author' } } },
        { name: 'author', using: { foreign_key_constraint_on: 'author_id' } },
      ],
      table: { name: 'article' },
    },
    { object_relationships: [{ comment: 'who is billed', using: { foreign_key_constraint_on: 'author_id' }, name: 'author' }], table: { name: 'invoice', schema: 'billing' } },
  ],
  version: 2,
};

describe('export_metadata (§4.8.1, §6.3)', () => {
  it('answers the empty document with the resource version header', async () => {
    const r = await e.query(EXPORT);
    expect(r.status).toBe(200);
    expect(r.text).toBe('{"version":2,"tables":[]}');
    expect(r.headers.get('x-engine-resource-version')).toBe('1');
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  it('is byte-identical for the same metadata whatever the order of creation', async () => {
    await e.sql(SCHEMA);
    const ops = [
      { type: 'track_table', args: 'author' },
      { type: 'track_table', args: { table: { schema: 'billing', name: 'invoice' } } },
      { type: 'track_table', args: { schema: 'public', name: 'article' } },
      { type: 'create_object_relationship', args: { table: { schema: 'billing', name: 'invoice' }, name: 'author', using: { foreign_key_constraint_on: 'author_id' }, comment: 'who is billed' } },
      { type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
      { type: 'create_object_relationship', args: { table: 'article', name: 'author_m', using: { manual_configuration: { remote_table: 'author', column_mapping: { title: 'name', author_id: 'id' } } } } },
      { type: 'create_array_relationship', args: { table: 'author', name: 'invoices', using: { foreign_key_constraint_on: { table: { schema: 'billing', name: 'invoice' }, column: 'author_id' } } } },
      { type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } },
      { type: 'track_function', args: 'search_articles' },
      { type: 'track_function', args: { function: { schema: 'billing', name: 'my_invoices' }, configuration: { session_argument: 'sess' } } },
    ];
    for (const op of ops) await e.ok(op);
    const first = await exported(e);
    expect(first.text).toBe(CANONICAL_TEXT);
    expect(first.version).toBe(String(1 + ops.length));

    await e.reset();
    await e.sql(SCHEMA);
    // Tables first (in reverse), then the rest in reverse: relationships and functions in another order.
    const tracks = ops.slice(0, 3).reverse();
    for (const op of [...tracks, ...ops.slice(3).reverse()]) await e.ok(op);
    expect((await exported(e)).text).toBe(CANONICAL_TEXT);
  });
});

describe('export_metadata ordering and bytes (§6.3)', () => {
  it('sorts by code point and does not escape non-ASCII characters', async () => {
    await e.sql('create table "alpha" (id int); create table "Zed" (id int); create table "Éclair" (id int); create table "b" (id int)');
    for (const t of ['Éclair', 'alpha', 'b', 'Zed']) await e.ok({ type: 'track_table', args: t });
    const r = await e.query(EXPORT);
    expect(r.text).toBe('{"version":2,"tables":[{"table":{"schema":"public","name":"Zed"}},{"table":{"schema":"public","name":"alpha"}},'
      + '{"table":{"schema":"public","name":"b"}},{"table":{"schema":"public","name":"Éclair"}}]}');
  });
});

describe('replace_metadata (§4.8.2)', () => {
  it('first form: the document itself; export reproduces the canonical bytes', async () => {
    await e.sql(SCHEMA);
    const r = await e.query(replace(CANONICAL));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ message: 'success' });
    expect(r.headers.get('x-engine-resource-version')).toBe('2');
    expect(await exported(e)).toEqual({ text: CANONICAL_TEXT, version: '2' });
    // export → replace → export reproduces the same bytes (§6.3).
    await e.ok(replace(JSON.parse(CANONICAL_TEXT)));
    expect(await exported(e)).toEqual({ text: CANONICAL_TEXT, version: '3' });
  });

  it('stores any equivalent input in the canonical form', async () => {
    await e.sql(SCHEMA);
    await e.ok(replace(SHUFFLED));
    expect((await exported(e)).text).toBe(CANONICAL_TEXT);
  });

  it('second form: {metadata, resource_version, allow_inconsistent_metadata}', async () => {
    await e.sql(SCHEMA);
    const r = await e.query(replace({ metadata: CANONICAL, resource_version: 1 }));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ message: 'success' });
    expect(r.headers.get('x-engine-resource-version')).toBe('2');
    expect(await exported(e)).toEqual({ text: CANONICAL_TEXT, version: '2' });
    // Without resource_version there is no version check; other keys of args are ignored.
    await e.ok(replace({ metadata: { version: 2, tables: [{ table: 'author' }] }, allow_inconsistent_metadata: false, tables: 'ignored', foo: 1 }));
    expect(await exported(e)).toEqual({ text: '{"version":2,"tables":[{"table":{"schema":"public","name":"author"}}]}', version: '3' });
  });

  it('replaces the whole metadata', async () => {
    await e.sql(SCHEMA);
    await e.ok(replace(CANONICAL));
    await e.ok(replace({ version: 2, tables: [{ table: 'article' }] }));
    expect((await exported(e)).text).toBe('{"version":2,"tables":[{"table":{"schema":"public","name":"article"}}]}');
    await e.ok(replace({ version: 2 }));
    expect(await exported(e)).toEqual({ text: '{"version":2,"tables":[]}', version: '4' });
  });

  it('409 conflict on a stale resource_version, nothing changes (row 78)', async () => {
    await e.sql(SCHEMA);
    await e.ok({ type: 'track_table', args: 'author' });
    const conflict = (requested: number) => ({
      path: '$.args.resource_version', error: 'resource version mismatch', code: 'conflict', internal: { requested, current: 2 },
    });
    await expectErrorKeys(e, replace({ metadata: CANONICAL, resource_version: 1 }), 409, conflict(1));
    await expectErrorKeys(e, replace({ metadata: CANONICAL, resource_version: 3 }), 409, conflict(3));
    await expectErrorKeys(e, replace({ metadata: CANONICAL, resource_version: 1, allow_inconsistent_metadata: true }), 409, conflict(1));
    await e.ok(replace({ metadata: CANONICAL, resource_version: 2 }));
    expect((await exported(e)).version).toBe('3');
  });

  it('checks the resource_version (step 2) before duplicates (step 3)', async () => {
    const dup = { version: 2, tables: [{ table: 'author' }, { table: 'author' }] };
    await expectErrorKeys(e, replace({ metadata: dup, resource_version: 7 }), 409, {
      path: '$.args.resource_version', error: 'resource version mismatch', code: 'conflict', internal: { requested: 7, current: 1 },
    });
  });

  it('checks parsing (step 1) before the resource_version (step 2)', async () => {
    await expectErrorKeys(e, replace({ metadata: { version: 2, tables: [], foo: 1 }, resource_version: 7 }), 400, {
      path: '$.args.metadata', error: 'unexpected keys in metadata: "foo"', code: 'parse-failed',
    });
  });

  it('accepts version-1 documents and stores them in version-2 form (§6.2)', async () => {
    await e.sql(SCHEMA);
    const emptyLists = {
      insert_permissions: [], select_permissions: [], update_permissions: [], delete_permissions: [], event_triggers: [],
      computed_fields: [], remote_relationships: [], is_enum: false, configuration: {},
    };
    const v1 = {
      tables: [
        { table: 'author', object_relationships: [], array_relationships: [{ name: 'articles', comment: null, using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } }], ...emptyLists },
        { table: 'article', object_relationships: [{ name: 'author', using: { foreign_key_constraint_on: 'author_id' } }], array_relationships: [], ...emptyLists },
      ],
      functions: ['search_articles'],
      remote_schemas: [], query_collections: [], allowlist: [], cron_triggers: [], actions: [], custom_types: {},
    };
    await e.ok(replace(v1));
    expect((await exported(e)).text).toBe(JSON.stringify({
      version: 2,
      tables: [
        { table: qt('article'), object_relationships: [{ name: 'author', using: { foreign_key_constraint_on: 'author_id' } }] },
        { table: qt('author'), array_relationships: [{ name: 'articles', using: { foreign_key_constraint_on: { table: qt('article'), column: 'author_id' } } }] },
      ],
      functions: [{ function: qt('search_articles') }],
    }));
    // The second form too, and a document with only empty lists.
    await e.ok(replace({ metadata: { tables: [], functions: [], remote_schemas: [] }, resource_version: 2 }));
    expect(await exported(e)).toEqual({ text: '{"version":2,"tables":[]}', version: '3' });
  });
});

describe('replace_metadata rebuild (§4.8.2 step 5, row 23)', () => {
  const BAD = {
    version: 2,
    tables: [
      { table: 'nope' },
      { table: 'author', array_relationships: [{ name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } }] },
      { table: 'article', object_relationships: [{ name: 'title', using: { foreign_key_constraint_on: 'author_id' } }] },
    ],
  };
  const RECORDS = [
    {
      definition: { table: qt('article'), name: 'title', using: { foreign_key_constraint_on: 'author_id' } },
      reason: 'in table "article": in relationship "title": "title" conflicts with an existing column of table "article"', type: 'object_relation',
    },
    {
      definition: { table: qt('author'), name: 'articles', using: { foreign_key_constraint_on: { table: qt('article'), column: 'author_id' } } },
      reason: 'in table "author": in relationship "articles": no foreign constraint exists on the given column', type: 'array_relation',
    },
    { definition: qt('nope'), reason: 'no such table/view exists in postgres : "nope"', type: 'table' },
  ];

  it('strict: any inconsistency fails with the records, nothing changes', async () => {
    await e.sql('create table author (id serial primary key); create table article (id serial primary key, author_id int, title text)');
    await e.ok({ type: 'track_table', args: 'author' });
    await expectErrorKeys(e, replace(BAD), 400, inconsistentError('cannot continue due to inconsistent metadata', RECORDS));
    await expectErrorKeys(e, replace({ version: 2, tables: [{ table: 'nope' }] }), 400,
      inconsistentError('cannot continue due to inconsistent metadata', [RECORDS[2] as { reason: string }]));
  });

  it('allow_inconsistent_metadata: true stores the document and answers the records', async () => {
    await e.sql('create table author (id serial primary key); create table article (id serial primary key, author_id int, title text)');
    const r = await e.query(replace({ metadata: BAD, allow_inconsistent_metadata: true }));
    expect(r.status).toBe(200);
    expect(r.text).toBe(JSON.stringify({ is_consistent: false, inconsistent_objects: RECORDS }));
    expect(r.headers.get('x-engine-resource-version')).toBe('2');
    expect(await exported(e)).toEqual({
      text: JSON.stringify({
        version: 2,
        tables: [
          { table: qt('article'), object_relationships: [{ name: 'title', using: { foreign_key_constraint_on: 'author_id' } }] },
          { table: qt('author'), array_relationships: [{ name: 'articles', using: { foreign_key_constraint_on: { table: qt('article'), column: 'author_id' } } }] },
          { table: qt('nope') },
        ],
      }),
      version: '2',
    });
    expect(await e.ok({ type: 'get_inconsistent_metadata', args: {} })).toEqual({ is_consistent: false, inconsistent_objects: RECORDS });
  });

  it('allow_inconsistent_metadata: true answers is_consistent true when all is fine', async () => {
    await e.sql(SCHEMA);
    const r = await e.query(replace({ metadata: CANONICAL, allow_inconsistent_metadata: true, resource_version: 1 }));
    expect(r.status).toBe(200);
    expect(r.text).toBe('{"is_consistent":true,"inconsistent_objects":[]}');
    expect(await exported(e)).toEqual({ text: CANONICAL_TEXT, version: '2' });
    expect(await e.ok({ type: 'get_inconsistent_metadata', args: {} })).toEqual({ is_consistent: true, inconsistent_objects: [] });
  });

  it('a replace that fixes earlier inconsistencies succeeds strictly', async () => {
    await e.sql('create table author (id serial primary key); create table article (id serial primary key, author_id int, title text)');
    await e.ok(replace({ metadata: BAD, allow_inconsistent_metadata: true }));
    await e.ok(replace({ version: 2, tables: [{ table: 'author' }] }));
    expect(await e.ok({ type: 'get_inconsistent_metadata', args: {} })).toEqual({ is_consistent: true, inconsistent_objects: [] });
  });
});
