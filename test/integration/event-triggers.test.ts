import { describe, expect, it } from 'vitest';
import { useTestEngine } from '../helpers/engine.js';

// create_event_trigger / delete_event_trigger: metadata, export shape (§6), the database triggers and
// functions they install (§4.7.1–4.7.2), every error of §7 rows 9, 12, 13, 16, 17, 24, 61–69, and
// replace_metadata installing the same triggers as the individual calls (§4.8.2).

const e = useTestEngine({ setup: async () => {
  await e.sql(`create table author (id serial primary key, name text, age int);
    create table article (id serial primary key, title text, body text);
    create schema billing; create table billing.invoice (id int primary key, total int);
    create table other (id int)`);
  await e.ok({ type: 'bulk', args: [{ type: 'track_table', args: 'author' }, { type: 'track_table', args: 'article' },
    { type: 'track_table', args: { schema: 'billing', name: 'invoice' } }] });
} });

const URL_ = 'http://localhost:1/hook';
const RETRY = { num_retries: 0, interval_sec: 10, timeout_sec: 60 };
const create = (args: Record<string, unknown>) => ({ type: 'create_event_trigger', args: { table: 'author', webhook: URL_, ...args } });

/** Non-internal database triggers, as "<trigger> on <schema>.<table>", sorted. */
async function dbTriggers(): Promise<string[]> {
  const rows = await e.db.query<{ s: string }>(`SELECT t.tgname || ' on ' || n.nspname || '.' || c.relname AS s FROM pg_trigger t
    JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE NOT t.tgisinternal AND n.nspname <> 'engine_catalog' ORDER BY 1`);
  return rows.map((r) => r.s);
}
async function dbFunctions(): Promise<string[]> {
  const rows = await e.db.query<{ s: string }>(`SELECT p.proname AS s FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE n.nspname = 'engine_catalog' AND p.proname LIKE 'notify%' ORDER BY 1`);
  return rows.map((r) => r.s);
}
/** Full definitions (trigger DDL incl. WHEN, function bodies): what replace_metadata must reproduce. */
async function dbDefinitions(): Promise<string[]> {
  const t = await e.db.query<{ s: string }>("SELECT pg_get_triggerdef(oid) AS s FROM pg_trigger WHERE NOT tgisinternal AND tgrelid NOT IN (SELECT oid FROM pg_class WHERE relnamespace = 'engine_catalog'::regnamespace) ORDER BY tgname");
  const f = await e.db.query<{ s: string }>(`SELECT p.proname || ':' || p.prosrc AS s FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE n.nspname = 'engine_catalog' AND p.proname LIKE 'notify%' ORDER BY 1`);
  return [...t.map((r) => r.s), ...f.map((r) => r.s)];
}
async function tableEntry(name: string): Promise<unknown> {
  const md = await e.ok({ type: 'export_metadata', args: {} });
  return (md.tables as { table: { name: string } }[]).find((t) => t.table.name === name);
}
const version = async () => (await e.state()).version;

