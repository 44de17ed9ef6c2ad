import { describe, expect, it } from 'vitest';
import { useTestEngine } from '../helpers/engine.js';
import { qt } from '../helpers/assertions.js';

// Issue 12 item 4: metadata features real projects use are accepted by replace_metadata and exported as given, in
// canonical form: enum tables, table configuration (custom names), backend-only insert permissions, a relationship's
// insertion_order and an action relationship's source. (Their GraphQL meaning comes with the GraphQL API.)

const e = useTestEngine();

const replace = (args: unknown) => ({ type: 'replace_metadata', args });
const EXPORT = { type: 'export_metadata', args: {} };

const SCHEMA = `
  create table article_status (value text primary key, comment text);
  insert into article_status values ('draft', 'Not yet published'), ('published', 'Visible to readers');
  create table author (id serial primary key, full_name text, profile_id int);
  create table profile (id serial primary key, bio text);
  create table article (id serial primary key, author_id int references author(id), status text references article_status(value), title text);`;

const DOC = {
  version: 2,
  tables: [
    { table: qt('article'), insert_permissions: [{ role: 'service', permission: { check: {}, columns: ['title'], backend_only: true } }] },
    { table: qt('article_status'), is_enum: true },
    {
      table: qt('author'),
      configuration: {
        custom_name: 'Writer',
        custom_root_fields: { select: 'writers', select_by_pk: 'writer', insert_one: { name: 'addWriter', comment: 'Adds one writer' } },
        column_config: { full_name: { custom_name: 'name', comment: 'As printed' } },
        custom_column_names: { full_name: 'name' },
        comment: 'People who write',
      },
      object_relationships: [{
        name: 'profile',
        using: { manual_configuration: { remote_table: qt('profile'), column_mapping: { profile_id: 'id' }, insertion_order: 'before_parent' } },
      }],
    },
    { table: qt('profile') },
  ],
  actions: [{ name: 'publish', definition: { handler: 'http://127.0.0.1:1/publish', output_type: 'Published', arguments: [{ name: 'id', type: 'Int!' }], kind: 'synchronous' } }],
  custom_types: {
    objects: [{
      name: 'Published', fields: [{ name: 'id', type: 'Int!' }],
      relationships: [{ name: 'article', type: 'object', source: 'default', remote_table: qt('article'), field_mapping: { id: 'id' } }],
    }],
  },
};

describe('metadata features of real projects (issue 12 item 4)', () => {
  it('accepts them and exports them exactly, consistent', async () => {
    await e.sql(SCHEMA);
    await e.ok(replace(DOC));
    const exported = (await e.ok(EXPORT)) as Record<string, unknown>;
    expect(JSON.stringify(exported)).toBe(JSON.stringify(DOC));
    expect(await e.ok({ type: 'get_inconsistent_metadata', args: {} })).toEqual({ is_consistent: true, inconsistent_objects: [] });
  });

  it('makes a table inconsistent when its configuration names a column it does not have', async () => {
    await e.sql(SCHEMA);
    const doc = { version: 2, tables: [{ table: qt('author'), configuration: { custom_column_names: { nickname: 'nick', full_name: 'name' } } }] };
    await e.ok(replace({ metadata: doc, allow_inconsistent_metadata: true }));
    expect(await e.ok({ type: 'get_inconsistent_metadata', args: {} })).toEqual({
      is_consistent: false,
      inconsistent_objects: [{
        definition: qt('author'), type: 'table',
        reason: 'the configuration of table "author" names columns that do not exist: "nickname"',
      }],
    });
  });
});

describe('query actions and nested action outputs (issue 12 item 4)', () => {
  const types = {
    objects: [
      { name: 'Address', fields: [{ name: 'city', type: 'String' }] },
      { name: 'UserInfo', fields: [{ name: 'id', type: 'Int!' }, { name: 'address', type: 'Address' }] },
    ],
  };
  const action = (definition: Record<string, unknown>) => ({ name: 'currentUser', definition: { handler: 'http://127.0.0.1:1/u', output_type: 'UserInfo', ...definition } });

  it('accepts a query action whose output nests another object type, and exports it', async () => {
    const doc = { version: 2, tables: [], actions: [action({ kind: 'synchronous', type: 'query' })], custom_types: types };
    await e.ok(replace(doc));
    expect(JSON.stringify(await e.ok(EXPORT))).toBe(JSON.stringify(doc));
    expect(await e.ok({ type: 'get_inconsistent_metadata', args: {} })).toEqual({ is_consistent: true, inconsistent_objects: [] });
  });

  it('reads the incumbent\'s kind "" as synchronous, and refuses an asynchronous query action', async () => {
    await e.ok(replace({ version: 2, tables: [], actions: [action({ kind: '', type: 'query' })], custom_types: types }));
    expect(((await e.ok(EXPORT)) as { actions: { definition: unknown }[] }).actions[0]?.definition)
      .toEqual({ handler: 'http://127.0.0.1:1/u', output_type: 'UserInfo', kind: 'synchronous', type: 'query' });
    const before = await e.state();
    const r = await e.query(replace({ version: 2, tables: [], actions: [action({ kind: 'asynchronous', type: 'query' })], custom_types: types }));
    expect({ status: r.status, body: r.body }).toEqual({ status: 400, body: { path: '$.args.actions[0].definition.kind', error: 'a query action must be synchronous', code: 'parse-failed' } });
    expect(await e.state()).toEqual(before);
  });
});
