import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { cli, engineExport, initProject, show, useTestEngine } from './cli-helpers.js';

// Issue 19 items 4, 5 and 6 through the real bin against a real engine (PGlite, or PostgreSQL with
// ENGINE_TEST_DATABASE_URL): metadata track, migrate create --from-server, deploy, migrate squash/goto/delete, seeds.

const e = useTestEngine();
// Each test runs the CLI ten to twenty times; on a loaded machine that takes more than the default minute.
const SLOW = 240_000;
let dir: string;
const run = (...args: string[]) => cli(args, { cwd: dir });

beforeEach(async () => {
  await e.sql('DROP SCHEMA IF EXISTS public CASCADE; CREATE SCHEMA public; DELETE FROM engine_catalog.schema_migrations');
  await e.ok({ type: 'clear_metadata', args: {} });
  dir = (await initProject(e.url)).dir;
});

/** The schema as pg_dump prints it, through the engine's own endpoint: the "catalog" compared below. */
async function catalog(): Promise<string> {
  const r = await fetch(`${e.url}/v1alpha1/pg_dump`, { method: 'POST', body: JSON.stringify({ opts: ['--schema-only', '--schema=public'], clean_output: true }) });
  expect(r.status).toBe(200);
  return r.text();
}

/** Twenty tables: self-references, a composite key, several foreign keys to one table, a view and a function. */
const TWENTY = `
create table users (id serial primary key, name text, manager_id int references users(id));
create table team (id serial primary key, name text);
create table membership (team_id int references team(id), user_id int references users(id), primary key (team_id, user_id));
create table message (id serial primary key, sender_id int references users(id), recipient_id int references users(id), body text);
create table category (id serial primary key, parent_id int references category(id), name text);
create table product (id serial primary key, category_id int references category(id), name text);
create table orders (id serial primary key, buyer_id int references users(id), seller_id int references users(id), reviewer_id int references users(id));
create table order_line (order_id int references orders(id), line int, product_id int references product(id), primary key (order_id, line));
create table shipment (id serial primary key, order_id int, line int, foreign key (order_id, line) references order_line(order_id, line));
create table tag (id serial primary key, name text);
create table product_tag (product_id int references product(id), tag_id int references tag(id), primary key (product_id, tag_id));
create table review (id serial primary key, product_id int references product(id), author int references users(id), stars int);
create table address (id serial primary key, user_id int references users(id), city text);
create table warehouse (id serial primary key, address_id int references address(id));
create table stock (warehouse_id int references warehouse(id), product_id int references product(id), qty int, primary key (warehouse_id, product_id));
create table comment (id serial primary key, review_id int references review(id), reply_to_id int references comment(id));
create table invoice (id serial primary key, order_id int references orders(id));
create table payment (id serial primary key, invoice_id int references invoice(id));
create table coupon (code text primary key);
create table redemption (coupon text references coupon(code), order_id int references orders(id), primary key (coupon, order_id));
create view user_names as select id, name from users;
create function search_products(q text) returns setof product as $$ select * from product where name ilike q $$ language sql stable;
`;

type Rel = { name: string; using: unknown };
const rels = (doc: { tables: { table: { name: string }; object_relationships?: Rel[]; array_relationships?: Rel[] }[] }, table: string, kind: 'object' | 'array') =>
  (doc.tables.find((t) => t.table.name === table)?.[`${kind}_relationships`] ?? []).map((r) => r.name).sort();

