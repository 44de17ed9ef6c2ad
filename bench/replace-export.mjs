// Issue 2: replace_metadata of a 1,000-table document (2 relationships each) and export_metadata of it.
// Goal: replace ≤ 1 s, export ≤ 100 ms, p50 over 5 runs, on the embedded PGlite and on PostgreSQL.
import { benchEngine, compareRow, count, goalRow, metadataDoc, p50, progress, schemaSql, time } from './lib.mjs';

const GROUP = 'replace/export';
export const SIZES = { full: { tables: 1000, runs: 5 }, quick: { tables: 200, runs: 2 } };

/** Adds its rows through `add`; `kinds` are the databases to run on ('pglite', 'postgres'). */
export async function run({ quick = false, kinds = ['pglite', 'postgres'], add }) {
  const { tables, runs } = quick ? SIZES.quick : SIZES.full;
  const figures = {};
  const doc = metadataDoc(tables);
  for (const kind of kinds) {
    progress(`${GROUP}: ${kind}, ${count(tables)} tables, ${runs} runs`);
    const e = await benchEngine(kind);
    try {
      await e.query({ type: 'run_sql', args: { sql: schemaSql(tables) } });
      const replace = [];
      const exportTimes = [];
      for (let i = 0; i < runs; i++) {
        // Alternate empty and full metadata so that every measured replace does the whole work.
        await e.query({ type: 'clear_metadata', args: {} });
        replace.push(await time(() => e.query({ type: 'replace_metadata', args: doc })));
        exportTimes.push(await time(() => e.query({ type: 'export_metadata', args: {} })));
      }
      const exported = JSON.parse((await e.query({ type: 'export_metadata', args: {} })).text);
      if (exported.tables.length !== tables) throw new Error('export does not hold every table');
      figures[kind] = { replace: p50(replace), export: p50(exportTimes) };
      add(goalRow(GROUP, `replace_metadata, ${count(tables)} tables × 2 relationships`, kind, figures[kind].replace, 1000));
      add(goalRow(GROUP, `export_metadata, ${count(tables)} tables × 2 relationships`, kind, figures[kind].export, 100));
    } finally {
      await e.close();
    }
  }
  if (figures.pglite && figures.postgres) {
    for (const op of ['replace', 'export']) {
      add(compareRow(GROUP, `${op}_metadata, ${count(tables)} tables: pglite vs postgres`, 'both',
        figures.pglite[op], figures.postgres[op], 'none (information)', null));
    }
  }
}