describe('create_event_trigger', () => {
  it('installs one database trigger and function per given operation and exports the defaults', async () => {
    const before = await e.state();
    const r = await e.query(create({ name: 'e1', insert: { columns: '*' } }));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ message: 'success' });
    expect(r.headers.get('x-engine-resource-version')).toBe(String(Number(before.version) + 1));
    expect(JSON.stringify(await tableEntry('author'))).toBe(JSON.stringify({ table: { schema: 'public', name: 'author' },
      event_triggers: [{ name: 'e1', definition: { enable_manual: true, insert: { columns: '*' } }, retry_conf: RETRY, webhook: URL_ }] }));
    expect(await dbTriggers()).toEqual(['notify_engine_e1_INSERT on public.author']);
    expect(await dbFunctions()).toEqual(['notify_engine_e1_INSERT']);
    expect((await e.state()).rows).toBe('0/0/1');

    await e.ok(create({ name: 'e2', table: { schema: 'billing', name: 'invoice' }, update: { columns: ['total'] }, delete: { columns: '*' } }));
    expect(await dbTriggers()).toEqual(['notify_engine_e1_INSERT on public.author', 'notify_engine_e2_DELETE on billing.invoice',
      'notify_engine_e2_UPDATE on billing.invoice']);
    expect(await dbFunctions()).toEqual(['notify_engine_e1_INSERT', 'notify_engine_e2_DELETE', 'notify_engine_e2_UPDATE']);
  });

  it('keeps templates, webhook_from_env, headers, per-key retry_conf defaults, payloads and enable_manual false', async () => {
    const long = 'L'.repeat(42);
    await e.ok({ type: 'bulk', args: [
      create({ name: 'zeta', webhook: '{{ EVENTS_URL }}/author', insert: { columns: '*', payload: '*' }, retry_conf: { num_retries: 3 },
        headers: [{ name: 'x-b', value: 'v' }, { name: 'x-a', value_from_env: 'EVENTS_TOKEN' }] }),
      create({ name: 'alpha', webhook: undefined, webhook_from_env: 'AUTHOR_HOOK', enable_manual: false,
        update: { columns: ['name', 'age'], payload: ['id', 'name'] }, retry_conf: { interval_sec: 1, timeout_sec: 7 } }),
      create({ name: long, table: 'article', webhook: 'https://example.com/x?a=1', delete: { columns: ['id'] }, enable_manual: true,
        retry_conf: { num_retries: 0, interval_sec: 1, timeout_sec: 1 }, headers: [] }),
      create({ name: 'manual-only_1', table: 'article', retry_conf: null, headers: null }),
    ] });
    const md = await e.query({ type: 'export_metadata', args: {} });
    expect(md.text).toBe(JSON.stringify({ version: 2, tables: [
      { table: { schema: 'billing', name: 'invoice' } },
      { table: { schema: 'public', name: 'article' }, event_triggers: [
        { name: long, definition: { enable_manual: true, delete: { columns: ['id'] } }, retry_conf: { num_retries: 0, interval_sec: 1, timeout_sec: 1 }, webhook: 'https://example.com/x?a=1' },
        { name: 'manual-only_1', definition: { enable_manual: true }, retry_conf: RETRY, webhook: URL_ }] },
      { table: { schema: 'public', name: 'author' }, event_triggers: [
        { name: 'alpha', definition: { enable_manual: false, update: { columns: ['name', 'age'], payload: ['id', 'name'] } },
          retry_conf: { num_retries: 0, interval_sec: 1, timeout_sec: 7 }, webhook_from_env: 'AUTHOR_HOOK' },
        { name: 'zeta', definition: { enable_manual: true, insert: { columns: '*', payload: '*' } }, retry_conf: { num_retries: 3, interval_sec: 10, timeout_sec: 60 },
          webhook: '{{ EVENTS_URL }}/author', headers: [{ name: 'x-b', value: 'v' }, { name: 'x-a', value_from_env: 'EVENTS_TOKEN' }] }] },
    ] }));
    expect(await dbTriggers()).toEqual([`notify_engine_${long}_DELETE on public.article`, 'notify_engine_alpha_UPDATE on public.author',
      'notify_engine_zeta_INSERT on public.author']);
  });

  it('replace: true redefines the trigger on the same table and recreates its database triggers', async () => {
    await e.ok(create({ name: 'e1', insert: { columns: '*' }, update: { columns: ['name'] } }));
    const v = Number(await version());
    const r = await e.query(create({ name: 'e1', replace: true, webhook_from_env: 'HOOK', webhook: undefined, delete: { columns: '*' },
      table: { name: 'author' }, retry_conf: { num_retries: 5 } }));
    expect(r.status).toBe(200);
    expect(r.headers.get('x-engine-resource-version')).toBe(String(v + 1));
    expect(await tableEntry('author')).toEqual({ table: { schema: 'public', name: 'author' }, event_triggers: [{ name: 'e1',
      definition: { enable_manual: true, delete: { columns: '*' } }, retry_conf: { num_retries: 5, interval_sec: 10, timeout_sec: 60 }, webhook_from_env: 'HOOK' }] });
    expect(await dbTriggers()).toEqual(['notify_engine_e1_DELETE on public.author']);
    expect(await dbFunctions()).toEqual(['notify_engine_e1_DELETE']);
  });

  it('delete_event_trigger removes the trigger, its database triggers and its functions', async () => {
    await e.ok(create({ name: 'e1', insert: { columns: '*' }, update: { columns: '*' }, delete: { columns: '*' } }));
    await e.ok(create({ name: 'e2', table: 'article', insert: { columns: '*' } }));
    const v = Number(await version());
    const r = await e.query({ type: 'delete_event_trigger', args: { name: 'e1' } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ message: 'success' });
    expect(r.headers.get('x-engine-resource-version')).toBe(String(v + 1));
    expect(await tableEntry('author')).toEqual({ table: { schema: 'public', name: 'author' } });
    expect(await dbTriggers()).toEqual(['notify_engine_e2_INSERT on public.article']);
    expect(await dbFunctions()).toEqual(['notify_engine_e2_INSERT']);
  });

  it('a dropped listed column is a dependency (§3.5); with cascade the trigger goes, with its database triggers and events', async () => {
    await e.ok(create({ name: 'e1', insert: { columns: '*', payload: ['id', 'age'] } }));
    await e.ok(create({ name: 'e2', update: { columns: ['name'] } }));
    await e.sql("insert into author (name, age) values ('a', 1)");
    const before = await e.state();
    const r = await e.query({ type: 'run_sql', args: { sql: 'alter table author drop column age' } });
    expect([r.status, r.text]).toEqual([400, JSON.stringify({ path: '$.args', error: 'cannot drop due to the following dependent objects : event trigger author.e1', code: 'dependency-error' })]);
    expect(await e.state()).toEqual(before);
    await e.ok({ type: 'run_sql', args: { sql: 'alter table author drop column age', cascade: true } });
    expect(await tableEntry('author')).toEqual({ table: { schema: 'public', name: 'author' }, event_triggers: [{ name: 'e2',
      definition: { enable_manual: true, update: { columns: ['name'] } }, retry_conf: RETRY, webhook: URL_ }] });
    expect(await dbTriggers()).toEqual(['notify_engine_e2_UPDATE on public.author']);
    expect(await dbFunctions()).toEqual(['notify_engine_e2_UPDATE']);
    expect(await e.db.query('SELECT trigger_name, archived FROM engine_catalog.event_log')).toEqual([{ trigger_name: 'e1', archived: true }]);
  });

  it('a failed bulk keeps the deleted trigger and drops nothing', async () => {
    await e.ok(create({ name: 'e1', insert: { columns: '*' } }));
    const before = await e.state();
    const r = await e.query({ type: 'bulk', args: [{ type: 'delete_event_trigger', args: { name: 'e1' } }, { type: 'track_table', args: 'nope' }] });
    expect(r.status).toBe(400);
    expect(await e.state()).toEqual(before);
    expect(await dbTriggers()).toEqual(['notify_engine_e1_INSERT on public.author']);
    expect(await dbFunctions()).toEqual(['notify_engine_e1_INSERT']);
  });
});

