import { describe, expect, it } from 'vitest';
import { post, useTestEngine, type TestEngine } from '../helpers/engine.js';
import { as, gqlErr, q } from './graphql-fixture.js';

// Issue 30 (parity with the incumbent's published cases), on the query side: the `path` argument of json/jsonb
// columns, `_by_pk` arguments typed by an enum table, the placeholder query's text.

const SQL = `
CREATE TABLE doc (id serial PRIMARY KEY, j json, b jsonb NOT NULL, secret jsonb);
INSERT INTO doc (j, b, secret) VALUES
  ('{"a":"b","obj":{"c1":"c2"},"arr":[1,2,3],"_underscore":0,"!@#$%^":"special","translations":{"hello world!":"hi"},"objs":[{"你好":"Hello!"}]}',
   '{"c":"d","arr":[4,5,6],"obj":{"e1":"e2"},"n":{"x-y":7}}', '{"k":1}'),
  (NULL, '{"c":null}', NULL);
CREATE TABLE shade (value text PRIMARY KEY, comment text);
INSERT INTO shade VALUES ('red', 'warm'), ('blue', 'cold');
CREATE TABLE swatch (shade text PRIMARY KEY REFERENCES shade, label text NOT NULL);
INSERT INTO swatch VALUES ('red', 'Red one'), ('blue', 'Blue one');
`;
const META = [
  { type: 'track_table', args: 'doc' },
  { type: 'track_table', args: { table: 'shade', is_enum: true } },
  { type: 'track_table', args: 'swatch' },
  { type: 'create_select_permission', args: { table: 'doc', role: 'reader', permission: { columns: ['id', 'b'], filter: { id: { _eq: 1 } } } } },
  { type: 'create_select_permission', args: { table: 'swatch', role: 'reader', permission: { columns: ['shade', 'label'], filter: { shade: { _eq: 'red' } } } } },
];
const e: TestEngine = useTestEngine({ setup: async (t) => { await t.sql(SQL); await t.ok({ type: 'bulk', args: META }); } });
const READER = as('reader');
const PATH_ERROR = (p: string): string => `parse json path error: ${p}. Accept letters, digits, underscore (_) or hyphen (-) only. Use quotes enclosed in bracket (["..."]) if there is any special character`;

