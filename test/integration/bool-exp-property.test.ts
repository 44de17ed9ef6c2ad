import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.js';
import type { Json } from '../../src/metadata/json.js';
import { arrayLiteral, compileBoolExp } from '../../src/server/bool-exp/compile.js';
import { bindParams } from '../../src/server/graphql/compile/index.js';
import type { BoolExpSchema, BoolExpTable } from '../../src/server/bool-exp/schema.js';
import { validateBoolExp } from '../../src/server/bool-exp/validate.js';
import { createTestDatabase } from '../helpers/engine.js';
import { COLS, evalExp, isRef, type Row, type Tab, type Ty, type World } from '../helpers/bool-exp-eval.js';

// Compiled BoolExps (engine-api.md §4.4, graphql-api.md §4.2/§4.4) run on a real database select exactly the rows
// that a direct evaluator of the spec's semantics (SQL three-valued logic) selects, for random data and expressions.

const PG_TYPE: Record<Ty, string> = { int: 'integer', text: 'text', bool: 'boolean', jsonb: 'jsonb' };
const bxTable = (t: Tab, rels: Record<string, [Tab, [string, string][]]>): BoolExpTable => ({
  name: { schema: 'public', name: t },
  columns: new Map(Object.entries(COLS[t]).map(([c, ty]) => [c, { typeName: PG_TYPE[ty] }])),
  relationships: new Map(Object.entries(rels).map(([r, [remote, mapping]]) => [r, { remote: { schema: 'public', name: remote }, mapping }])),
});
const ITEM = bxTable('item', { owner: ['owner', [['owner_id', 'id']]] });
const OWNER = bxTable('owner', { items: ['item', [['id', 'owner_id']]] });
const SCHEMA: BoolExpSchema = { table: (n) => (n.schema !== 'public' ? undefined : n.name === 'item' ? ITEM : n.name === 'owner' ? OWNER : undefined) };

// ---- Generators ----------------------------------------------------------------------------------------------
const INT = fc.integer({ min: -3, max: 3 });
const TEXT = fc.oneof(fc.constantFrom('', 'a', 'ab', 'A', 'b'),
  fc.string({ unit: fc.constantFrom('a', 'b', 'A', '%', '_', ',', '"', '\\', '{', '}', ' ', "'", 'é', '𝄞'), maxLength: 3 }));
const PATTERN = fc.array(fc.constantFrom('a', 'A', 'b', '%', '_', '\\%', '\\_', '\\\\', 'é', '𝄞', ','), { maxLength: 4 }).map((t) => t.join(''));
const KEY = fc.constantFrom('a', 'b', 'x');
const JSCALAR = fc.oneof(fc.integer({ min: 0, max: 2 }), fc.constantFrom('a', 'b', 'x'), fc.boolean(), fc.constant(null));
const JARR = fc.array(JSCALAR, { maxLength: 3 });
const JVALUE: fc.Arbitrary<Json> = fc.oneof(fc.dictionary(KEY, fc.oneof(JSCALAR, JARR), { maxKeys: 3 }), JARR, JSCALAR.filter((v) => v !== null));
const ref = (name: string) => fc.constantFrom(name, name.toUpperCase(), name.replace(/(^|-)([a-z])/g, (_m, p: string, c: string) => p + c.toUpperCase()));

const SESSION = fc.record({
  'x-engine-role': fc.constant('user'),
  'x-engine-n': INT.map(String),
  'x-engine-b': fc.constantFrom('true', 'false', 't', 'f'),
  'x-engine-s': TEXT,
  'x-engine-pat': PATTERN,
  'x-engine-ns': fc.oneof(
    fc.array(fc.option(INT), { maxLength: 3 }).map((a) => JSON.stringify(a)),
    fc.array(INT.map(String), { maxLength: 3 }).map((a) => JSON.stringify(a)),
    fc.array(fc.option(INT), { maxLength: 3 }).map((a) => `{${a.map((x) => (x === null ? 'NULL' : String(x))).join(',')}}`)),
  'x-engine-ss': fc.array(fc.option(TEXT), { maxLength: 3 }).map((a) => JSON.stringify(a)),
  'x-engine-k': KEY,
  'x-engine-ks': fc.array(KEY, { maxLength: 3 }).map((a) => JSON.stringify(a)),
  'x-engine-doc': JVALUE.map((v) => JSON.stringify(v)),
});