interface Case { name: string; body: unknown; path: string; code: string; error: string; internal?: unknown }
const bad = (name: string, args: Record<string, unknown>, path: string, code: string, error: string, internal?: unknown): Case =>
  ({ name, body: create({ name: 'e2', insert: { columns: '*' }, ...args }), path, code, error, internal });
const reserved = (key: string, n: string) => `env variables starting with "ENGINE_GRAPHQL_" are not allowed in ${key}: ${n}`;
const NAME_CHARS = 'event trigger name must start with a letter and contain only letters, digits, underscores and hyphens';
const colMissing = (t: string, c: string, def: Record<string, unknown>, table = { schema: 'public', name: t }) => {
  const reason = `in table "${t}": in event trigger "e2": column "${c}" does not exist in table "${t}"`;
  return [reason, [{ definition: { table, name: 'e2', definition: def, retry_conf: RETRY, webhook: URL_ }, reason, type: 'event_trigger' }]] as const;
};
const c69a = colMissing('author', 'nope', { enable_manual: true, insert: { columns: '*' }, update: { columns: ['name', 'nope'] } });
const c69b = colMissing('billing.invoice', 'name', { enable_manual: true, insert: { columns: '*', payload: ['id', 'name'] } }, { schema: 'billing', name: 'invoice' });

