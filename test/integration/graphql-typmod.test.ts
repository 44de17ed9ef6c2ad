import { describe, expect, it } from 'vitest';
import { useTestEngine } from '../helpers/engine.js';
import { as, gql, q } from './graphql-fixture.js';

// Issue 27 point 1: a value compared with or written to a column whose type has a modifier (char(3), varchar(10),
// numeric(10,2), bit(8), arrays and domains of them) is cast to the unmodified type (bpchar, not `character`,
// which is char(1)): nothing is truncated, and the column's modifier applies when PostgreSQL assigns the value.

const SQL = `
CREATE DOMAIN code3 AS char(3) CHECK (VALUE <> 'zzz');
CREATE DOMAIN code3b AS code3;
CREATE TABLE p (id char(3) PRIMARY KEY, v varchar(10), n numeric(10,2), b bit(8), a char(3)[], d code3, dd code3b);
INSERT INTO p VALUES ('bcd', 'x', 1.5, B'10101010', '{abc}', 'kkk', 'mmm'), ('BCD', 'y', 2.25, B'00000001', '{xyz}', 'lll', 'nnn');
CREATE FUNCTION p_code_is(r p, code char(3)) RETURNS boolean STABLE LANGUAGE sql AS $$ SELECT r.id = code $$;
CREATE FUNCTION p_find(code char(3), flags bit(8) DEFAULT NULL) RETURNS SETOF p STABLE LANGUAGE sql
  AS $$ SELECT * FROM p WHERE id = code AND (flags IS NULL OR b = flags) $$;
`;

const e = useTestEngine({
  setup: async (t) => {
    await t.sql(SQL);
    await t.ok({ type: 'bulk', args: [
      { type: 'track_table', args: 'p' },
      { type: 'track_function', args: 'p_find' },
      { type: 'add_computed_field', args: { table: 'p', name: 'code_is', definition: { function: 'p_code_is' } } },
      { type: 'create_select_permission', args: { table: 'p', role: 'user', permission: { columns: ['id', 'v', 'd'], filter: { _or: [{ id: { _eq: 'X-Engine-Code' } }, { d: { _in: ['X-Engine-Code'] } }] } } } },
      { type: 'create_insert_permission', args: { table: 'p', role: 'user', permission: { columns: ['v'], set: { id: 'X-Engine-Code', d: 'X-Engine-Code' }, check: { id: { _eq: 'X-Engine-Code' } } } } },
    ] });
  },
});

const ids = (rows: unknown): string[] => (rows as { id: string }[]).map((r) => r.id).sort();
const data = async (query: string, headers = {}): Promise<Record<string, unknown>> => {
  const body = (await q(e, query, headers)) as { data?: Record<string, unknown>; errors?: unknown };
  if (!body.data) throw new Error(JSON.stringify(body));
  return body.data;
};