type Pair = fc.Arbitrary<[string, Json]>;
const dollar = (...ops: string[]) => fc.constantFrom(...ops.flatMap((o) => [o, `$${o.slice(1)}`]));
const pair = (k: fc.Arbitrary<string>, v: fc.Arbitrary<Json>): Pair => fc.tuple(k, v);
const opsObject = (...pairs: Pair[]): fc.Arbitrary<Json> => fc.array(fc.oneof(...pairs), { minLength: 1, maxLength: 2 }).map((e) => Object.fromEntries(e));
/** `refsInLists`: whether `_in`/`_nin` arrays may hold session-variable references among their elements. */
function column(refsInLists: boolean, name: string, val: fc.Arbitrary<Json>, opts: { arrayRef?: string; others?: string[]; text?: boolean } = {}): Pair {
  const list = fc.array(fc.option(refsInLists ? val : val.filter((v) => !isRef(v))), { maxLength: 3 });
  const pairs: Pair[] = [
    pair(dollar('_eq', '_neq', '_ne'), fc.option(val)),
    pair(dollar('_gt', '_lt', '_gte', '_lte'), val),
    pair(dollar('_in', '_nin'), opts.arrayRef ? fc.oneof(list, ref(opts.arrayRef)) : list),
    pair(dollar('_is_null'), fc.boolean()),
  ];
  if (opts.others) pairs.push(pair(dollar('_ceq', '_cne', '_cneq', '_cgt', '_clt', '_cgte', '_clte'), fc.constantFrom(...opts.others)));
  if (opts.text) pairs.push(pair(dollar('_like', '_nlike', '_ilike', '_nilike'), fc.oneof(PATTERN, ref('x-engine-pat'))));
  return pair(fc.constant(name), fc.oneof(fc.option(val), opsObject(...pairs)));
}
const INT_VAL = fc.oneof(INT, INT.map(String), ref('x-engine-n'));
const TEXT_VAL = fc.oneof(TEXT, ref('x-engine-s'));
const BOOL_VAL = fc.oneof(fc.boolean(), fc.constantFrom('true', 'false', 't', 'f'), ref('x-engine-b'));
const J_COLUMN = pair(fc.constant('j'), opsObject(
  pair(dollar('_contains', '_contained_in'), fc.oneof(JVALUE, ref('x-engine-doc'))),
  pair(dollar('_has_key'), fc.oneof(KEY, ref('x-engine-k'))),
  pair(dollar('_has_keys_any', '_has_keys_all'), fc.oneof(fc.array(KEY, { maxLength: 3 }), ref('x-engine-ks'))),
  pair(dollar('_is_null'), fc.boolean()),
  pair(dollar('_eq', '_neq'), fc.option(fc.oneof(JVALUE, ref('x-engine-doc')))),
));
const logic = (sub: fc.Arbitrary<Json>): Pair[] => [pair(dollar('_and', '_or'), fc.array(sub, { maxLength: 3 })), pair(dollar('_not'), sub)];
/** Random valid BoolExps on `item`, from the grammar of §4.4.1. */
function expressions(refsInLists: boolean): fc.Arbitrary<Json> {
  const col = (name: string, val: fc.Arbitrary<Json>, opts?: Parameters<typeof column>[3]) => column(refsInLists, name, val, opts);
  const itemColumns = fc.oneof(col('id', INT_VAL, { others: ['n', 'owner_id'] }), col('n', INT_VAL, { arrayRef: 'x-engine-ns', others: ['id', 'owner_id'] }),
    col('s', TEXT_VAL, { arrayRef: 'x-engine-ss', text: true }), col('b', BOOL_VAL), J_COLUMN, col('owner_id', INT_VAL, { arrayRef: 'x-engine-ns' }));
  const ownerColumns = fc.oneof(col('id', INT_VAL), col('name', TEXT_VAL, { arrayRef: 'x-engine-ss', text: true }));
  const depth = { maxDepth: 3, depthIdentifier: 'boolexp' };
  return fc.letrec<{ item: Json; owner: Json; itemKey: [string, Json]; ownerKey: [string, Json] }>((tie) => ({
    item: fc.array(tie('itemKey'), { minLength: 1, maxLength: 2 }).map((e) => Object.fromEntries(e)),
    owner: fc.array(tie('ownerKey'), { minLength: 1, maxLength: 2 }).map((e) => Object.fromEntries(e)),
    itemKey: fc.oneof(depth, { arbitrary: itemColumns, weight: 4 }, ...logic(tie('item')), pair(fc.constant('owner'), tie('owner')),
      pair(dollar('_exists'), fc.record({ _table: fc.constantFrom<Json>('owner', { schema: 'public', name: 'owner' }), _where: tie('owner') }))),
    ownerKey: fc.oneof(depth, { arbitrary: ownerColumns, weight: 3 }, ...logic(tie('owner')), pair(fc.constant('items'), tie('item')),
      pair(dollar('_exists'), fc.record({ _table: fc.constant<Json>('item'), _where: tie('item') }))),
  })).item;
}