const CASES: Case[] = [
  bad('61 space', { name: 'bad name' }, '$.args.name', 'parse-failed', NAME_CHARS),
  bad('61 leading digit', { name: '1abc' }, '$.args.name', 'parse-failed', NAME_CHARS),
  bad('61 leading underscore', { name: '_abc' }, '$.args.name', 'parse-failed', NAME_CHARS),
  bad('61 dot, before the length check', { name: `a.${'b'.repeat(50)}` }, '$.args.name', 'parse-failed', NAME_CHARS),
  bad('61 empty', { name: '' }, '$.args.name', 'parse-failed', NAME_CHARS),
  bad('62 43 characters', { name: 'a'.repeat(43) }, '$.args.name', 'parse-failed', 'event trigger name can be at most 42 characters'),
  bad('61 before webhook checks', { name: 'a b', webhook: undefined }, '$.args.name', 'parse-failed', NAME_CHARS),
  bad('12 both webhooks', { webhook_from_env: 'HOOK' }, '$.args', 'parse-failed', 'only one of "webhook" or "webhook_from_env" may be given'),
  bad('13 no webhook', { webhook: undefined }, '$.args', 'parse-failed', 'one of "webhook" or "webhook_from_env" is required'),
  bad('13 webhook null', { webhook: null }, '$.args', 'parse-failed', 'one of "webhook" or "webhook_from_env" is required'),
  bad('17 ftp URL', { webhook: 'ftp://example.com/x' }, '$.args.webhook', 'parse-failed', 'webhook must be an http or https URL'),
  bad('17 relative URL', { webhook: '/hook' }, '$.args.webhook', 'parse-failed', 'webhook must be an http or https URL'),
  bad('16 webhook template', { webhook: '{{ENGINE_GRAPHQL_ADMIN_SECRET}}/x' }, '$.args', 'parse-failed', reserved('webhook', 'ENGINE_GRAPHQL_ADMIN_SECRET')),
  bad('16 webhook template, case-insensitive', { webhook: 'http://h/{{ Engine_GraphQL_x }}' }, '$.args', 'parse-failed', reserved('webhook', 'Engine_GraphQL_x')),
  bad('16 webhook_from_env', { webhook: undefined, webhook_from_env: 'ENGINE_GRAPHQL_DATABASE_URL' }, '$.args', 'parse-failed', reserved('webhook_from_env', 'ENGINE_GRAPHQL_DATABASE_URL')),
  bad('16 header value_from_env', { headers: [{ name: 'x', value_from_env: 'engine_graphql_admin_secret' }] }, '$.args.headers[0]', 'parse-failed', reserved('value_from_env', 'engine_graphql_admin_secret')),
  bad('12 header value and value_from_env', { headers: [{ name: 'a', value: 'b' }, { name: 'x', value: 'v', value_from_env: 'V' }] }, '$.args.headers[1]', 'parse-failed', 'only one of "value" or "value_from_env" may be given'),
  bad('13 header without value', { headers: [{ name: 'x' }] }, '$.args.headers[0]', 'parse-failed', 'one of "value" or "value_from_env" is required'),
  bad('63 insert columns', { insert: { columns: [] } }, '$.args.insert.columns', 'parse-failed', 'found empty column specification'),
  bad('63 update columns', { update: { columns: [], payload: [] } }, '$.args.update.columns', 'parse-failed', 'found empty column specification'),
  bad('64 delete payload', { delete: { columns: '*', payload: [] } }, '$.args.delete.payload', 'parse-failed', 'found empty payload specification'),
  bad('14 columns not a list', { update: { columns: 'name' } }, '$.args.update.columns', 'parse-failed', 'expected "*" or an array of column names, encountered "name"'),
  bad('65 nothing to listen to', { insert: undefined, enable_manual: false }, '$.args', 'parse-failed', 'at least one of insert/update/delete/enable_manual spec must be provided'),
  bad('9 num_retries', { retry_conf: { num_retries: -1 } }, '$.args.retry_conf.num_retries', 'parse-failed', 'expected an integer >= 0, encountered -1'),
  bad('9 interval_sec', { retry_conf: { num_retries: 0, interval_sec: 0 } }, '$.args.retry_conf.interval_sec', 'parse-failed', 'expected an integer >= 1, encountered 0'),
  bad('9 timeout_sec', { retry_conf: { timeout_sec: 0 } }, '$.args.retry_conf.timeout_sec', 'parse-failed', 'expected an integer >= 1, encountered 0'),
  bad('9 timeout_sec fractional', { retry_conf: { timeout_sec: 1.5 } }, '$.args.retry_conf.timeout_sec', 'parse-failed', 'expected an integer >= 1, encountered 1.5'),
  bad('24 untracked table', { table: 'other' }, '$.args.table', 'not-exists', 'table "other" does not exist'),
  bad('24 before already-exists', { table: { schema: 'billing', name: 'nope' }, name: 'e1' }, '$.args.table', 'not-exists', 'table "billing.nope" does not exist'),
  bad('parse errors before the table check', { table: 'other', name: 'a b' }, '$.args.name', 'parse-failed', NAME_CHARS),
  bad('66 name taken', { name: 'e1' }, '$.args.name', 'already-exists', 'event trigger with name "e1" already exists'),
  bad('66 name taken on another table', { name: 'e1', table: 'article' }, '$.args.name', 'already-exists', 'event trigger with name "e1" already exists'),
  bad('67 replace missing', { name: 'e3', replace: true }, '$.args.name', 'not-exists', 'event trigger "e3" does not exist'),
  bad('68 replace onto another table', { name: 'e1', replace: true, table: 'article' }, '$.args.table', 'not-supported', 'cannot replace table or schema for trigger "e1"'),
  bad('69 update column', { update: { columns: ['name', 'nope'] } }, '$.args', 'constraint-violation', c69a[0], c69a[1]),
  bad('69 payload column', { table: { schema: 'billing', name: 'invoice' }, insert: { columns: '*', payload: ['id', 'name'] } }, '$.args', 'constraint-violation', c69b[0], c69b[1]),
  { name: '67 delete_event_trigger', body: { type: 'delete_event_trigger', args: { name: 'nope' } }, path: '$.args.name', code: 'not-exists', error: 'event trigger "nope" does not exist' },
  { name: 'bulk: a later sub-operation fails, the earlier trigger is not installed', path: '$.args[1].args.insert.columns', code: 'parse-failed',
    error: 'found empty column specification', body: { type: 'bulk', args: [create({ name: 'e3', update: { columns: '*' } }), create({ name: 'e4', insert: { columns: [] } })] } },
  { name: 'bulk: 69 after a created trigger', path: '$.args[1].args', code: 'constraint-violation', error: c69a[0], internal: c69a[1],
    body: { type: 'bulk', args: [create({ name: 'e3', delete: { columns: '*' } }), create({ name: 'e2', insert: { columns: '*' }, update: { columns: ['name', 'nope'] } })] } },
  { name: 'name missing', body: { type: 'create_event_trigger', args: { table: 'author', webhook: URL_ } }, path: '$.args', code: 'parse-failed', error: 'the key "name" was not present' },
];

