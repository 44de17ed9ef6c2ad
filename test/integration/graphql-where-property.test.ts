import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Json } from '../../src/metadata/json.js';
import { evalExp, type Row, type World } from '../helpers/bool-exp-eval.js';
import { useTestEngine } from '../helpers/engine.js';
import { gql } from './graphql-fixture.js';

// graphql-api.md §4.4: a GraphQL `where`, run as a non-admin role, selects exactly the rows the reference evaluator of
// the BoolExp semantics selects: the role's select filter AND the where, with every relationship key also applying the
// remote table's select filter.

const ITEM_PERM: Json = { _or: [{ b: { _eq: true } }, { owner_id: { _eq: 'X-Engine-Owner' } }] };
const OWNER_PERM: Json = { _or: [{ id: { _lt: 3 } }, { name: { _eq: 'a' } }] };

const e = useTestEngine({ setup: async (t) => {
  await t.sql(`CREATE TABLE owner (id integer PRIMARY KEY, name text COLLATE "C" NULL);
    CREATE TABLE item (id integer PRIMARY KEY, n integer NULL, s text COLLATE "C" NULL, b boolean NULL, j jsonb NULL,
      owner_id integer NULL REFERENCES owner (id));`);
  await t.ok({ type: 'bulk', args: [
    { type: 'track_table', args: 'owner' }, { type: 'track_table', args: 'item' },
    { type: 'create_object_relationship', args: { table: 'item', name: 'owner', using: { foreign_key_constraint_on: 'owner_id' } } },
    { type: 'create_array_relationship', args: { table: 'owner', name: 'items', using: { foreign_key_constraint_on: { table: 'item', column: 'owner_id' } } } },
    { type: 'create_select_permission', args: { table: 'item', role: 'user', permission: { columns: '*', filter: ITEM_PERM } } },
    { type: 'create_select_permission', args: { table: 'owner', role: 'user', permission: { columns: '*', filter: OWNER_PERM } } },
  ] });
} });

const INT = fc.integer({ min: -3, max: 3 });
const TEXT = fc.oneof(fc.constantFrom('', 'a', 'ab', 'A', 'b'), fc.string({ unit: fc.constantFrom('a', 'b', 'A', '%', '_', ',', '"', '\\', "'", 'é', '𝄞'), maxLength: 3 }));
const PATTERN = fc.array(fc.constantFrom('a', 'A', 'b', '%', '_', '\\%', '\\_', 'é'), { maxLength: 4 }).map((t) => t.join(''));
const KEY = fc.constantFrom('a', 'b', 'x');
const JSCALAR = fc.oneof(fc.integer({ min: 0, max: 2 }), fc.constantFrom('a', 'b', 'x'), fc.boolean());
const JVALUE: fc.Arbitrary<Json> = fc.oneof(fc.dictionary(KEY, fc.oneof(JSCALAR, fc.array(JSCALAR, { maxLength: 2 })), { maxKeys: 2 }), fc.array(JSCALAR, { maxLength: 2 }), JSCALAR);

type Pair = fc.Arbitrary<[string, Json]>;
const pair = (k: fc.Arbitrary<string>, v: fc.Arbitrary<Json>): Pair => fc.tuple(k, v);
const ops = (...pairs: Pair[]): fc.Arbitrary<Json> => fc.array(fc.oneof(...pairs), { minLength: 1, maxLength: 2 }).map((x) => Object.fromEntries(x));
function column(name: string, val: fc.Arbitrary<Json>, text = false): Pair {
  const pairs: Pair[] = [
    pair(fc.constantFrom('_eq', '_neq'), fc.option(val)),
    pair(fc.constantFrom('_gt', '_lt', '_gte', '_lte'), val),
    pair(fc.constantFrom('_in', '_nin'), fc.array(val, { maxLength: 3 })),
    pair(fc.constant('_is_null'), fc.boolean()),
  ];
  if (text) pairs.push(pair(fc.constantFrom('_like', '_nlike', '_ilike', '_nilike'), PATTERN));
  return pair(fc.constant(name), ops(...pairs));
}
const J = pair(fc.constant('j'), ops(pair(fc.constant('_contains'), JVALUE), pair(fc.constant('_has_key'), KEY), pair(fc.constant('_is_null'), fc.boolean())));
const logic = (sub: fc.Arbitrary<Json>): Pair[] => [pair(fc.constantFrom('_and', '_or'), fc.array(sub, { maxLength: 3 })), pair(fc.constant('_not'), sub)];
const depth = { maxDepth: 3, depthIdentifier: 'where' };
const WHERE = fc.letrec<{ item: Json; owner: Json; itemKey: [string, Json]; ownerKey: [string, Json] }>((tie) => ({
  item: fc.array(tie('itemKey'), { maxLength: 2 }).map((x) => Object.fromEntries(x)),
  owner: fc.array(tie('ownerKey'), { maxLength: 2 }).map((x) => Object.fromEntries(x)),
  itemKey: fc.oneof(depth, { arbitrary: fc.oneof(column('id', INT), column('n', INT), column('s', TEXT, true), column('b', fc.boolean()), J, column('owner_id', INT)), weight: 4 },
    ...logic(tie('item')), pair(fc.constant('owner'), tie('owner'))),
  ownerKey: fc.oneof(depth, { arbitrary: fc.oneof(column('id', INT), column('name', TEXT, true)), weight: 3 }, ...logic(tie('owner')), pair(fc.constant('items'), tie('item'))),
})).item;