describe('metadata track', () => {
  it('track --all: 20 tables, a view, a function and the relationships of their foreign keys, named and de-duplicated', async () => {
    await e.sql(TWENTY);
    const r = await run('metadata', 'track', '--all');
    expect(r.code, show(r)).toBe(0);
    const doc = JSON.parse((await engineExport(e)).text);
    expect(doc.tables).toHaveLength(21);
    expect(doc.functions).toEqual([{ function: { schema: 'public', name: 'search_products' } }]);
    // Self-reference: the column without _id one way, the table's name the other way.
    expect(rels(doc, 'users', 'object')).toEqual(['manager']);
    expect(rels(doc, 'category', 'object')).toEqual(['parent']);
    expect(rels(doc, 'category', 'array')).toEqual(['category', 'product']);
    // Several keys to one table: every array relationship among them gets _by_<column>, and is reported.
    expect(rels(doc, 'message', 'object')).toEqual(['recipient', 'sender']);
    expect(rels(doc, 'users', 'array')).toEqual(['address', 'membership', 'message_by_recipient_id', 'message_by_sender_id',
      'orders_by_buyer_id', 'orders_by_reviewer_id', 'orders_by_seller_id', 'review', 'users']);
    expect(r.stderr).toContain('warning: array relationship public.users.message_by_sender_id (foreign key message_sender_id_fkey): "message" is already used');
    // A key column not ending in _id (review.author): the referenced table's name, made singular.
    expect(rels(doc, 'review', 'object')).toEqual(['product', 'user']);
    // Composite keys: manual configuration with the whole column mapping.
    const shipment = doc.tables.find((t: { table: { name: string } }) => t.table.name === 'shipment');
    expect(shipment.object_relationships).toEqual([{ name: 'order_line', using: { manual_configuration: {
      remote_table: { schema: 'public', name: 'order_line' }, column_mapping: { line: 'line', order_id: 'order_id' } } } }]);
    // The files hold what the engine has: no differences, and a second run has nothing to do.
    expect(readFileSync(join(dir, 'metadata/tables.yaml'), 'utf8')).toContain('name: message_by_sender_id');
    const diff = await run('metadata', 'diff', '--exit-code');
    expect(diff.code, show(diff)).toBe(0);
    const again = await run('metadata', 'track', '--all');
    expect(again.code, show(again)).toBe(0);
    expect(again.stderr).toContain('Nothing to track.');
    // The relationships work in GraphQL.
    const q = await fetch(`${e.url}/v1/graphql`, { method: 'POST', body: JSON.stringify({ query: '{ users { message_by_sender_id { recipient { name } } manager { name } } }' }) });
    expect(((await q.json()) as { errors?: unknown }).errors).toBeUndefined();
  }, SLOW);

  it('without --all or names it is a usage error naming the flag; unknown names fail and change nothing', async () => {
    await e.sql('create table t (id int primary key)');
    const before = await engineExport(e);
    const r = await run('metadata', 'track');
    expect(r.code).toBe(64);
    expect(r.stderr).toContain('error: missing required flag --all');
    const u = await run('metadata', 'track', 'nope');
    expect(u.code).toBe(1);
    expect(u.stderr).toContain('error: no table, view or function public.nope in the database');
    expect((await engineExport(e)).text).toBe(before.text);
    expect(readFileSync(join(dir, 'metadata/tables.yaml'), 'utf8')).not.toContain('name: t');
  }, SLOW);
});

describe('migrate create --from-server', () => {
  it('writes the schema as a migration; applied to an empty database it gives the same catalog', async () => {
    await e.sql(TWENTY);
    const before = await catalog();
    const r = await run('migrate', 'create', 'init', '--from-server');
    expect(r.code, show(r)).toBe(0);
    const version = r.stdout.trim();
    const up = readFileSync(join(dir, 'migrations', `${version}_init`, 'up.sql'), 'utf8');
    expect(up).toContain('CREATE TABLE public.redemption');
    expect(up).not.toMatch(/^SET |^--|^CREATE SCHEMA public;/m);
    const mark = await run('migrate', 'apply', '--skip-execution', '--version', version);
    expect(mark.code, show(mark)).toBe(0);
    expect((await run('migrate', 'status')).stdout).toMatch(new RegExp(`${version}\\s+init\\s+applied`));
    // A fresh database: nothing in public, no migration state.
    await e.sql('DROP SCHEMA public CASCADE; CREATE SCHEMA public; DELETE FROM engine_catalog.schema_migrations');
    const apply = await run('migrate', 'apply');
    expect(apply.code, show(apply)).toBe(0);
    expect(await catalog()).toBe(before);
  }, SLOW);
});

function migration(version: string, name: string, up: string, down: string): void {
  const d = join(dir, 'migrations', `${version}_${name}`);
  mkdirSync(d, { recursive: true });
  writeFileSync(join(d, 'up.sql'), up);
  writeFileSync(join(d, 'down.sql'), down);
}

const FOUR = () => {
  migration('1', 'a', 'create table a (id int primary key);', 'drop table a;');
  migration('2', 'b', 'create table b (id int primary key, a_id int references a(id));', 'drop table b;');
  migration('3', 'c', 'alter table b add column note text;', 'alter table b drop column note;');
  migration('4', 'd', 'create index b_note on b (note);', 'drop index b_note;');
};