describe('create_event_trigger and delete_event_trigger errors change nothing', () => {
  it.each(CASES)('$name', async ({ body, path, code, error, internal }) => {
    await e.ok(create({ name: 'e1', insert: { columns: '*' } }));
    await e.sql("insert into author (name) values ('a')");
    const before = await e.state();
    const fns = await dbFunctions();
    expect(before.rows).toBe('1/0/1');
    const r = await e.query(body);
    expect(r.status).toBe(400);
    const expected = internal === undefined ? { path, error, code } : { path, error, code, internal };
    expect(r.body).toEqual(expected);
    expect(Object.keys(r.body as object)).toEqual(Object.keys(expected));
    expect(await e.state()).toEqual(before);
    expect(await dbTriggers()).toEqual(['notify_engine_e1_INSERT on public.author']);
    expect(await dbFunctions()).toEqual(fns);
  });
});

// The canonical export of the triggers created one by one below (§6.1 key order, §6.3 sorting).
const CANONICAL = JSON.stringify({ version: 2, tables: [
  { table: { schema: 'billing', name: 'invoice' }, event_triggers: [{ name: 'inv', definition: { enable_manual: false, update: { columns: ['total'], payload: ['id', 'total'] } },
    retry_conf: { num_retries: 2, interval_sec: 5, timeout_sec: 60 }, webhook_from_env: 'INV_HOOK' }] },
  { table: { schema: 'public', name: 'article' } },
  { table: { schema: 'public', name: 'author' }, event_triggers: [
    { name: 'a_all', definition: { enable_manual: true, insert: { columns: '*' }, update: { columns: '*' }, delete: { columns: '*', payload: ['id'] } },
      retry_conf: RETRY, webhook: '{{BASE}}/a', headers: [{ name: 'x-k', value: '1' }] },
    { name: 'a_name', definition: { enable_manual: true, update: { columns: ['name'], payload: ['id', 'name'] } }, retry_conf: RETRY, webhook: URL_ }] },
] });