const DATA = fc.tuple(
  fc.subarray([1, 2, 3]), fc.array(fc.option(TEXT), { minLength: 3, maxLength: 3 }),
  fc.uniqueArray(fc.record({ id: fc.integer({ min: 1, max: 9 }), n: fc.option(INT), s: fc.option(TEXT), b: fc.option(fc.boolean()), j: fc.option(JVALUE), owner_id: fc.option(fc.integer({ min: 1, max: 3 })) }),
    { selector: (r) => r.id, minLength: 2, maxLength: 8 }),
).map(([ids, names, items]) => ({
  owner: ids.map((id) => ({ id, name: names[id - 1] ?? null })) as Row[],
  item: items.map((r) => ({ ...r, owner_id: ids.includes(r.owner_id ?? 0) ? r.owner_id : null })) as Row[],
}));

/** The where as a permission BoolExp with each relationship key also requiring the remote select filter (§4.4). */
function withRemoteFilters(w: Json, table: 'item' | 'owner'): Json {
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(w as Record<string, Json>)) {
    if (k === '_and' || k === '_or') out[k] = (v as Json[]).map((x) => withRemoteFilters(x, table));
    else if (k === '_not') out[k] = withRemoteFilters(v, table);
    else if (table === 'item' && k === 'owner') out[k] = { _and: [withRemoteFilters(v, 'owner'), OWNER_PERM] };
    else if (table === 'owner' && k === 'items') out[k] = { _and: [withRemoteFilters(v, 'item'), ITEM_PERM] };
    else out[k] = v;
  }
  return out;
}

describe('property: GraphQL where as role user ≡ reference evaluator', () => {
  it('random data, random where, random session variable', async () => {
    await fc.assert(fc.asyncProperty(DATA, fc.array(WHERE, { minLength: 1, maxLength: 3 }), fc.integer({ min: 1, max: 3 }), async (data, wheres, owner) => {
      await e.db.query('DELETE FROM item');
      await e.db.query('DELETE FROM owner');
      await e.db.query('INSERT INTO owner SELECT * FROM json_populate_recordset(NULL::owner, $1::json)', [JSON.stringify(data.owner)]);
      await e.db.query('INSERT INTO item SELECT * FROM json_populate_recordset(NULL::item, $1::json)', [JSON.stringify(data.item)]);
      const world: World = { ...data, sv: { 'x-engine-role': 'user', 'x-engine-owner': String(owner) } };
      for (const w of wheres) {
        const exp = { _and: [ITEM_PERM, withRemoteFilters(w, 'item')] };
        const expected = data.item.filter((r) => evalExp(exp, 'item', r, world) === true).map((r) => ({ id: r['id'] })).sort((a, b) => Number(a.id) - Number(b.id));
        const r = await gql(e, { query: 'query ($w: item_bool_exp) { item(where: $w, order_by: {id: asc}) { id } }', variables: { w } }, { 'x-engine-role': 'user', 'x-engine-owner': String(owner) });
        expect(r.body, JSON.stringify(w)).toEqual({ data: { item: expected } });
      }
    }), { seed: 20261125, numRuns: 60 });
  });
});
