import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Json } from '../../src/metadata/json.js';
import { evalExp, type Row, type World } from '../helpers/bool-exp-eval.js';
import { useTestEngine } from '../helpers/engine.js';
import { gql } from './graphql-fixture.js';

// graphql-api.md §4.5–§4.7 as a property: random mutations sent as role `user` (inserts with and without on_conflict,
// updates with _set and _inc, deletes, by primary key, with `where` through a relationship, objects from variables,
// several root fields, forbidden keys) never leave a row the permissions do not allow. Against an in-memory model of
// the permissions (the reference BoolExp evaluator): a new row carries the preset and passed the insert check; a
// changed row was in the update filter, changed only updatable columns, got the update preset and passes the update
// check; a vanished row was in the delete filter; a failed mutation changed nothing at all.

const SELECT: Json = { _or: [{ b: { _eq: true } }, { owner_id: { _eq: 'X-Engine-Owner' } }] };
const INSERT_CHECK: Json = { _or: [{ n: { _gte: 0 } }, { owner: { name: { _eq: 'a' } } }] };
const UPDATE_FILTER: Json = { owner_id: { _eq: 'X-Engine-Owner' } };
const UPDATE_CHECK: Json = { n: { _lte: 5 } };
const DELETE_FILTER: Json = { _and: [{ owner_id: { _eq: 'X-Engine-Owner' } }, { s: { _is_null: false } }] };

const e = useTestEngine({ setup: async (t) => {
  await t.sql(`CREATE TABLE owner (id integer PRIMARY KEY, name text COLLATE "C" NULL);
    CREATE TABLE item (id integer PRIMARY KEY, n integer NULL, s text COLLATE "C" NULL, b boolean NULL, j jsonb NULL,
      owner_id integer NULL REFERENCES owner (id));
    INSERT INTO owner VALUES (1, 'a'), (2, 'b'), (3, NULL);`);
  await t.ok({ type: 'bulk', args: [
    { type: 'track_table', args: 'owner' }, { type: 'track_table', args: 'item' },
    { type: 'create_object_relationship', args: { table: 'item', name: 'owner', using: { foreign_key_constraint_on: 'owner_id' } } },
    { type: 'create_select_permission', args: { table: 'item', role: 'user', permission: { columns: '*', filter: SELECT } } },
    { type: 'create_select_permission', args: { table: 'owner', role: 'user', permission: { columns: '*', filter: {} } } },
    { type: 'create_insert_permission', args: { table: 'item', role: 'user', permission: { columns: ['id', 'n', 's', 'b'], set: { owner_id: 'X-Engine-Owner' }, check: INSERT_CHECK } } },
    { type: 'create_update_permission', args: { table: 'item', role: 'user', permission: { columns: ['n', 's'], filter: UPDATE_FILTER, check: UPDATE_CHECK, set: { b: true } } } },
    { type: 'create_delete_permission', args: { table: 'item', role: 'user', permission: { filter: DELETE_FILTER } } },
  ] });
} });

const INT = fc.integer({ min: -3, max: 7 });
const TEXT = fc.constantFrom('a', 'b', '', "'; drop table item; --");
const ID = fc.integer({ min: 1, max: 8 });
/** Objects the role may send, and now and then a key it may not (owner_id, j): that must fail validation. */
const OBJECT = fc.record({ id: ID, n: fc.option(INT), s: fc.option(TEXT), b: fc.option(fc.boolean()), owner_id: fc.integer({ min: 1, max: 3 }) },
  { requiredKeys: ['id'] }).chain((o) => fc.boolean().map((forbidden) => {
  const { owner_id: ownerId, ...rest } = o;
  return forbidden && ownerId !== undefined && ownerId > 2 ? o : rest;
}));
const WHERE: fc.Arbitrary<Json> = fc.oneof(
  fc.constant({}),
  fc.record({ n: fc.record({ _gt: INT }) }),
  fc.record({ id: fc.record({ _in: fc.array(ID, { maxLength: 3 }) }) }),
  fc.record({ owner: fc.record({ name: fc.record({ _eq: fc.constantFrom('a', 'b') }) }) }),
  fc.record({ _or: fc.tuple(fc.record({ s: fc.record({ _is_null: fc.boolean() }) }), fc.record({ owner_id: fc.record({ _eq: fc.integer({ min: 1, max: 3 }) }) })) }),
);
const lit = (v: Json): string => JSON.stringify(v).replace(/"(\w+)":/g, '$1:');
const SET = fc.record({ n: fc.option(INT), s: fc.option(TEXT) }, { requiredKeys: [] });

