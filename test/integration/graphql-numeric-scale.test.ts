import { describe, expect, it } from 'vitest';
import { useTestEngine, type TestEngine } from '../helpers/engine.js';
import { q } from './graphql-fixture.js';

// Issue 30 (the incumbent's numerics_inc case): the scale PostgreSQL keeps of a numeric is the scale of the text it
// parsed, so the engine writes numbers as the incumbent does: `/v1/query` insert and update as its binary numeric
// format (scale rounded up to a multiple of 4), GraphQL mutations as Haskell's show (`-1.0e-30` keeps 31 digits).

const e: TestEngine = useTestEngine({ setup: async (t) => {
  await t.sql('CREATE TABLE num (id integer PRIMARY KEY, x numeric, fixed numeric(8,2));');
  await t.ok({ type: 'track_table', args: 'num' });
} });

const stored = async (id: number): Promise<unknown> => (await e.sql(`SELECT x::text, fixed::text FROM num WHERE id = ${id}`)).result[1];

describe('the scale of numeric values', () => {
  it('a data query\'s numbers keep their scale rounded up to a multiple of 4', async () => {
    await e.ok({ type: 'insert', args: { table: 'num', objects: [{ id: 1, x: 12345.67, fixed: 1.5 }, { id: 2, x: 7 }] } });
    expect(await stored(1)).toEqual(['12345.6700', '1.50']);
    expect(await stored(2)).toEqual(['7', null]);
    await e.ok({ type: 'update', args: { table: 'num', where: { id: 2 }, $inc: { x: 0.5 } } });
    expect(await stored(2)).toEqual(['7.5000', null]);
  });

  it('a GraphQL mutation\'s numbers are written as the incumbent shows them', async () => {
    await e.sql("INSERT INTO num VALUES (1, '12345.6700', 1.5)");
    const inc = (v: string) => q(e, `mutation { update_num(where: {id: {_eq: 1}}, _inc: {x: ${v}}) { affected_rows } }`);
    await inc('-1.1');
    expect(await stored(1)).toEqual(['12344.5700', '1.50']);
    await inc('-1E-30');
    expect(await stored(1)).toEqual(['12344.5699999999999999999999999999990', '1.50']);
    await q(e, 'mutation { insert_num(objects: [{id: 3, x: 5, fixed: 5}, {id: 4, x: 0.05}]) { affected_rows } }');
    expect(await stored(3)).toEqual(['5.0', '5.00']);
    expect(await stored(4)).toEqual(['0.050', null]);
    await q(e, 'mutation ($v: numeric) { update_num(where: {id: {_eq: 4}}, _set: {x: $v}) { affected_rows } }', {}, { v: 250 });
    expect(await stored(4)).toEqual(['250.0', null]);
    // A string is PostgreSQL's to parse, as written.
    await q(e, 'mutation { update_num(where: {id: {_eq: 4}}, _set: {x: "1.5e-3"}) { affected_rows } }');
    expect(await stored(4)).toEqual(['0.0015', null]);
  });
});
