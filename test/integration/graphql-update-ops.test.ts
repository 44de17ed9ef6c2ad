import { describe, expect, it } from 'vitest';
import { useTestEngine, type TestEngine } from '../helpers/engine.js';
import { as, gqlErr, q, type Headers } from './graphql-fixture.js';

// Issue 30.3: the incumbent's update operators (jsonb _append/_prepend/_delete_key/_delete_elem/_delete_at_path),
// an update with nothing to set, updates through presets only, update_<t>_many, and on_conflict's update_columns.
// Every error also proves that nothing changed.

const SQL = `
CREATE TABLE doc (id serial PRIMARY KEY, title text NOT NULL, n integer NOT NULL DEFAULT 0,
  data jsonb NOT NULL DEFAULT '{}', secret text, owner integer NOT NULL, CONSTRAINT doc_title_key UNIQUE (title));
CREATE TABLE resident (id serial PRIMARY KEY, name text NOT NULL, city text NOT NULL);
INSERT INTO doc (title, n, data, secret, owner) VALUES
  ('a', 1, '{"name":{"first":"Jo","last":"Li"},"tags":["x"]}', 's1', 1),
  ('b', 2, '[{"k":1},{"k":2}]', 's2', 1),
  ('c', 3, '{"k":3}', 's3', 2);
INSERT INTO resident (name, city) VALUES ('ann', 'perth'), ('bob', 'hobart');
`;
const perm = (kind: string, table: string, role: string, permission: unknown) => ({ type: `create_${kind}_permission`, args: { table, role, permission } });
const META = [
  { type: 'track_table', args: 'doc' },
  { type: 'track_table', args: 'resident' },
  perm('select', 'doc', 'editor', { columns: ['id', 'title', 'n', 'data', 'owner'], filter: { owner: 'X-Engine-User-Id' } }),
  perm('update', 'doc', 'editor', { columns: ['title', 'n', 'data'], filter: { owner: 'X-Engine-User-Id' }, check: { n: { _lt: 100 } } }),
  perm('insert', 'doc', 'editor', { columns: ['title', 'n'], set: { owner: 'X-Engine-User-Id' }, check: {} }),
  perm('select', 'resident', 'mover', { columns: '*', filter: {} }),
  perm('update', 'resident', 'mover', { columns: [], filter: {}, set: { city: 'melbourne' } }),
  perm('select', 'resident', 'traveller', { columns: '*', filter: {} }),
  perm('update', 'resident', 'traveller', { columns: '*', filter: {}, set: { city: 'X-Engine-City' } }),
];

const e: TestEngine = useTestEngine({ setup: async (t) => { await t.sql(SQL); await t.ok({ type: 'bulk', args: META }); } });
const EDITOR = as('editor', 1);
const ADMIN: Headers = {};

const rows = async (table: string): Promise<unknown> => (await e.sql(`SELECT json_agg(x ORDER BY x.id)::text FROM ${table} x`)).result[1][0];

/** The error answered for `query`, after checking that nothing changed. */
async function fails(query: string, headers: Headers, expected: unknown, variables?: unknown): Promise<void> {
  const before = [await rows('doc'), await rows('resident')];
  expect(await q(e, query, headers, variables)).toEqual(expected);
  expect([await rows('doc'), await rows('resident')]).toEqual(before);
}

