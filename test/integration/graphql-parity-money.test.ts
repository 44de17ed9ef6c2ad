import { describe, expect, it } from 'vitest';
import { useTestEngine, type TestEngine } from '../helpers/engine.js';
import { gqlErr, q } from './graphql-fixture.js';

// Issue 30 (the incumbent's numerics_inc case): a money column takes numbers, and `_inc` adds to it, exponents
// included; PostgreSQL answers money as its text.

const e: TestEngine = useTestEngine({ setup: async (t) => {
  await t.sql("SET lc_monetary = 'C'; CREATE TABLE wallet (id integer PRIMARY KEY, m money NOT NULL); INSERT INTO wallet VALUES (1, 10);");
  await t.ok({ type: 'track_table', args: 'wallet' });
} });

describe('money columns', () => {
  it('increments by numbers, exponents included', async () => {
    const inc = (v: string) => q(e, `mutation { update_wallet(where: {id: {_eq: 1}}, _inc: {m: ${v}}) { returning { m } } }`);
    const first = await inc('-1.1') as { data: { update_wallet: { returning: { m: string }[] } } };
    expect(first.data.update_wallet.returning[0]?.m).toMatch(/^\$?8\.90$/);
    const second = await inc('-2E-2') as { data: { update_wallet: { returning: { m: string }[] } } };
    expect(second.data.update_wallet.returning[0]?.m).toMatch(/^\$?8\.88$/);
    expect(await q(e, 'mutation { update_wallet(where: {}, _inc: {m: true}) { affected_rows } }'))
      .toEqual(gqlErr('invalid value for type "money": true', '$.selectionSet.update_wallet.args._inc.m', 'validation-failed'));
  });
});