describe('the path argument of json and jsonb columns', () => {
  it('selects keys, indices and quoted keys of json and jsonb', async () => {
    const r = await q(e, `{ doc(order_by: {id: asc}) {
      whole: j(path: "$") k: j(path: ".obj.c1") bare: j(path: "a") idx: j(path: "arr[0]") us: j(path: "._underscore")
      special: j(path: "['!@#$%^']") spaced: j(path: "translations['hello world!']") uni: j(path: "objs[0]['你好']")
      dq: j(path: "objs[0][\\"你好\\"]") dotted: j(path: "objs.[0].[\\"你好\\"]") dollar: j(path: "$.obj.c1")
      bk: b(path: "obj.e1") bidx: b(path: "arr[2]") hy: b(path: "n.x-y") missing: b(path: "nope.deeper") bnull: b(path: "c") } }`);
    expect(r).toEqual({ data: { doc: [
      { whole: expect.objectContaining({ a: 'b' }), k: 'c2', bare: 'b', idx: 1, us: 0, special: 'special', spaced: 'hi', uni: 'Hello!', dq: 'Hello!', dotted: 'Hello!', dollar: 'c2', bk: 'e2', bidx: 6, hy: 7, missing: null, bnull: 'd' },
      { whole: null, k: null, bare: null, idx: null, us: null, special: null, spaced: null, uni: null, dq: null, dotted: null, dollar: null, bk: null, bidx: null, hy: null, missing: null, bnull: null },
    ] } });
  });

  it('takes the path from a variable, in mutations too, and under the role\'s permissions', async () => {
    expect(await q(e, 'query ($p: String) { doc(order_by: {id: asc}) { b(path: $p) } }', {}, { p: 'arr[1]' })).toEqual({ data: { doc: [{ b: 5 }, { b: null }] } });
    expect(await q(e, 'query ($p: String) { doc(order_by: {id: asc}) { b(path: $p) } }', {}, { p: '$' })).toEqual({ data: { doc: [{ b: { c: 'd', arr: [4, 5, 6], obj: { e1: 'e2' }, n: { 'x-y': 7 } } }, { b: { c: null } }] } });
    expect(await q(e, 'query ($p: String) { doc(order_by: {id: asc}) { b(path: $p) } }', {}, { p: null })).toEqual({ data: { doc: [{ b: { c: 'd', arr: [4, 5, 6], obj: { e1: 'e2' }, n: { 'x-y': 7 } } }, { b: { c: null } }] } });
    expect(await q(e, '{ doc { b(path: "obj.e1") } }', READER)).toEqual({ data: { doc: [{ b: 'e2' }] } });
    expect(await q(e, 'mutation { update_doc(where: {id: {_eq: 2}}, _set: {b: {c: [9]}}) { returning { b(path: "c[0]") } } }')).toEqual({ data: { update_doc: { returning: [{ b: 9 }] } } });
  });

  it('is an argument of json and jsonb columns only, and not of a column the role cannot see', async () => {
    const t = await q(e, '{ __type(name: "doc") { fields { name args { name description type { name } } } } }') as { data: { __type: { fields: { name: string; args: unknown[] }[] } } };
    expect(Object.fromEntries(t.data.__type.fields.map((f) => [f.name, f.args]))).toEqual({
      id: [], j: [{ name: 'path', description: 'JSON select path', type: { name: 'String' } }], b: [{ name: 'path', description: 'JSON select path', type: { name: 'String' } }],
      secret: [{ name: 'path', description: 'JSON select path', type: { name: 'String' } }],
    });
    expect(await q(e, '{ doc { id(path: "a") } }')).toEqual(gqlErr('"id" has no argument named "path"', '$.selectionSet.doc.selectionSet.id.args.path', 'validation-failed'));
    expect(await q(e, '{ doc { secret(path: "k") } }', READER)).toEqual(gqlErr('field "secret" not found in type: \'doc\'', '$.selectionSet.doc.selectionSet.secret', 'validation-failed'));
  });

  it('rejects what is not a path, given literally or by a variable, before any SQL', async () => {
    for (const p of ['', '.', 'a..b', 'arr[x]', "['open", 'a b', '1abc', 'arr[0']) {
      expect(await q(e, `{ doc { b(path: ${JSON.stringify(p)}) } }`)).toEqual(gqlErr(PATH_ERROR(p), '$.selectionSet.doc.selectionSet.b.args.path', 'validation-failed'));
    }
    expect(await q(e, 'query ($p: String) { doc { b(path: $p) } }', {}, { p: 'a b' })).toEqual(gqlErr(PATH_ERROR('a b'), '$.selectionSet.doc.selectionSet.b.args.path', 'validation-failed'));
    const before = await e.state();
    expect(await q(e, 'mutation { update_doc(where: {}, _set: {b: {}}) { returning { b(path: "a b") } } }')).toEqual(gqlErr(PATH_ERROR('a b'), '$.selectionSet.update_doc.selectionSet.returning.selectionSet.b.args.path', 'validation-failed'));
    expect(await q(e, '{ doc(order_by: {id: asc}) { b(path: "c") } }')).toEqual({ data: { doc: [{ b: 'd' }, { b: null }] } });
    expect(await e.state()).toEqual(before);
  });
});

describe('_by_pk of a table whose key references an enum table', () => {
  it('types the key argument by the enum, as the table type does', async () => {
    const t = await q(e, '{ __type(name: "query_root") { fields { name args { name type { ofType { name kind } } } } } }') as { data: { __type: { fields: { name: string; args: unknown[] }[] } } };
    expect(t.data.__type.fields.find((f) => f.name === 'swatch_by_pk')?.args).toEqual([{ name: 'shade', type: { ofType: { name: 'shade_enum', kind: 'ENUM' } } }]);
    expect(await q(e, '{ swatch_by_pk(shade: blue) { label } }')).toEqual({ data: { swatch_by_pk: { label: 'Blue one' } } });
    expect(await q(e, 'query ($s: shade_enum!) { swatch_by_pk(shade: $s) { label } }', READER, { s: 'blue' })).toEqual({ data: { swatch_by_pk: null } });
    expect(await q(e, 'query ($s: shade_enum!) { swatch_by_pk(shade: $s) { label } }', READER, { s: 'red' })).toEqual({ data: { swatch_by_pk: { label: 'Red one' } } });
  });

  it('refuses a string where the enum is expected', async () => {
    expect(await q(e, '{ swatch_by_pk(shade: "red") { label } }')).toEqual(gqlErr('invalid value for type "shade_enum": "red"', '$.selectionSet.swatch_by_pk.args.shade', 'validation-failed'));
  });
});

