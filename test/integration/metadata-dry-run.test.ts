import { describe, expect, it } from 'vitest';
import { useTestEngine } from '../helpers/engine.js';
import { err, exported, fails, qt, inconsistentError } from '../helpers/assertions.js';

// replace_metadata with "dry_run": true (issue 19 item 1): the whole replace, then a rollback. It answers what the real
// replace would have answered, errors included, and changes nothing: metadata, resource_version, schema, triggers.

const e = useTestEngine();

const SCHEMA = 'create table author (id serial primary key, name text); create table article (id serial primary key, author_id int references author(id), published boolean)';
const replace = (metadata: unknown, extra: Record<string, unknown> = {}) => ({ type: 'replace_metadata', args: { metadata, dry_run: true, ...extra } });
const perm = (columns: string[], filter: unknown = {}) => ({ role: 'user', permission: { columns, filter } });
const TRIGGER = { name: 'on_author', definition: { enable_manual: false, insert: { columns: '*' } }, retry_conf: { num_retries: 0, interval_sec: 10, timeout_sec: 60 }, webhook: 'http://127.0.0.1:1/hook' };
const GOOD = {
  version: 2,
  tables: [
    { table: qt('article'), select_permissions: [perm(['id', 'published'], { published: { _eq: true } })] },
    { table: qt('author'), event_triggers: [TRIGGER] },
  ],
};
const BAD = { version: 2, tables: [{ table: qt('article'), select_permissions: [perm(['id', 'publisehd'])] }, { table: qt('author') }] };

async function unchanged(run: () => Promise<void>): Promise<void> {
  const before = await e.state();
  await run();
  expect(await e.state()).toEqual(before);
}

describe('replace_metadata dry_run', () => {
  it('answers success with dry_run: true and changes nothing (resource_version, metadata, database triggers)', async () => {
    await e.sql(SCHEMA);
    await e.ok({ type: 'track_table', args: 'author' });
    const before = await exported(e);
    await unchanged(async () => {
      const r = await e.query(replace(GOOD, { resource_version: Number(before.version) }));
      expect({ status: r.status, body: r.body }).toEqual({ status: 200, body: { message: 'success', dry_run: true } });
      expect(r.headers.get('x-engine-resource-version')).toBe(before.version);
    });
    // The same request without dry_run does what the dry run promised.
    const real = await e.query({ type: 'replace_metadata', args: { metadata: GOOD, resource_version: Number(before.version) } });
    expect({ status: real.status, body: real.body }).toEqual({ status: 200, body: { message: 'success' } });
    expect(real.headers.get('x-engine-resource-version')).toBe(String(Number(before.version) + 1));
  });

  it('answers the inconsistencies the strict replace would fail with, and changes nothing', async () => {
    await e.sql(SCHEMA);
    await e.ok({ type: 'track_table', args: 'author' });
    const r = await fails(e, replace(BAD), 400, inconsistentError('cannot continue due to inconsistent metadata', [{
      definition: { table: qt('article'), role: 'user', permission: { columns: ['id', 'publisehd'], filter: {} } },
      reason: 'in table "article": in permission for role "user": column "publisehd" does not exist in table "article"',
      type: 'select_permission',
    }]));
    expect(r.headers.get('x-engine-resource-version')).toBeNull();
  });

  it('with allow_inconsistent_metadata answers the records it would keep, and stores nothing', async () => {
    await e.sql(SCHEMA);
    await unchanged(async () => {
      const r = await e.query(replace(BAD, { allow_inconsistent_metadata: true }));
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ is_consistent: false, dry_run: true, inconsistent_objects: [{ type: 'select_permission' }] });
    });
    expect((await exported(e)).text).toBe('{"version":2,"tables":[]}');
  });

  it('keeps the checks of the real replace: version conflict, duplicates, a dry_run that is not a boolean', async () => {
    await e.sql(SCHEMA);
    const v = Number((await exported(e)).version);
    const conflict = await e.query(replace(GOOD, { resource_version: v + 5 }));
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject(err('$.args.resource_version', 'resource version mismatch', 'conflict'));
    await fails(e, replace({ version: 2, tables: [{ table: qt('author') }, { table: qt('author') }] }), 400,
      err('$.args.metadata.tables', 'multiple declarations exist for the following tables : "author"', 'already-exists'));
    await fails(e, { type: 'replace_metadata', args: { metadata: GOOD, dry_run: 'yes' } }, 400,
      err('$.args.dry_run', 'expected Boolean, encountered String', 'parse-failed'));
  });

  it('inside a bulk, later steps see the metadata as it was before the dry run', async () => {
    await e.sql(SCHEMA);
    const r = await e.query({ type: 'bulk', args: [replace(GOOD), { type: 'export_metadata', args: {} }, { type: 'track_table', args: 'article' }] });
    expect(r.status).toBe(200);
    expect(r.body).toEqual([{ message: 'success', dry_run: true }, { version: 2, tables: [] }, { message: 'success' }]);
    expect((await exported(e)).text).toBe('{"version":2,"tables":[{"table":{"schema":"public","name":"article"}}]}');
  });
});