const DATA = fc.tuple(
  fc.subarray([1, 2, 3]), fc.array(fc.option(TEXT), { minLength: 3, maxLength: 3 }),
  fc.uniqueArray(fc.record({ id: fc.integer({ min: 1, max: 9 }), n: fc.option(INT), s: fc.option(TEXT), b: fc.option(fc.boolean()), j: fc.option(JVALUE), owner_id: fc.option(fc.integer({ min: 1, max: 3 })) }),
    { selector: (r) => r.id, minLength: 2, maxLength: 8 }),
).map(([ids, names, items]) => ({
  owner: ids.map((id) => ({ id, name: names[id - 1] ?? null })) as Row[],
  item: items.map((r) => ({ ...r, owner_id: ids.includes(r.owner_id ?? 0) ? r.owner_id : null })) as Row[],
}));

// ---- The database --------------------------------------------------------------------------------------------
let db: Database;
let drop: () => Promise<void>;
beforeAll(async () => {
  ({ db, drop } = await createTestDatabase());
  await db.runScript(`CREATE TABLE public.owner (id integer PRIMARY KEY, name text COLLATE "C" NULL);
    CREATE TABLE public.item (id integer PRIMARY KEY, n integer NULL, s text COLLATE "C" NULL, b boolean NULL, j jsonb NULL,
      owner_id integer NULL REFERENCES public.owner (id));`);
});
afterAll(async () => {
  await db?.close();
  await drop?.();
});

async function load(data: { owner: Row[]; item: Row[] }) {
  await db.query('DELETE FROM public.item');
  await db.query('DELETE FROM public.owner');
  await db.query('INSERT INTO public.owner SELECT * FROM json_populate_recordset(NULL::public.owner, $1::json)', [JSON.stringify(data.owner)]);
  await db.query('INSERT INTO public.item SELECT * FROM json_populate_recordset(NULL::public.item, $1::json)', [JSON.stringify(data.item)]);
}
async function select(exp: Json, sv: Record<string, string>): Promise<number[]> {
  const v = validateBoolExp(exp, ITEM, SCHEMA);
  expect(v, JSON.stringify(exp)).not.toHaveProperty('reason');
  const c = compileBoolExp(exp, ITEM, 't', SCHEMA);
  const rows = await db.query<{ id: number }>(`SELECT id FROM "public"."item" AS "t" WHERE ${c.sql} ORDER BY id`, bindParams(c.params, sv));
  return rows.map((r) => r.id);
}