describe('jsonb update operators', () => {
  it('_append, _prepend, _delete_key, _delete_elem, _delete_at_path', async () => {
    const r = await q(e, `mutation ($v: jsonb) {
      a: update_doc(where: {id: {_eq: 1}}, _append: {data: $v}) { returning { data } }
      b: update_doc(where: {id: {_eq: 2}}, _prepend: {data: [{k: 0}]}) { returning { data } }
      c: update_doc_by_pk(pk_columns: {id: 3}, _delete_key: {data: "k"}) { data }
    }`, EDITOR, { v: { city: 'Oslo' } });
    // Row 3 belongs to owner 2: the update filter keeps it out.
    expect(r).toEqual({ data: {
      a: { returning: [{ data: { name: { first: 'Jo', last: 'Li' }, tags: ['x'], city: 'Oslo' } }] },
      b: { returning: [{ data: [{ k: 0 }, { k: 1 }, { k: 2 }] }] },
      c: null,
    } });
    const r2 = await q(e, `mutation {
      d: update_doc(where: {id: {_eq: 2}}, _delete_elem: {data: -1}) { returning { data } }
      p: update_doc(where: {id: {_eq: 1}}, _delete_at_path: {data: ["name", "last"]}, _inc: {n: 5}) { returning { n data } }
    }`, EDITOR);
    expect(r2).toEqual({ data: {
      d: { returning: [{ data: [{ k: 0 }, { k: 1 }] }] },
      p: { returning: [{ n: 6, data: { name: { first: 'Jo' }, tags: ['x'], city: 'Oslo' } }] },
    } });
  });

  it('types the operators as the incumbent does, for updatable jsonb columns only', async () => {
    const r = await q(e, `{ __type(name: "mutation_root") { fields { name args { name type { name } } } } }`, EDITOR) as { data: { __type: { fields: { name: string; args: { name: string; type: { name: string | null } }[] }[] } } };
    const upd = r.data.__type.fields.find((f) => f.name === 'update_doc');
    expect(upd?.args.map((a) => [a.name, a.type.name])).toEqual([
      ['_append', 'doc_append_input'], ['_delete_at_path', 'doc_delete_at_path_input'], ['_delete_elem', 'doc_delete_elem_input'],
      ['_delete_key', 'doc_delete_key_input'], ['_inc', 'doc_inc_input'], ['_prepend', 'doc_prepend_input'], ['_set', 'doc_set_input'], ['where', null],
    ]);
    const t = await q(e, `{ k: __type(name: "doc_delete_key_input") { inputFields { name type { name } } }
      p: __type(name: "doc_delete_at_path_input") { inputFields { name type { kind ofType { kind ofType { name } } } } } }`, EDITOR);
    expect(t).toEqual({ data: {
      k: { inputFields: [{ name: 'data', type: { name: 'String' } }] },
      p: { inputFields: [{ name: 'data', type: { kind: 'LIST', ofType: { kind: 'NON_NULL', ofType: { name: 'String' } } } }] },
    } });
  });

  it('a column in two operators is an error', async () => {
    await fails('mutation { update_doc(where: {}, _set: {n: 1, title: "z"}, _inc: {n: 2}, _append: {data: {}}) { affected_rows } }', ADMIN,
      gqlErr("Column found in multiple operators: ['n'].", '$.selectionSet.update_doc.args', 'validation-failed'));
  });

  it('a column the role cannot update is not a field of any operator', async () => {
    await fails('mutation { update_doc(where: {}, _delete_key: {secret: "x"}) { affected_rows } }', EDITOR,
      gqlErr('field "secret" not found in type: \'doc_delete_key_input\'', '$.selectionSet.update_doc.args._delete_key.secret', 'validation-failed'));
  });

  it('null for a jsonb operator is an error', async () => {
    await fails('mutation ($v: jsonb) { update_doc(where: {}, _append: {data: $v}) { affected_rows } }', ADMIN,
      gqlErr('null is not allowed for field "data"', '$.selectionSet.update_doc.args._append.data', 'validation-failed'), { v: null });
  });
});

describe('updates with nothing to set, and through presets only', () => {
  it('no operator: no row is updated (empty response, null by primary key)', async () => {
    const before = await rows('doc');
    expect(await q(e, 'mutation { update_doc(where: {id: {_eq: 1}}) { affected_rows returning { id } } u: update_doc_by_pk(pk_columns: {id: 1}, _set: {}) { id } }', EDITOR))
      .toEqual({ data: { update_doc: { affected_rows: 0, returning: [] }, u: null } });
    expect(await rows('doc')).toEqual(before);
  });

  it('a role with no updatable column updates through its presets', async () => {
    expect(await q(e, 'mutation { update_resident(where: {name: {_eq: "ann"}}) { affected_rows returning { name city } } }', as('mover')))
      .toEqual({ data: { update_resident: { affected_rows: 1, returning: [{ name: 'ann', city: 'melbourne' }] } } });
    expect(await q(e, 'mutation { update_resident_by_pk(pk_columns: {id: 2}) { city } }', { ...as('traveller'), 'x-engine-city': 'auckland' }))
      .toEqual({ data: { update_resident_by_pk: { city: 'auckland' } } });
    const t = await q(e, '{ __type(name: "mutation_root") { fields { name args { name } } } }', as('mover')) as { data: { __type: { fields: { name: string; args: { name: string }[] }[] } } };
    expect(t.data.__type.fields.find((f) => f.name === 'update_resident')?.args.map((a) => a.name)).toEqual(['where']);
  });
});