describe('a role without queries', () => {
  it('answers the incumbent\'s placeholder text, described by the same text', async () => {
    const text = "There are no queries available to the current role. Either there are no sources or remote schemas configured, or the current role doesn't have the required permissions.";
    expect(await q(e, '{ no_queries_available }', as('nobody'))).toEqual({ data: { no_queries_available: text } });
    expect(await q(e, '{ __type(name: "query_root") { fields { name description } } }', as('nobody'))).toEqual({ data: { __type: { fields: [{ name: 'no_queries_available', description: text }] } } });
    expect(await q(e, '{ no_queries_available }')).toEqual(gqlErr('field "no_queries_available" not found in type: \'query_root\'', '$.selectionSet.no_queries_available', 'validation-failed'));
  });
});

describe('/v1alpha1/graphql', () => {
  it('answers as /v1/graphql, errors with HTTP 400', async () => {
    const ok = await post(`${e.url}/v1alpha1/graphql`, { query: '{ swatch(order_by: {shade: asc}) { label } }' }, READER);
    expect([ok.status, ok.body]).toEqual([200, { data: { swatch: [{ label: 'Red one' }] } }]);
    const before = await e.state();
    const bad = await post(`${e.url}/v1alpha1/graphql`, { query: 'mutation { update_doc(where: {}, _set: {b: {}}) { affected_rows } }' }, READER);
    expect([bad.status, bad.body]).toEqual([400, gqlErr('no mutations exist', '$', 'validation-failed')]);
    expect(await e.state()).toEqual(before);
  });

  it('takes the incumbent\'s array relationship form {table, columns: "<one column>"}', async () => {
    await e.ok({ type: 'create_array_relationship', args: { table: 'shade', name: 'swatches', using: { foreign_key_constraint_on: { table: 'swatch', columns: 'shade' } } } });
    expect(await q(e, '{ shade(order_by: {value: asc}) { value swatches { label } } }')).toEqual({ data: { shade: [{ value: 'blue', swatches: [{ label: 'Blue one' }] }, { value: 'red', swatches: [{ label: 'Red one' }] }] } });
  });
});

describe('fragment cycles', () => {
  it('are a validation error naming the fragments, not an internal error', async () => {
    expect(await q(e, 'query { doc { ...a } } fragment a on doc { id ...b } fragment b on doc { b ...a }')).toEqual(gqlErr('the fragment definition(s) a and b form a cycle', '$', 'validation-failed'));
    expect(await q(e, 'query { doc { ...a } } fragment a on doc { id ...a }')).toEqual(gqlErr('the fragment definition(s) a form a cycle', '$', 'validation-failed'));
  });

  it('through nested fields too (the limits walked it without end: an internal error)', async () => {
    await e.ok({ type: 'bulk', args: [
      { type: 'create_array_relationship', args: { table: 'shade', name: 'swatches', using: { foreign_key_constraint_on: { table: 'swatch', column: 'shade' } } } },
      { type: 'create_object_relationship', args: { table: 'swatch', name: 'of', using: { foreign_key_constraint_on: 'shade' } } },
    ] });
    expect(await q(e, 'query { shade { ...s } } fragment s on shade { value swatches { ...w } } fragment w on swatch { label of { ...s } }'))
      .toEqual(gqlErr('the fragment definition(s) s and w form a cycle', '$', 'validation-failed'));
  });
});

describe('request extensions', () => {
  it('ignores extensions but refuses automatic persisted queries as the incumbent\'s open edition does', async () => {
    const body = (extensions: unknown) => ({ operationName: 'one', extensions, query: 'query one { doc(order_by: {id: asc}) { id } } query two { swatch { label } }' });
    expect((await post(`${e.url}/v1/graphql`, body(null))).body).toEqual({ data: { doc: [{ id: 1 }, { id: 2 }] } });
    expect((await post(`${e.url}/v1/graphql`, body({ tracing: true }))).body).toEqual({ data: { doc: [{ id: 1 }, { id: 2 }] } });
    const apq = { persistedQuery: { version: 1, sha256Hash: 'abc' } };
    for (const b of [body(apq), { extensions: apq }]) {
      const r = await post(`${e.url}/v1/graphql`, b);
      expect([r.status, r.body]).toEqual([200, gqlErr('Automatic Persisted Queries is not enabled', '$', 'not-supported')]);
    }
  });
});