describe('migrate squash, goto, delete', () => {
  it('squashing gives the same catalog as the originals, and refuses across applied and pending', async () => {
    FOUR();
    expect((await run('migrate', 'apply', '--up', 'all')).code).toBe(0);
    const original = await catalog();
    expect((await run('migrate', 'apply', '--goto', '2')).code).toBe(0);
    expect((await run('migrate', 'status')).stdout).toMatch(/2\s+b\s+applied\n3\s+c\s+pending/);
    const refused = await run('migrate', 'squash', '--from', '1', '--name', 'all');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('error: cannot squash across applied and pending migrations: 1 is applied, 3 is pending');
    expect(readdirSync(join(dir, 'migrations')).sort()).toEqual(['1_a', '2_b', '3_c', '4_d']);
    expect((await run('migrate', 'apply', '--down', 'all')).code).toBe(0);
    const s = await run('migrate', 'squash', '--from', '1', '--name', 'all');
    expect(s.code, show(s)).toBe(0);
    expect(readdirSync(join(dir, 'migrations'))).toEqual(['4_all']);
    expect((await run('migrate', 'apply')).code).toBe(0);
    expect(await catalog()).toBe(original);
    // down.sql runs the originals' down in reverse.
    expect((await run('migrate', 'apply', '--down', '1')).code).toBe(0);
    expect(await e.sql("select to_regclass('public.a') is null as gone")).toMatchObject({ result: [['gone'], ['t']] });
  }, SLOW);

  it('squashing an applied range replaces the state rows', async () => {
    FOUR();
    expect((await run('migrate', 'apply')).code).toBe(0);
    const s = await run('migrate', 'squash', '--from', '2', '--to', '3', '--name', 'bc');
    expect(s.code, show(s)).toBe(0);
    expect((await run('migrate', 'status')).stdout).toMatch(/1\s+a\s+applied\n3\s+bc\s+applied\n4\s+d\s+applied/);
  }, SLOW);

  it('delete needs confirmation when not interactive; with --yes it removes files and state, not the tables', async () => {
    FOUR();
    expect((await run('migrate', 'apply', '--up', '1')).code).toBe(0);
    const r = await run('migrate', 'delete', '--version', '1');
    expect(r.code).toBe(64);
    expect(r.stderr).toContain('error: refusing to delete migration 1 without confirmation; pass --yes');
    expect(existsSync(join(dir, 'migrations/1_a'))).toBe(true);
    expect((await run('migrate', 'delete')).stderr).toContain('error: missing required flag --version');
    const d = await run('migrate', 'delete', '--version', '1', '--yes');
    expect(d.code, show(d)).toBe(0);
    expect(existsSync(join(dir, 'migrations/1_a'))).toBe(false);
    expect((await run('migrate', 'status')).stdout).not.toMatch(/^1 /m);
    expect(await e.sql("select to_regclass('public.a') is not null as kept")).toMatchObject({ result: [['kept'], ['t']] });
  }, SLOW);

  it('create --up-sql/--down-sql writes both files', async () => {
    const r = await run('migrate', 'create', 'x', '--up-sql', 'create table x (id int);', '--down-sql', 'drop table x;');
    expect(r.code, show(r)).toBe(0);
    const d = join(dir, 'migrations', `${r.stdout.trim()}_x`);
    expect(readFileSync(join(d, 'up.sql'), 'utf8')).toBe('create table x (id int);');
    expect(readFileSync(join(d, 'down.sql'), 'utf8')).toBe('drop table x;');
  }, SLOW);
});