describe('update_<t>_many', () => {
  it('runs each update in order, each seeing the ones before, and answers a list of responses', async () => {
    const r = await q(e, `mutation { update_doc_many(updates: [
      {where: {id: {_eq: 1}}, _inc: {n: 10}},
      {where: {n: {_eq: 11}}, _set: {title: "eleven"}, _inc: {n: 1}},
      {where: {id: {_eq: 3}}, _set: {title: "hidden"}},
      {where: {id: {_eq: 2}}, _append: {data: [{k: 9}]}}
    ]) { affected_rows returning { id title n } } }`, EDITOR);
    expect(r).toEqual({ data: { update_doc_many: [
      { affected_rows: 1, returning: [{ id: 1, title: 'a', n: 11 }] },
      { affected_rows: 1, returning: [{ id: 1, title: 'eleven', n: 12 }] },
      { affected_rows: 0, returning: [] },
      { affected_rows: 1, returning: [{ id: 2, title: 'b', n: 2 }] },
    ] } });
    expect(await q(e, '{ doc(order_by: {id: asc}) { title data } }')).toEqual({ data: { doc: [
      { title: 'eleven', data: { name: { first: 'Jo', last: 'Li' }, tags: ['x'] } },
      { title: 'b', data: [{ k: 1 }, { k: 2 }, { k: 9 }] },
      { title: 'c', data: { k: 3 } },
    ] } });
  });

  it('no update answers an empty list; aliases and other root fields keep their places', async () => {
    expect(await q(e, 'mutation { x: update_doc_many(updates: []) { affected_rows } y: update_doc_many(updates: [{where: {id: {_eq: 1}}, _set: {n: 7}}]) { affected_rows } }', EDITOR))
      .toEqual({ data: { x: [], y: [{ affected_rows: 1 }] } });
  });

  it('a failed check in a later update undoes the earlier ones', async () => {
    await fails('mutation { update_doc_many(updates: [{where: {id: {_eq: 1}}, _set: {n: 50}}, {where: {id: {_eq: 2}}, _set: {n: 500}}]) { affected_rows } }', EDITOR,
      gqlErr('check constraint of an update permission has failed', '$.selectionSet.update_doc_many', 'permission-error'));
  });

  it('an error in an item names its path', async () => {
    await fails('mutation { update_doc_many(updates: [{where: {}, _set: {n: 1}}, {where: {}, _set: {n: 1}, _inc: {n: 1}}]) { affected_rows } }', ADMIN,
      gqlErr("Column found in multiple operators: ['n'].", '$.selectionSet.update_doc_many.args.updates[1]', 'validation-failed'));
    await fails('mutation { update_doc_many(updates: [{where: {}, _set: {secret: "x"}}]) { affected_rows } }', EDITOR,
      gqlErr('field "secret" not found in type: \'doc_set_input\'', '$.selectionSet.update_doc_many.args.updates[0]._set.secret', 'validation-failed'));
    const before = await rows('doc');
    const r = await q(e, 'mutation { update_doc_many(updates: [{where: {}, _set: {title: "same"}}]) { affected_rows } }', ADMIN) as { errors: unknown[] };
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatchObject({ message: 'Uniqueness violation. duplicate key value violates unique constraint "doc_title_key"', extensions: { path: '$.selectionSet.update_doc_many.args.updates[0]', code: 'constraint-violation' } });
    expect(await rows('doc')).toEqual(before);
  });
});

describe('on_conflict update_columns', () => {
  it('[] does nothing on a conflict', async () => {
    expect(await q(e, 'mutation { insert_doc(objects: [{title: "a", n: 9}, {title: "new", n: 4}], on_conflict: {constraint: doc_title_key, update_columns: []}) { affected_rows returning { title n } } }', EDITOR))
      .toEqual({ data: { insert_doc: { affected_rows: 1, returning: [{ title: 'new', n: 4 }] } } });
  });

  it('a column the role cannot update is an error, not ignored', async () => {
    await fails('mutation { insert_doc(objects: [{title: "a"}], on_conflict: {constraint: doc_title_key, update_columns: [owner]}) { affected_rows } }', EDITOR,
      gqlErr('invalid value for type "doc_update_column": owner', '$.selectionSet.insert_doc.args.on_conflict.update_columns[0]', 'validation-failed'));
  });
});
