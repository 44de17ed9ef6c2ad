import { describe, expect, it } from 'vitest';
import { useTestEngine } from '../helpers/engine.js';
import { gqlErr, q } from './graphql-fixture.js';

// Issue 12: enum tables (`is_enum`) — the rows become the GraphQL enum `<table>_enum`, used by every column that
// references the table by a foreign key (output, filters, inputs); a table of the wrong shape is inconsistent.

const e = useTestEngine({ setup: async (t) => {
  await t.sql(`CREATE TABLE post_status (value text PRIMARY KEY, comment text);
    INSERT INTO post_status VALUES ('draft', 'Not yet visible'), ('published', NULL), ('not-a-name', 'left out');
    CREATE TABLE post (id serial PRIMARY KEY, title text NOT NULL, status text NOT NULL REFERENCES post_status (value));
    INSERT INTO post (title, status) VALUES ('a', 'draft'), ('b', 'published');`);
  await t.ok({ type: 'replace_metadata', args: { version: 2, tables: [
    { table: { schema: 'public', name: 'post' } },
    { table: { schema: 'public', name: 'post_status' }, is_enum: true },
  ] } });
} });

describe('enum tables in /v1/graphql', () => {
  it('referencing columns are typed by the enum in output, filters and inputs', async () => {
    expect(await q(e, '{ post(where: {status: {_eq: published}}) { title status } }')).toEqual({ data: { post: [{ title: 'b', status: 'published' }] } });
    expect(await q(e, '{ post(where: {status: {_in: [draft, published]}}, order_by: {id: asc}) { id } }')).toEqual({ data: { post: [{ id: 1 }, { id: 2 }] } });
    expect(await q(e, 'mutation { insert_post_one(object: {title: "c", status: draft}) { status } update_post(where: {id: {_eq: 1}}, _set: {status: published}) { affected_rows } }'))
      .toEqual({ data: { insert_post_one: { status: 'draft' }, update_post: { affected_rows: 1 } } });
    expect(await q(e, 'mutation ($s: post_status_enum!) { insert_post_one(object: {title: "d", status: $s}) { status } }', {}, { s: 'published' }))
      .toEqual({ data: { insert_post_one: { status: 'published' } } });
    expect(await q(e, 'mutation { insert_post_one(object: {title: "e", status: "draft"}) { id } }'))
      .toEqual(gqlErr('invalid value for type "post_status_enum": "draft"', '$.selectionSet.insert_post_one.args.object.status', 'validation-failed'));
    const t = await q(e, '{ __type(name: "post_status_enum") { enumValues { name description } } p: __type(name: "post") { fields { name type { ofType { name } } } } }') as { data: { __type: unknown; p: { fields: { name: string; type: { ofType: { name: string } | null } }[] } } };
    expect(t.data.__type).toEqual({ enumValues: [{ name: 'draft', description: 'Not yet visible' }, { name: 'published', description: null }] });
    expect(t.data.p.fields.find((f) => f.name === 'status')?.type.ofType?.name).toBe('post_status_enum');
    // The enum table itself stays a table.
    expect(await q(e, '{ post_status(order_by: {value: asc}) { value } }')).toEqual({ data: { post_status: [{ value: 'draft' }, { value: 'not-a-name' }, { value: 'published' }] } });
  });

  it('a table of the wrong shape is inconsistent', async () => {
    await e.sql('CREATE TABLE bad_enum (id integer PRIMARY KEY, label text)');
    const r = await e.query({ type: 'replace_metadata', args: { metadata: { version: 2, tables: [{ table: { schema: 'public', name: 'bad_enum' }, is_enum: true }] }, allow_inconsistent_metadata: true } });
    expect(r.status).toBe(200);
    const inc = await e.ok({ type: 'get_inconsistent_metadata', args: {} });
    expect(JSON.stringify(inc)).toContain('the table \\"bad_enum\\" cannot be used as an enum: its primary key must be of type text');
  });
});
