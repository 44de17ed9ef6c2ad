// Issue 32: what the subscription root adds to a role's cold schema build at 1,000 tables (bench/graphql.mjs's
// project). CPU time of the build in this process (user + system), p50 of `runs`, so a loaded machine matters less.
// `ENGINE_DIST=/path/to/dist` builds with another build of the engine (e.g. one patched without the subscription
// root, to compare): `node bench/schema-subscription.mjs [tables] [runs]`.
import { pathToFileURL } from 'node:url';
import { benchEngine, metadataDoc, p50, schemaSql } from './lib.mjs';

const tables = Number(process.argv[2] ?? 1000);
const runs = Number(process.argv[3] ?? 11);
const dist = process.env.ENGINE_DIST ? pathToFileURL(`${process.env.ENGINE_DIST}/`).href : new URL('../dist/', import.meta.url).href;
const { buildRoleSchema } = await import(`${dist}server/graphql/schema/index.js`);
const { resolve } = await import(`${dist}server/schema-cache.js`);

const doc = metadataDoc(tables);
for (const t of doc.tables) {
  t.select_permissions = [{ role: 'user', permission: { columns: ['id', 'name'], filter: { parent: { name: { _eq: 'X-Engine-User-Id' } } }, allow_aggregations: true } }];
}
const cpuMs = (fn) => {
  const t0 = process.cpuUsage();
  fn();
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / 1000;
};
const e = await benchEngine('pglite');
try {
  await e.query({ type: 'run_sql', args: { sql: schemaSql(tables) } });
  await e.query({ type: 'replace_metadata', args: doc });
  const cache = e.engine.schemaCache;
  const out = {};
  for (const role of ['admin', 'user']) {
    const xs = [];
    for (let i = 0; i < runs; i++) {
      // Cold, as bench/graphql.mjs: a schema cache resolved afresh (untimed) for every build.
      const fresh = resolve(cache.metadata, cache.catalog);
      xs.push(cpuMs(() => buildRoleSchema(fresh, role)));
    }
    out[role] = Math.round(p50(xs));
  }
  console.log(JSON.stringify({ tables, runs, dist: process.env.ENGINE_DIST ?? 'dist', cpuMsP50: out }));
} finally {
  await e.close();
}
