import { describe, expect, it } from 'vitest';
import { useTestEngine } from '../helpers/engine.js';
import { as, q } from './graphql-fixture.js';

// Issue 27 point 2: an inherited role's cell is visible only when some member role that selects the row also grants
// the column (computed field, relationship); elsewhere it is null — in the output, the aggregates, the filters,
// the ordering and distinct_on (so a hidden cell cannot be probed).

const SQL = `
CREATE TABLE owner (id integer PRIMARY KEY, name text);
CREATE TABLE item (id integer PRIMARY KEY, kind integer NOT NULL, a integer, b integer, owner_id integer REFERENCES owner (id));
CREATE TABLE note (id integer PRIMARY KEY, item_id integer REFERENCES item (id), body text);
CREATE FUNCTION item_secret(i item) RETURNS text STABLE LANGUAGE sql AS $$ SELECT 'secret ' || i.id $$;
INSERT INTO owner VALUES (1, 'Ann'), (2, 'Bob');
INSERT INTO item VALUES (1, 1, 10, 100, 1), (2, 2, 20, 200, 2), (3, 1, 30, 300, 2);
INSERT INTO note VALUES (1, 1, 'n1'), (2, 2, 'n2'), (3, 3, 'n3');
`;

const sel = (table: string, role: string, permission: object) => ({ role, permission, table });
const e = useTestEngine({
  setup: async (t) => {
    await t.sql(SQL);
    const perms = [
      sel('item', 'r1', { columns: ['id', 'a', 'owner_id'], computed_fields: ['secret'], filter: { kind: { _eq: 1 } }, allow_aggregations: true }),
      sel('item', 'r2', { columns: ['id', 'b'], filter: { kind: { _eq: 2 } }, allow_aggregations: true }),
      sel('owner', 'r1', { columns: ['id', 'name'], filter: {} }),
      sel('note', 'r2', { columns: ['id', 'body', 'item_id'], filter: {} }),
    ];
    const tables = ['owner', 'item', 'note'].map((name) => ({
      table: { schema: 'public', name },
      ...(name === 'item' ? {
        object_relationships: [{ name: 'owner', using: { foreign_key_constraint_on: 'owner_id' } }],
        array_relationships: [{ name: 'notes', using: { foreign_key_constraint_on: { table: 'note', column: 'item_id' } } }],
        computed_fields: [{ name: 'secret', definition: { function: 'item_secret' } }],
      } : {}),
      select_permissions: perms.filter((p) => p.table === name).map(({ role, permission }) => ({ role, permission })),
    }));
    await t.ok({ type: 'replace_metadata', args: { version: 2, tables, inherited_roles: [{ role_name: 'r12', role_set: ['r1', 'r2'] }, { role_name: 'r12n', role_set: ['r12'] }] } });
  },
});

const R12 = as('r12');

describe('inherited roles: cells of member roles', () => {
  it('columns, computed fields and relationships are null where no member granting them selects the row', async () => {
    for (const role of ['r12', 'r12n']) {
      expect(await q(e, '{ item(order_by: {id: asc}) { id a b secret owner { name } notes { body } } }', as(role))).toEqual({ data: { item: [
        { id: 1, a: 10, b: null, secret: 'secret 1', owner: { name: 'Ann' }, notes: [] },
        { id: 2, a: null, b: 200, secret: null, owner: null, notes: [{ body: 'n2' }] },
        { id: 3, a: 30, b: null, secret: 'secret 3', owner: { name: 'Bob' }, notes: [] },
      ] } });
    }
    expect(await q(e, '{ item_by_pk(id: 2) { a b } }', R12)).toEqual({ data: { item_by_pk: { a: null, b: 200 } } });
  });

  it('aggregates count only visible cells', async () => {
    expect(await q(e, '{ item_aggregate { aggregate { count c: count(columns: [b]) sum { a b } max { a b } } nodes { id b } } }', R12)).toEqual({ data: { item_aggregate: {
      aggregate: { count: 3, c: 1, sum: { a: 40, b: 200 }, max: { a: 30, b: 200 } },
      nodes: [{ id: 1, b: null }, { id: 2, b: 200 }, { id: 3, b: null }],
    } } });
  });

  it('filters, ordering and distinct_on see hidden cells as null', async () => {
    expect(await q(e, `{ hidden: item(where: {b: {_eq: 100}}) { id } shown: item(where: {b: {_is_null: false}}) { id }
      ordered: item(order_by: [{a: desc_nulls_last}, {id: asc}]) { id } owned: item(where: {owner: {name: {_eq: "Bob"}}}) { id }
      noted: item(where: {notes: {body: {_eq: "n1"}}}) { id } d: item(distinct_on: [a], order_by: [{a: asc}]) { id } }`, R12)).toEqual({ data: {
      hidden: [], shown: [{ id: 2 }], ordered: [{ id: 3 }, { id: 1 }, { id: 2 }], owned: [{ id: 3 }], noted: [], d: [{ id: 1 }, { id: 3 }, { id: 2 }],
    } });
  });

  it('a member role alone still sees its own cells; a role of its own is not redacted', async () => {
    expect(await q(e, '{ item(order_by: {id: asc}) { id a } }', as('r1'))).toEqual({ data: { item: [{ id: 1, a: 10 }, { id: 3, a: 30 }] } });
    await e.ok({ type: 'create_select_permission', args: { table: 'item', role: 'r12', permission: { columns: ['id', 'a', 'b'], filter: {} } } });
    expect(await q(e, '{ item(order_by: {id: asc}) { id a b } }', R12)).toEqual({ data: { item: [
      { id: 1, a: 10, b: 100 }, { id: 2, a: 20, b: 200 }, { id: 3, a: 30, b: 300 },
    ] } });
  });
});
