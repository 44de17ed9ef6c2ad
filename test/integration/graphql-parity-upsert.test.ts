import { describe, expect, it } from 'vitest';
import { useTestEngine, type TestEngine } from '../helpers/engine.js';
import { as, gqlErr, q } from './graphql-fixture.js';

// Issue 30 (the incumbent's insert permission cases): `on_conflict` is offered to a role that may insert and update a
// table even without a select permission (then without `where`), and naming the placeholder update column of a
// role that may update no column is the incumbent's "erroneous column name".

const SQL = `
CREATE TABLE lead (id serial PRIMARY KEY, name text NOT NULL, added_by text NOT NULL);
INSERT INTO lead (name, added_by) VALUES ('one', 'sam'), ('two', 'kim');
`;
const perm = (kind: string, role: string, permission: unknown) => ({ type: `create_${kind}_permission`, args: { table: 'lead', role, permission } });
const e: TestEngine = useTestEngine({ setup: async (t) => {
  await t.sql(SQL);
  await t.ok({ type: 'bulk', args: [
    { type: 'track_table', args: 'lead' },
    perm('insert', 'sales', { columns: ['id', 'name', 'added_by'], check: {} }),
    perm('update', 'sales', { columns: ['name'], filter: { added_by: 'X-Engine-User-Id' } }),
    perm('insert', 'restricted', { columns: ['id', 'name', 'added_by'], check: {} }),
    perm('update', 'restricted', { columns: [], filter: {} }),
    perm('select', 'restricted', { columns: ['id', 'name'], filter: {} }),
  ] });
} });
const rows = async (): Promise<unknown> => (await e.sql('SELECT id, name, added_by FROM lead ORDER BY id')).result;
const upsert = (columns: string, where = '') =>
  `mutation { insert_lead(objects: [{id: 1, name: "uno", added_by: "sam"}], on_conflict: {constraint: lead_pkey, update_columns: ${columns}${where}}) { affected_rows } }`;

describe('upserts as the incumbent offers them', () => {
  it('a role without a select permission upserts through its update filter; on_conflict has no where', async () => {
    expect(await q(e, upsert('[name]'), as('sales', 'kim'))).toEqual({ data: { insert_lead: { affected_rows: 0 } } });
    expect(await q(e, upsert('[name]'), as('sales', 'sam'))).toEqual({ data: { insert_lead: { affected_rows: 1 } } });
    expect(await rows()).toEqual([['id', 'name', 'added_by'], ['1', 'uno', 'sam'], ['2', 'two', 'kim']]);
    expect(await q(e, '{ __type(name: "lead_on_conflict") { inputFields { name } } }', as('sales')))
      .toEqual({ data: { __type: { inputFields: [{ name: 'constraint' }, { name: 'update_columns' }] } } });
    expect(await q(e, upsert('[name]', ', where: {id: {_eq: 1}}'), as('sales', 'sam')))
      .toEqual(gqlErr('field "where" not found in type: \'lead_on_conflict\'', '$.selectionSet.insert_lead.args.on_conflict.where', 'validation-failed'));
  });

  it('the placeholder update column is an error; an empty list does nothing', async () => {
    const before = await e.state();
    const before2 = await rows();
    expect(await q(e, upsert('[_PLACEHOLDER]'), as('restricted')))
      .toEqual(gqlErr('erroneous column name', '$.selectionSet.insert_lead.args.on_conflict', 'validation-failed'));
    expect(await e.state()).toEqual(before);
    expect(await rows()).toEqual(before2);
    expect(await q(e, upsert('[]'), as('restricted'))).toEqual({ data: { insert_lead: { affected_rows: 0 } } });
    expect(await rows()).toEqual(before2);
  });
});
