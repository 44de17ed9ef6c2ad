// Issue 2: replace_metadata of a 1,000-table document (2 relationships each) and export_metadata of it.
// Goal: replace ≤ 1 s, export ≤ 100 ms, p50 over 5 runs, on the embedded PGlite and on PostgreSQL.
import { benchEngine, metadataDoc, p50, report, schemaSql, time } from './lib.mjs';

const TABLES = 1000;
const RUNS = 5;

export async function run() {
  const ratios = {};
  const doc = metadataDoc(TABLES);
  for (const kind of ['pglite', 'postgres']) {
    const e = await benchEngine(kind);
    try {
      await e.query({ type: 'run_sql', args: { sql: schemaSql(TABLES) } });
      const replace = [];
      const exportTimes = [];
      for (let i = 0; i < RUNS; i++) {
        // Alternate empty and full metadata so that every measured replace does the whole work.
        await e.query({ type: 'clear_metadata', args: {} });
        replace.push(await time(() => e.query({ type: 'replace_metadata', args: doc })));
        exportTimes.push(await time(() => e.query({ type: 'export_metadata', args: {} })));
      }
      const exported = JSON.parse((await e.query({ type: 'export_metadata', args: {} })).text);
      if (exported.tables.length !== TABLES) throw new Error('export does not hold every table');
      ratios[kind] = {
        replace: report(`${kind}: replace_metadata ${TABLES} tables x 2 relationships`, p50(replace), 1000),
        export: report(`${kind}: export_metadata ${TABLES} tables`, p50(exportTimes), 100),
        replaceMs: p50(replace),
        exportMs: p50(exportTimes),
      };
    } finally {
      await e.close();
    }
  }
  console.log(`pglite/postgres: replace ${(ratios.pglite.replaceMs / ratios.postgres.replaceMs).toFixed(2)}x, export ${(ratios.pglite.exportMs / ratios.postgres.exportMs).toFixed(2)}x`);
  return ratios;
}
