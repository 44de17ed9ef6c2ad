import { GraphQLSchema, validateSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { buildRoleSchema } from '../../src/server/graphql/schema/index.js';
import { useTestEngine } from '../helpers/engine.js';
import { as, q } from './graphql-fixture.js';

// Issue 27 point 4: columns and constraints named `true`, `false` or `null` (GraphQL reads those names as literals)
// keep their fields; only the generated enums leave them out (graphql-api.md §2.4), so no request fails.

const SQL = `
CREATE TABLE flag (id integer PRIMARY KEY, "true" boolean, "false" integer, "null" text, CONSTRAINT "null" UNIQUE ("null"));
CREATE TABLE only_literals ("true" integer PRIMARY KEY, "false" integer);
CREATE TABLE answer (value text PRIMARY KEY);
INSERT INTO answer VALUES ('true'), ('yes'), ('null');
CREATE TABLE vote (id integer PRIMARY KEY, choice text REFERENCES answer (value));
INSERT INTO flag VALUES (1, true, 10, 'a'), (2, false, 20, 'b');
INSERT INTO only_literals VALUES (1, 2);
INSERT INTO vote VALUES (1, 'yes'), (2, 'true');
`;

const e = useTestEngine({
  setup: async (t) => {
    await t.sql(SQL);
    const tbl = (name: string, extra: object = {}) => ({ table: { schema: 'public', name }, ...extra });
    await t.ok({ type: 'replace_metadata', args: { version: 2, tables: [
      tbl('flag', {
        select_permissions: [{ role: 'user', permission: { columns: '*', filter: {}, allow_aggregations: true } }],
        insert_permissions: [{ role: 'user', permission: { columns: '*', check: {} } }],
        update_permissions: [{ role: 'user', permission: { columns: ['true', 'false', 'null'], filter: {} } }],
      }),
      tbl('only_literals'), tbl('answer', { is_enum: true }), tbl('vote'),
    ] } });
  },
});

const enumValues = async (type: string, headers = {}) =>
  ((await q(e, `{ __type(name: "${type}") { enumValues { name } } }`, headers)) as { data: { __type: { enumValues: { name: string }[] } | null } })
    .data.__type?.enumValues.map((v) => v.name);

describe('columns named true, false and null', () => {
  it('every role\'s schema builds and validates', () => {
    for (const role of ['admin', 'user', 'nobody']) {
      const s = buildRoleSchema(e.engine.schemaCache, role);
      expect(validateSchema(new GraphQLSchema({ ...s.toConfig(), assumeValid: false })).map(String)).toEqual([]);
    }
  });

  it('the fields stay; the generated enums leave the names out', async () => {
    for (const h of [{}, as('user')]) {
      expect(await enumValues('flag_select_column', h)).toEqual(['id']);
      expect(await enumValues('flag_update_column', h)).toEqual(h === undefined || Object.keys(h).length === 0 ? ['id'] : ['_PLACEHOLDER']);
      expect(await enumValues('flag_constraint', h)).toEqual(['flag_pkey']);
    }
    expect(await enumValues('only_literals_select_column')).toEqual(['_PLACEHOLDER']);
    expect(await enumValues('only_literals_update_column')).toEqual(['_PLACEHOLDER']);
    expect(await enumValues('answer_enum')).toEqual(['yes']);
  });

  it('queries, filters, ordering, aggregates and mutations over them', async () => {
    expect(await q(e, `{ flag(where: {true: {_eq: true}, null: {_is_null: false}}, order_by: {false: desc}) { id true false null }
      flag_aggregate { aggregate { count sum { false } max { null } } } }`, as('user')))
      .toEqual({ data: {
        flag: [{ id: 1, true: true, false: 10, null: 'a' }],
        flag_aggregate: { aggregate: { count: 2, sum: { false: 30 }, max: { null: 'b' } } },
      } });
    expect(await q(e, '{ only_literals { true false } vote(order_by: {id: asc}) { id choice } }'))
      .toEqual({ data: { only_literals: [{ true: 1, false: 2 }], vote: [{ id: 1, choice: 'yes' }, { id: 2, choice: 'true' }] } });
    expect(await q(e, 'mutation { update_flag(where: {id: {_eq: 2}}, _set: {true: true, null: "c"}, _inc: {false: 1}) { returning { id true false null } } }', as('user')))
      .toEqual({ data: { update_flag: { returning: [{ id: 2, true: true, false: 21, null: 'c' }] } } });
    expect(await q(e, 'mutation { insert_flag_one(object: {id: 3, true: false, null: "z"}, on_conflict: {constraint: flag_pkey, update_columns: [id]}) { id } }'))
      .toEqual({ data: { insert_flag_one: { id: 3 } } });
    expect(await q(e, 'mutation { insert_only_literals_one(object: {true: 5, false: 6}) { true false } }'))
      .toEqual({ data: { insert_only_literals_one: { true: 5, false: 6 } } });
  });
});
