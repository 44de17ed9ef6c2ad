import fc from 'fast-check';
import { GraphQLSchema, validateSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { buildRoleSchema, liveSchemaOf } from '../../src/server/graphql/schema/index.js';
import { useTestEngine } from '../helpers/engine.js';
import { as, gql } from './graphql-fixture.js';

// Issue 27 point 3 as a property: whatever metadata the engine stores (consistent or not, from a pool of objects
// chosen to collide: tables named like another table's generated types, custom names, columns named true/false/null,
// char(n) keys, enum and row types named like tables, functions with row-typed arguments, computed fields whose
// F_args are taken, inherited roles), every role's schema builds, passes graphql-js validation and answers a request.

const SQL = `
CREATE TYPE mood AS ENUM ('ok', 'true', 'bad-name');
CREATE TABLE a (id char(3) PRIMARY KEY, "true" boolean, "null" text, m mood, n numeric(10,2), CONSTRAINT "false" UNIQUE ("null"));
CREATE TABLE b (id integer PRIMARY KEY, a_id char(3) REFERENCES a (id), t text);
CREATE TABLE a_aggregate (id integer PRIMARY KEY);
CREATE TABLE f_args (id integer PRIMARY KEY);
CREATE TABLE mood_tbl (value text PRIMARY KEY);
INSERT INTO mood_tbl VALUES ('null'), ('fine');
CREATE FUNCTION f(r a, k integer) RETURNS integer STABLE LANGUAGE sql AS $$ SELECT k $$;
CREATE FUNCTION two(r a, o b) RETURNS text STABLE LANGUAGE sql AS $$ SELECT 'x' $$;
CREATE FUNCTION fetch_a(s text, r a) RETURNS SETOF a STABLE LANGUAGE sql AS $$ SELECT * FROM a $$;
CREATE FUNCTION search_b(s text, r a DEFAULT NULL) RETURNS SETOF b STABLE LANGUAGE sql AS $$ SELECT * FROM b $$;
CREATE FUNCTION b_rows(r b, k text) RETURNS SETOF a STABLE LANGUAGE sql AS $$ SELECT * FROM a $$;
CREATE FUNCTION a_by_pk(s text) RETURNS SETOF a STABLE LANGUAGE sql AS $$ SELECT * FROM a $$;
`;

const e = useTestEngine({ setup: async (t) => t.sql(SQL) });

const ROLES = ['admin', 'r1', 'r2', 'r12', 'nobody'];
const COLUMNS: Record<string, string[]> = { a: ['id', 'true', 'null', 'm', 'n'], b: ['id', 'a_id', 't'], a_aggregate: ['id'], f_args: ['id'], mood_tbl: ['value'] };
const CFS: Record<string, { name: string; definition: { function: string; table_argument?: string } }[]> = {
  a: [{ name: 'fk', definition: { function: 'f' } }, { name: 'two', definition: { function: 'two' } }, { name: 'true', definition: { function: 'f' } }],
  b: [{ name: 'rows', definition: { function: 'b_rows' } }],
};
const CUSTOM = fc.constantFrom(undefined, 'b', 'a_aggregate', 'f', 'mood', 'x_args');
const PERM = (table: string) => fc.record({
  columns: fc.oneof(fc.constant('*' as const), fc.subarray(COLUMNS[table] as string[])),
  filter: fc.constantFrom({}, { id: { _is_null: false } }, { id: { _eq: 'X-Engine-Id' } }),
  allow_aggregations: fc.boolean(),
  computed_fields: fc.subarray((CFS[table] ?? []).map((c) => c.name)),
});
const TABLE = (name: string) => fc.record({
  tracked: fc.boolean(),
  custom: CUSTOM,
  cfs: fc.subarray(CFS[name] ?? []),
  r1: fc.option(PERM(name)), r2: fc.option(PERM(name)),
  insert: fc.boolean(), update: fc.boolean(), isEnum: fc.boolean(),
});
const METADATA = fc.record({
  tables: fc.record(Object.fromEntries(Object.keys(COLUMNS).map((n) => [n, TABLE(n)]))),
  functions: fc.subarray(['fetch_a', 'search_b', 'a_by_pk', 'b_rows']),
  rel: fc.boolean(),
});

type Meta = typeof METADATA extends fc.Arbitrary<infer T> ? T : never;

function document(spec: Meta): unknown {
  const tables = Object.entries(spec.tables).filter(([, t]) => t.tracked).map(([name, t]) => {
    // A permission names only computed fields the table has (else the permission alone is inconsistent).
    const perms = (['r1', 'r2'] as const).flatMap((role) => {
      const p = t[role];
      return p ? [{ role, permission: { ...p, computed_fields: p.computed_fields.filter((c) => t.cfs.some((x) => x.name === c)) } }] : [];
    });
    return {
      table: { schema: 'public', name },
      ...(name === 'mood_tbl' && t.isEnum ? { is_enum: true } : {}),
      ...(t.custom ? { configuration: { custom_name: t.custom } } : {}),
      ...(name === 'b' && spec.rel ? { object_relationships: [{ name: 'a', using: { foreign_key_constraint_on: 'a_id' } }] } : {}),
      ...(t.cfs.length > 0 ? { computed_fields: t.cfs } : {}),
      ...(perms.length > 0 ? { select_permissions: perms } : {}),
      ...(t.insert ? { insert_permissions: [{ role: 'r1', permission: { columns: '*', check: {} } }] } : {}),
      ...(t.update ? { update_permissions: [{ role: 'r2', permission: { columns: COLUMNS[name], filter: {} } }] } : {}),
    };
  });
  return {
    version: 2, tables,
    functions: spec.functions.map((name) => ({ function: { schema: 'public', name } })),
    inherited_roles: [{ role_name: 'r12', role_set: ['r1', 'r2'] }],
  };
}

describe('every role\'s schema builds from any stored metadata', () => {
  it('property: random metadata over colliding objects', async () => {
    await fc.assert(fc.asyncProperty(METADATA, async (m) => {
      const doc = document(m);
      const r = await e.query({ type: 'replace_metadata', args: { metadata: doc, allow_inconsistent_metadata: true } });
      expect(r.status, r.text).toBe(200);
      for (const role of ROLES) {
        const s = buildRoleSchema(e.engine.schemaCache, role);
        expect(validateSchema(new GraphQLSchema({ ...s.toConfig(), assumeValid: false })).map(String)).toEqual([]);
        // The schema subscriptions run on (issue 32) is as valid.
        const live = liveSchemaOf(s);
        if (live) expect(validateSchema(new GraphQLSchema({ ...live.toConfig(), assumeValid: false })).map(String)).toEqual([]);
        const reply = await gql(e, { query: '{ __typename }' }, role === 'admin' ? {} : { ...as(role), 'x-engine-id': 'abc' });
        expect(reply.status, reply.text).toBe(200);
        expect(reply.body).toEqual({ data: { __typename: 'query_root' } });
      }
    }), { numRuns: 40 });
  }, 240_000);
});