describe('fixed data: the spec rules, stated directly', () => {
  const data = {
    owner: [{ id: 1, name: 'Ann' }, { id: 2, name: null }],
    item: [
      { id: 1, n: 1, s: 'abc', b: true, j: { a: 1, t: ['x'] }, owner_id: 1 },
      { id: 2, n: 2, s: 'ABD', b: false, j: ['a', 'b'], owner_id: 2 },
      { id: 3, n: null, s: null, b: null, j: null, owner_id: null },
      { id: 4, n: 3, s: 'a%c', b: true, j: 'a', owner_id: 1 },
    ],
  };
  const sv = { 'x-engine-role': 'user', 'x-engine-n': '2', 'x-engine-ns': '["1","3"]', 'x-engine-lit': '{1,3}', 'x-engine-ss': '["abc","a,b","{x}"]' };
  const cases: [Json, number[]][] = [
    [{}, [1, 2, 3, 4]], [{ _and: [] }, [1, 2, 3, 4]], [{ _or: [] }, []], [{ $not: { $or: [] } }, [1, 2, 3, 4]],
    [{ n: { _in: [] } }, []], [{ n: { _nin: [] } }, [1, 2, 3, 4]], [{ _not: { n: { _in: [] } } }, [1, 2, 3, 4]],
    [{ n: { _eq: null } }, [3]], [{ n: null }, [3]], [{ n: { _neq: null } }, [1, 2, 4]],
    [{ _not: { n: { _eq: 1 } } }, [2, 3, 4]], [{ n: { _neq: 1 } }, [2, 3, 4]], [{ _not: { n: { _gt: 1 } } }, [1]],
    [{ n: { _in: [1, null] } }, [1]], [{ n: { _nin: [1, null] } }, []], [{ n: { _nin: [1] } }, [2, 4]],
    [{ s: { _like: 'a%' } }, [1, 4]], [{ s: { _ilike: 'a%' } }, [1, 2, 4]], [{ s: { _like: 'a\\%c' } }, [4]], [{ s: { _nlike: 'a%' } }, [2]],
    [{ owner: { name: { _eq: 'Ann' } } }, [1, 4]], [{ owner: {} }, [1, 2, 4]], [{ _not: { owner: {} } }, [3]], [{ owner: { name: null } }, [2]],
    [{ _exists: { _table: 'owner', _where: { name: 'Ann' } } }, [1, 2, 3, 4]], [{ _exists: { _table: 'owner', _where: { id: 9 } } }, []],
    [{ n: 'X-Engine-N' }, [2]], [{ n: { _in: 'x-engine-ns' } }, [1, 4]], [{ n: { _in: 'X-ENGINE-LIT' } }, [1, 4]], [{ s: { _in: 'x-engine-ss' } }, [1]],
    [{ j: { _contains: { a: 1 } } }, [1]], [{ j: { _has_key: 'a' } }, [1, 2, 4]], [{ j: { _contains: 'a' } }, [2, 4]], [{ id: { _ceq: 'n' } }, [1, 2]],
    [{ s: "'; DROP TABLE public.item; --" }, []], [{ s: { _in: ['$1', '"', 'abc'] } }, [1]],
    [{ n: { _in: ['X-Engine-N', 3] } }, [2, 4]], // a reference inside an _in array (§4.4.3: wherever a Scalar is)
  ];
  beforeAll(async () => load(data));
  for (const [exp, ids] of cases) {
    it(JSON.stringify(exp), async () => {
      expect(await select(exp, sv)).toEqual(ids);
      const world = { ...data, sv } as World;
      expect(data.item.filter((r) => evalExp(exp, 'item', r as Row, world) === true).map((r) => r.id)).toEqual(ids); // the evaluator agrees
    });
  }
  it('a missing session variable fails before any SQL', async () => {
    await expect(select({ n: 'x-engine-missing' }, sv)).rejects.toThrow('missing session variable: "x-engine-missing"');
  });
});

describe('property: compiled SQL ≡ reference evaluator', () => {
  const agree = (exps: fc.Arbitrary<Json>) => fc.asyncProperty(DATA, fc.array(exps, { minLength: 1, maxLength: 4 }), SESSION, async (data, list, sv) => {
    await load(data);
    const world: World = { ...data, sv };
    for (const exp of list) {
      const expected = data.item.filter((r) => evalExp(exp, 'item', r, world) === true).map((r) => r.id as number).sort((a, b) => a - b);
      expect(await select(exp, sv), JSON.stringify(exp)).toEqual(expected);
    }
  });
  it('random data, random valid BoolExps, random session variables', async () => {
    await fc.assert(agree(expressions(false)), { seed: 20240517, numRuns: 200 });
  });
  it('the same with session-variable references inside _in/_nin arrays (§4.4.3: a reference is accepted wherever a Scalar is)', async () => {
    await fc.assert(agree(expressions(true)), { seed: 20240518, numRuns: 50 });
  });
  it('arrayLiteral round-trips through PostgreSQL', async () => {
    const el = fc.option(fc.string({ unit: fc.constantFrom('a', ',', '{', '}', '"', '\\', ' ', 'NULL', "'", 'é', '𝄞', '\n', '$1'), maxLength: 5 }));
    await fc.assert(fc.asyncProperty(fc.array(el, { maxLength: 5 }), async (items) => {
      const rows = await db.query<{ a: string }>('SELECT to_json($1::text[])::text AS a', [arrayLiteral(items)]);
      expect(JSON.parse(rows[0]?.a ?? 'null')).toEqual(items);
    }), { seed: 31337, numRuns: 100 });
  });
});