describe('columns with type modifiers in /v1/graphql', () => {
  it('char(3): _by_pk, _eq, _neq, _ilike, _like, _in, _nin and an over-long operand', async () => {
    const d = await data(`{
      pk: p_by_pk(id: "bcd") { id } pk2: p_by_pk(id: "BCD") { id } none: p_by_pk(id: "bcdz") { id }
      eq: p(where: {id: {_eq: "bcd"}}) { id } long: p(where: {id: {_eq: "bcdz"}}) { id } neq: p(where: {id: {_neq: "bcd"}}) { id }
      ilike: p(where: {id: {_ilike: "b%"}}) { id } like: p(where: {id: {_like: "B%"}}) { id }
      in: p(where: {id: {_in: ["bcd", "x"]}}) { id } nin: p(where: {id: {_nin: ["bcd"]}}) { id }
      gt: p(where: {id: {_gt: "BCDA"}}) { id }
    }`);
    expect(d['pk']).toEqual({ id: 'bcd' });
    expect(d['pk2']).toEqual({ id: 'BCD' });
    expect(d['none']).toBeNull();
    expect(ids(d['eq'])).toEqual(['bcd']);
    expect(ids(d['long'])).toEqual([]);
    expect(ids(d['neq'])).toEqual(['BCD']);
    expect(ids(d['ilike'])).toEqual(['BCD', 'bcd'].sort());
    expect(ids(d['like'])).toEqual(['BCD']);
    expect(ids(d['in'])).toEqual(['bcd']);
    expect(ids(d['nin'])).toEqual(['BCD']);
    expect(ids(d['gt'])).toEqual(['bcd']);
  });

  it('varchar(n), numeric(p,s), bit(n), arrays and domains (also over a domain)', async () => {
    const d = await data(`{
      v: p(where: {v: {_eq: "x"}}) { id } vl: p(where: {v: {_in: ["y", "0123456789ab"]}}) { id }
      n: p(where: {n: {_eq: "2.25"}}) { id } nr: p(where: {n: {_eq: "1.504"}}) { id } ng: p(where: {n: {_gt: 1.5}}) { id }
      b: p(where: {b: {_eq: "10101010"}}) { id } bs: p(where: {b: {_eq: "1"}}) { id }
      a: p(where: {a: {_eq: ["xyz"]}}) { id }
      d: p(where: {d: {_eq: "kkk"}}) { id } dz: p(where: {d: {_eq: "zzz"}}) { id } dd: p(where: {dd: {_in: ["nnn"]}}) { id }
    }`);
    expect(ids(d['v'])).toEqual(['bcd']);
    expect(ids(d['vl'])).toEqual(['BCD']);
    expect(ids(d['n'])).toEqual(['BCD']);
    // Cast to numeric(10,2), 1.504 would round to 1.50 and match the first row.
    expect(ids(d['nr'])).toEqual([]);
    expect(ids(d['ng'])).toEqual(['BCD']);
    expect(ids(d['b'])).toEqual(['bcd']);
    // Cast to bit(8), "1" would be padded to 10000000; cast to bit (bit(1)) "10101010" would be cut to 1.
    expect(ids(d['bs'])).toEqual([]);
    expect(ids(d['a'])).toEqual(['BCD']);
    expect(ids(d['d'])).toEqual(['bcd']);
    // The operand is compared as the domain's base type: a value the domain refuses simply matches nothing.
    expect(ids(d['dz'])).toEqual([]);
    expect(ids(d['dd'])).toEqual(['BCD']);
  });

  it('function arguments of modified types: a tracked function and a computed field', async () => {
    const d = await data(`{
      f: p_find(args: {code: "bcd"}) { id } fb: p_find(args: {code: "BCD", flags: "00000001"}) { id }
      fn: p_find(args: {code: "BCD", flags: "1"}) { id }
      cf: p(order_by: {id: asc}) { id code_is(args: {code: "bcd"}) }
    }`);
    expect(ids(d['f'])).toEqual(['bcd']);
    expect(ids(d['fb'])).toEqual(['BCD']);
    expect(ids(d['fn'])).toEqual([]);
    expect(d['cf']).toEqual([{ id: 'BCD', code_is: false }, { id: 'bcd', code_is: true }]);
  });

  it('insert, update and delete by primary key, on_conflict', async () => {
    const m = await data(`mutation {
      ins: insert_p_one(object: {id: "cde", v: "new", n: 3.14159, b: "11110000", a: ["q"], d: "ppp", dd: "qqq"}) { id v n b a d dd }
      up: update_p_by_pk(pk_columns: {id: "bcd"}, _set: {v: "upd", b: "00001111"}) { id v b }
      inc: update_p(where: {id: {_eq: "BCD"}}, _inc: {n: 1}) { returning { id n } }
      oc: insert_p_one(object: {id: "BCD", v: "conflict"}, on_conflict: {constraint: p_pkey, update_columns: [v], where: {id: {_eq: "BCD"}}}) { id v }
      del: delete_p_by_pk(id: "cde") { id }
    }`);
    expect(m).toEqual({
      ins: { id: 'cde', v: 'new', n: 3.14, b: '11110000', a: ['q  '], d: 'ppp', dd: 'qqq' },
      up: { id: 'bcd', v: 'upd', b: '00001111' },
      inc: { returning: [{ id: 'BCD', n: 3.25 }] },
      oc: { id: 'BCD', v: 'conflict' },
      del: { id: 'cde' },
    });
  });

  it('an over-long value is refused by PostgreSQL as in SQL, not silently truncated; nothing is written', async () => {
    const before = await e.state();
    const long = await gql(e, { query: 'mutation { insert_p_one(object: {id: "abcd"}) { id } }' });
    expect(long.body.errors[0]).toMatchObject({ message: 'value too long for type character(3)', extensions: { path: '$.selectionSet.insert_p_one', code: 'data-exception' } });
    const upd = await gql(e, { query: 'mutation { update_p_by_pk(pk_columns: {id: "bcd"}, _set: {v: "0123456789abc"}) { id } }' });
    expect(upd.body.errors[0]).toMatchObject({ message: 'value too long for type character varying(10)', extensions: { path: '$.selectionSet.update_p_by_pk', code: 'data-exception' } });
    expect(await data('{ p(order_by: {id: asc}) { id v } }')).toEqual({ p: [{ id: 'BCD', v: 'y' }, { id: 'bcd', v: 'x' }] });
    expect(await e.state()).toEqual(before);
  });

  it('session variables compared with and preset into char(3) and domain columns', async () => {
    const user = { ...as('user'), 'x-engine-code': 'bcd' };
    expect(await data('{ p { id v d } }', user)).toEqual({ p: [{ id: 'bcd', v: 'x', d: 'kkk' }] });
    expect(await data('{ p { id } }', { ...as('user'), 'x-engine-code': 'lll' })).toEqual({ p: [{ id: 'BCD' }] });
    expect(await data('mutation { insert_p_one(object: {v: "mine"}) { id v d } }', { ...as('user'), 'x-engine-code': 'efg' }))
      .toEqual({ insert_p_one: { id: 'efg', v: 'mine', d: 'efg' } });
  });
});