describe('replace_metadata with event triggers', () => {
  it('installs the same database triggers and state as the individual calls; export is byte-identical', async () => {
    await e.ok(create({ name: 'a_name', update: { columns: ['name'], payload: ['id', 'name'] } }));
    await e.ok(create({ name: 'a_all', webhook: '{{BASE}}/a', headers: [{ name: 'x-k', value: '1' }], insert: { columns: '*' },
      update: { columns: '*' }, delete: { columns: '*', payload: ['id'] } }));
    await e.ok(create({ name: 'inv', table: { schema: 'billing', name: 'invoice' }, webhook: undefined, webhook_from_env: 'INV_HOOK', enable_manual: false,
      update: { columns: ['total'], payload: ['id', 'total'] }, retry_conf: { num_retries: 2, interval_sec: 5 } }));
    expect((await e.query({ type: 'export_metadata', args: {} })).text).toBe(CANONICAL);
    const individual = { triggers: await dbTriggers(), fns: await dbFunctions(), defs: await dbDefinitions() };
    expect(individual.triggers).toEqual(['notify_engine_a_all_DELETE on public.author', 'notify_engine_a_all_INSERT on public.author',
      'notify_engine_a_all_UPDATE on public.author', 'notify_engine_a_name_UPDATE on public.author', 'notify_engine_inv_UPDATE on billing.invoice']);

    await e.ok({ type: 'clear_metadata', args: {} });
    expect(await dbTriggers()).toEqual([]);
    expect(await dbFunctions()).toEqual([]);
    const v = Number(await version());
    const r = await e.query({ type: 'replace_metadata', args: JSON.parse(CANONICAL) });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ message: 'success' });
    expect(r.headers.get('x-engine-resource-version')).toBe(String(v + 1));
    expect((await e.query({ type: 'export_metadata', args: {} })).text).toBe(CANONICAL);
    expect({ triggers: await dbTriggers(), fns: await dbFunctions(), defs: await dbDefinitions() }).toEqual(individual);

    // Replacing with a document without them drops them all.
    await e.ok({ type: 'replace_metadata', args: { version: 2, tables: [{ table: 'author' }] } });
    expect(await dbTriggers()).toEqual([]);
    expect(await dbFunctions()).toEqual([]);
  });

  it('a replace_metadata that fails installs nothing', async () => {
    const doc = JSON.parse(CANONICAL);
    doc.tables[2].event_triggers[1].definition.update.columns = ['nope'];
    const before = await e.state();
    const r = await e.query({ type: 'replace_metadata', args: doc });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('cannot continue due to inconsistent metadata: in table "author": in event trigger "a_name": column "nope" does not exist in table "author"');
    expect(r.body.code).toBe('constraint-violation');
    expect(await e.state()).toEqual(before);
    expect(await dbTriggers()).toEqual([]);
    expect(await dbFunctions()).toEqual([]);
  });
});
