// Issue 13: the GraphQL API's schema costs at 1,000 tracked tables (each with two relationships and a select permission
// for role `user`), on PGlite and PostgreSQL: the cold build of one role's schema (goal ≤ 300 ms) and the full
// introspection query of the `graphql` package, warm (goal ≤ 150 ms); plus, for information, a query by primary key.
// Cold: every build is on a schema cache resolved afresh from the same metadata and catalog (untimed), so nothing
// cached per schema cache or per resolved table (name claims, columns, shared types) is reused from an earlier build.
// The PostGraphile peer comparison of the issue is not part of this file.
import { getIntrospectionQuery } from 'graphql';
import { buildRoleSchema } from '../dist/server/graphql/schema/index.js';
import { resolve } from '../dist/server/schema-cache.js';
import { benchEngine, count, goalRow, metadataDoc, p50, progress, schemaSql, time } from './lib.mjs';

const GROUP = 'graphql';
export const SIZES = { full: { tables: 1000, runs: 11 }, quick: { tables: 200, runs: 3 } };

function withUserPermissions(doc) {
  for (const t of doc.tables) {
    t.select_permissions = [{ role: 'user', permission: { columns: ['id', 'name'], filter: { parent: { name: { _eq: 'X-Engine-User-Id' } } }, allow_aggregations: true } }];
  }
  return doc;
}

async function gql(baseUrl, query, headers = {}, retried = false) {
  // The server closes idle keep-alive connections after 5 s; a request racing that close is retried once.
  const res = await fetch(`${baseUrl}/v1/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query }) }).catch((err) => {
    if (retried || err?.cause?.code !== 'ECONNRESET') throw err;
    return null;
  });
  if (res === null) return gql(baseUrl, query, headers, true);
  const text = await res.text();
  if (res.status !== 200 || text.startsWith('{"errors"')) throw new Error(`GraphQL failed: ${text.slice(0, 300)}`);
  return text;
}

async function measure(kind, tables, runs) {
  progress(`${GROUP}: ${kind}, ${count(tables)} tables, ${runs} runs`);
  const e = await benchEngine(kind);
  try {
    await e.query({ type: 'run_sql', args: { sql: schemaSql(tables) } });
    await e.query({ type: 'run_sql', args: { sql: 'INSERT INTO t0 (id, name) VALUES (1, \'a\')' } });
    await e.query({ type: 'replace_metadata', args: withUserPermissions(metadataDoc(tables)) });
    const cache = e.engine.schemaCache;
    const buildAdmin = [];
    const buildUser = [];
    const cold = (role) => {
      const fresh = resolve(cache.metadata, cache.catalog);
      return time(async () => buildRoleSchema(fresh, role));
    };
    for (let i = 0; i < runs; i++) {
      buildAdmin.push(await cold('admin'));
      buildUser.push(await cold('user'));
    }
    const introspection = getIntrospectionQuery();
    const user = { 'x-engine-role': 'user', 'x-engine-user-id': 'a' };
    await gql(e.baseUrl, introspection);
    const intro = [];
    for (let i = 0; i < runs; i++) intro.push(await time(() => gql(e.baseUrl, introspection)));
    await gql(e.baseUrl, introspection, user);
    const introUser = [];
    for (let i = 0; i < runs; i++) introUser.push(await time(() => gql(e.baseUrl, introspection, user)));
    const byPk = [];
    await gql(e.baseUrl, '{ t1_by_pk(id: 1) { id name parent { name } } }', user);
    for (let i = 0; i < runs * 10; i++) byPk.push(await time(() => gql(e.baseUrl, '{ t1_by_pk(id: 1) { id name parent { name } } }', user)));
    return { buildAdmin: p50(buildAdmin), buildUser: p50(buildUser), intro: p50(intro), introUser: p50(introUser), byPk: p50(byPk) };
  } finally {
    await e.close();
  }
}

/** Adds its rows through `add`; `kinds` are the databases to run on ('pglite', 'postgres'). */
export async function run({ quick = false, kinds = ['pglite', 'postgres'], add }) {
  const { tables, runs } = quick ? SIZES.quick : SIZES.full;
  for (const kind of kinds) {
    const m = await measure(kind, tables, runs);
    add(goalRow(GROUP, `cold schema build, role admin, ${count(tables)} tables`, kind, m.buildAdmin, 300));
    add(goalRow(GROUP, `cold schema build, role user, ${count(tables)} tables`, kind, m.buildUser, 300));
    add(goalRow(GROUP, `introspection query (warm), role admin, ${count(tables)} tables`, kind, m.intro, 150));
    add(goalRow(GROUP, `introspection query (warm), role user, ${count(tables)} tables`, kind, m.introUser, 150));
    add({ ...goalRow(GROUP, `query by pk with a relationship, role user (HTTP, plan cache hit)`, kind, m.byPk, 1000), goal: 'information', ratio: 0, pass: null });
  }
}