describe('deploy', () => {
  const tablesYaml = (tables: string[]) => `${tables.map((t) => `- table:\n    schema: public\n    name: ${t}\n`).join('')}`;

  it('runs the three steps', async () => {
    migration('1', 'a', 'create table a (id int primary key);', 'drop table a;');
    writeFileSync(join(dir, 'metadata/tables.yaml'), tablesYaml(['a']));
    const r = await run('deploy', '-o', 'json');
    expect(r.code, show(r)).toBe(0);
    expect(JSON.parse(r.stdout).steps.map((s: { step: string; status: string }) => `${s.step}:${s.status}`)).toEqual(['migrations:done', 'metadata:done', 'consistency:done']);
    const t = await run('deploy');
    expect(t.stderr).toMatch(/Step 1\/3: migrate apply\n {2}Nothing to apply; the database is up to date.\nStep 2\/3: metadata apply\n {2}Metadata is up to date; nothing to apply.\nStep 3\/3: consistency check\n {2}Metadata is consistent.\nDeploy finished.\n$/);
  }, SLOW);

  it('a failing migration exits 3 and applies no metadata', async () => {
    migration('1', 'a', 'create table a (id int primary key);', '');
    migration('2', 'b', 'selec 1;', '');
    writeFileSync(join(dir, 'metadata/tables.yaml'), tablesYaml(['a']));
    const before = await engineExport(e);
    const r = await run('deploy');
    expect(r.code, show(r)).toBe(3);
    expect(r.stderr).toContain('error: migrations/2_b/up.sql:1:1: migration 2_b failed');
    expect(r.stderr).toContain('Deploy stopped at step 1 of 3 (migrations).');
    expect((await engineExport(e)).text).toBe(before.text);
  }, SLOW);

  it('metadata the engine rejects exits 4 (after the migrations); invalid files exit 4 before anything runs', async () => {
    migration('1', 'a', 'create table a (id int primary key);', '');
    writeFileSync(join(dir, 'metadata/tables.yaml'), tablesYaml(['a', 'missing']));
    const r = await run('deploy');
    expect(r.code, show(r)).toBe(4);
    expect(r.stderr).toContain('Deploy stopped at step 2 of 3 (metadata).');
    expect((await run('migrate', 'status')).stdout).toMatch(/1\s+a\s+applied/);
    migration('2', 'b', 'create table b (id int);', '');
    writeFileSync(join(dir, 'metadata/tables.yaml'), '- table: [\n');
    const j = await run('deploy', '-o', 'json');
    expect(j.code, show(j)).toBe(4);
    expect(JSON.parse(j.stdout)).toMatchObject({ ok: false, error: { code: 'metadata-invalid' }, steps: [{ step: 'metadata', status: 'failed' }, { step: 'migrations', status: 'skipped' }, { step: 'consistency', status: 'skipped' }] });
    expect((await run('migrate', 'status')).stdout).toMatch(/2\s+b\s+pending/);
  }, SLOW);

  it('--dry-run: the migrations that would run and the plan, checked by the engine on the migrated database; nothing changed (issue 37 item 5)', async () => {
    migration('1', 'a', 'create table a (id int primary key);', 'drop table a;');
    // Table a exists only once the migration ran: the engine checks the metadata after the migrations.
    writeFileSync(join(dir, 'metadata/tables.yaml'), tablesYaml(['a']));
    const before = await engineExport(e);
    const schema = await catalog();
    const r = await run('deploy', '--dry-run');
    expect(r.code, show(r)).toBe(0);
    expect(r.stdout).toContain('public.a');
    expect(r.stderr).toMatch(/^Step 1\/3: migrate apply \(dry run\)\n {2}Would apply 1_a \(up\)\.\n {2}1 migration\(s\) would be applied\.\nStep 2\/3: metadata apply \(dry run\)\nStep 3\/3: consistency check \(dry run\)\n {2}The engine checked the migrations and the plan together: 'engine deploy' will apply them\.\nDry run: nothing was changed\.\n$/);
    const j = await run('deploy', '--dry-run', '-o', 'json');
    expect(j.code, show(j)).toBe(0);
    const doc = JSON.parse(j.stdout);
    expect(doc).toMatchObject({ ok: true, dry_run: true, checked: true, steps: [{ step: 'migrations', status: 'checked', pending: ['1_a'] }, { step: 'metadata', status: 'checked', summary: { added: 1 } }, { step: 'consistency', status: 'checked' }] });
    expect((await engineExport(e)).text).toBe(before.text);
    expect(await catalog()).toBe(schema);
    expect((await run('migrate', 'status')).stdout).toMatch(/1\s+a\s+pending/);
    // The real deploy then does what the dry run said.
    expect((await run('deploy')).code).toBe(0);
    const none = await run('deploy', '--dry-run');
    expect(none.code, show(none)).toBe(0);
    expect(none.stderr).toContain('  Nothing to apply; the database is up to date.');
    expect(none.stderr).toContain('  Nothing to apply.\nDry run: nothing was changed.');
  }, SLOW);

  it('--dry-run exits as deploy: 3 for a failing migration, 4 for rejected metadata; nothing changed', async () => {
    migration('1', 'a', 'create table a (id int primary key);', '');
    migration('2', 'b', 'selec 1;', '');
    writeFileSync(join(dir, 'metadata/tables.yaml'), tablesYaml(['a']));
    const before = await engineExport(e);
    const r = await run('deploy', '--dry-run');
    expect(r.code, show(r)).toBe(3);
    expect(r.stderr).toContain('error: migrations/2_b/up.sql:1:1: migration 2_b failed');
    expect(r.stderr).toContain('Deploy stopped at step 1 of 3 (migrations).');
    writeFileSync(join(dir, 'migrations/2_b/up.sql'), 'create table b (id int);');
    writeFileSync(join(dir, 'metadata/tables.yaml'), tablesYaml(['a', 'missing']));
    const m = await run('deploy', '--dry-run');
    expect(m.code, show(m)).toBe(4);
    expect(m.stderr).toMatch(/^metadata\/tables\.yaml:\d+:\d+: error: table public\.missing: no such table\/view exists in postgres/m);
    expect(m.stderr).toContain('Deploy stopped at step 2 of 3 (metadata); nothing was changed.');
    const j = await run('deploy', '--dry-run', '-o', 'json');
    expect(j.code, show(j)).toBe(4);
    expect(JSON.parse(j.stdout)).toMatchObject({ ok: false, error: { file: 'metadata/tables.yaml' } });
    expect((await engineExport(e)).text).toBe(before.text);
    expect((await run('migrate', 'status')).stdout).toMatch(/1\s+a\s+pending\n2\s+b\s+pending/);
  }, SLOW);

  it('deploy --help shows --dry-run and its Examples once', async () => {
    const r = await run('deploy', '--help');
    expect(r.code, show(r)).toBe(0);
    expect(r.stdout).toContain('--dry-run');
    expect(r.stdout.split('Examples:').length - 1).toBe(1);
    expect(r.stdout).toContain('$ engine deploy --dry-run');
  });

  it('inconsistent metadata after the apply exits 5', async () => {
    await e.sql('create table a (id int primary key); create table b (id int)');
    await e.ok({ type: 'bulk', args: [{ type: 'track_table', args: { table: 'a' } }, { type: 'track_table', args: { table: 'b' } }] });
    expect((await run('metadata', 'export')).code).toBe(0);
    // Behind the engine's back, then reloaded: the metadata names a table that is gone.
    await e.db.query('DROP TABLE b');
    await e.ok({ type: 'reload_metadata', args: {} });
    const r = await run('deploy');
    expect(r.code, show(r)).toBe(5);
    expect(r.stderr).toContain('error: metadata is inconsistent: 1 object(s)');
    expect(r.stderr).toContain('Deploy stopped at step 3 of 3 (consistency).');
  }, SLOW);
});