const FIELD: fc.Arbitrary<string> = fc.oneof(
  fc.array(OBJECT, { maxLength: 3 }).map((os) => `insert_item(objects: ${lit(os)}) { affected_rows }`),
  fc.tuple(OBJECT, fc.subarray(['n', 's']), WHERE).map(([o, cols, w]) => `insert_item_one(object: ${lit(o)}, on_conflict: {constraint: item_pkey, update_columns: [${cols.join(', ')}], where: ${lit(w)}}) { id }`),
  fc.tuple(WHERE, SET, fc.option(INT)).map(([w, s, inc]) => `update_item(where: ${lit(w)}, _set: ${lit(s)}${inc === null ? '' : `, _inc: {n: ${inc}}`}) { affected_rows }`),
  fc.tuple(ID, SET).map(([id, s]) => `update_item_by_pk(pk_columns: {id: ${id}}, _set: ${lit(s)}) { id n }`),
  WHERE.map((w) => `delete_item(where: ${lit(w)}) { affected_rows returning { id } }`),
  ID.map((id) => `delete_item_by_pk(id: ${id}) { id }`),
);

const DATA = fc.uniqueArray(fc.record({ id: ID, n: fc.option(INT), s: fc.option(TEXT), b: fc.option(fc.boolean()), owner_id: fc.option(fc.integer({ min: 1, max: 3 })) }),
  { selector: (r) => r.id, maxLength: 6 });

const OWNERS: Row[] = [{ id: 1, name: 'a' }, { id: 2, name: 'b' }, { id: 3, name: null }];
const rowsNow = async (): Promise<Row[]> => (await e.db.query<{ r: Row }>('SELECT to_jsonb(i) AS r FROM item i ORDER BY id')).map((x) => x.r);

/** Why a new row breaks the insert rules, or null. */
function insertViolation(after: Row, w: World): string | null {
  if (after['owner_id'] !== Number(w.sv['x-engine-owner'])) return 'without the preset owner';
  if (after['j'] !== null) return 'wrote j';
  // A row inserted and then updated by a later root field answers to the update check instead.
  const updatedLater = after['b'] === true && evalExp(UPDATE_CHECK, 'item', after, w) === true;
  if (evalExp(INSERT_CHECK, 'item', after, w) !== true && !updatedLater) return 'fails the insert check';
  return null;
}

/** Why a row of the database breaks the permissions, or null when it is allowed. */
function violation(before: Map<number, Row>, after: Row, w: World): string | null {
  const id = after['id'] as number;
  const old = before.get(id);
  if (!old) return insertViolation(after, w);
  const changed = Object.keys(after).filter((k) => JSON.stringify(after[k]) !== JSON.stringify(old[k]));
  if (changed.length === 0) return null;
  // Deleted and inserted again by a later root field of the same mutation.
  if (evalExp(DELETE_FILTER, 'item', old, w) === true && insertViolation(after, w) === null) return null;
  if (evalExp(UPDATE_FILTER, 'item', old, w) !== true) return `row ${id} changed outside the update filter`;
  const bad = changed.filter((k) => !['n', 's', 'b'].includes(k));
  if (bad.length > 0) return `row ${id} changed ${bad.join(', ')}`;
  if (after['b'] !== true) return `row ${id} updated without the preset`;
  if (evalExp(UPDATE_CHECK, 'item', after, w) !== true) return `row ${id} fails the update check`;
  return null;
}

describe('property: role user never leaves a row its permissions do not allow', () => {
  it('random data, random mutations, random session owner', async () => {
    await fc.assert(fc.asyncProperty(DATA, fc.array(FIELD, { minLength: 1, maxLength: 3 }), fc.boolean(), fc.array(OBJECT, { maxLength: 3 }), fc.integer({ min: 1, max: 4 }), async (data, fields, asVariables, objects, owner) => {
      await e.db.query('DELETE FROM item');
      await e.db.query('INSERT INTO item SELECT * FROM json_populate_recordset(NULL::item, $1::json)', [JSON.stringify(data)]);
      const before = await rowsNow();
      const headers = { 'x-engine-role': 'user', 'x-engine-owner': String(owner) };
      const vars = asVariables ? objects : null;
      const query = `mutation ${vars ? '($o: [item_insert_input!]!) ' : ''}{ ${vars ? 'v: insert_item(objects: $o) { affected_rows } ' : ''}${fields.map((f, i) => `f${i}: ${f}`).join(' ')} }`;
      const body = vars ? { query, variables: { o: vars } } : { query };
      const r = await gql(e, body, headers);
      expect(r.status).toBe(200);
      const after = await rowsNow();
      if (r.body.errors) {
        expect(after, `${JSON.stringify(body)} → ${JSON.stringify(r.body)}`).toEqual(before);
        return;
      }
      const world: World = { item: before, owner: OWNERS, sv: { 'x-engine-role': 'user', 'x-engine-owner': String(owner) } };
      const old = new Map(before.map((x) => [x['id'] as number, x]));
      const kept = new Set(after.map((x) => x['id'] as number));
      for (const gone of before.filter((x) => !kept.has(x['id'] as number))) {
        // Deleted now, or updated into the delete filter by an earlier root field and then deleted: never another owner's row.
        const may = evalExp(DELETE_FILTER, 'item', gone, world) === true || evalExp(UPDATE_FILTER, 'item', gone, world) === true;
        expect(may, `deleted ${JSON.stringify(gone)} by ${query}`).toBe(true);
      }
      for (const row of after) expect(violation(old, row, world), `${query} → ${JSON.stringify(row)}`).toBeNull();
    }), { seed: 20261125, numRuns: 120 });
  });
});