describe('seeds', () => {
  it('create --from-table, then apply in name order, each file in one transaction', async () => {
    await e.sql("create table t (id int primary key, name text); insert into t values (1, 'one')");
    const c = await run('seed', 'create', 'rows', '--from-table', 't');
    expect(c.code, show(c)).toBe(0);
    const file = c.stdout.trim();
    expect(file).toMatch(/^seeds\/\d+_rows\.sql$/);
    expect(readFileSync(join(dir, file), 'utf8')).toContain("INSERT INTO public.t (id, name) VALUES (1, 'one');");
    await e.sql('delete from t');
    writeFileSync(join(dir, 'seeds/9999999999999_more.sql'), "insert into t values (2, 'two');");
    writeFileSync(join(dir, 'seeds/9999999999999_zbad.sql'), "insert into t values (3, 'three'); selec 1;");
    const a = await run('seed', 'apply');
    expect(a.code).toBe(1);
    expect(a.stderr).toContain('error: seed seeds/9999999999999_zbad.sql failed');
    expect(await e.sql('select id from t order by id')).toMatchObject({ result: [['id'], ['1'], ['2']] });
    await e.sql('delete from t');
    const one = await run('seed', 'apply', '--file', '9999999999999_more.sql');
    expect(one.code, show(one)).toBe(0);
    expect(await e.sql('select id from t order by id')).toMatchObject({ result: [['id'], ['2']] });
  }, SLOW);
});
