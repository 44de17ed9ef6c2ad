// Issues 3 and 18: the cost of one change must not grow with the metadata. p50 latency of one create_select_permission
// and one create_event_trigger at 100, 1,000 and 10,000 tracked tables, measured as users run the engine: `engine serve`
// as its own process on a PGlite data directory and on PostgreSQL (in-memory PGlite, in this process, is an extra row,
// information only). Goal: ≤ 10 ms at 1,000 tables, and flat: the 10,000-table figure at most twice the 100-table one.
import { benchEngine, count, fmt, metadataDoc, p50, progress, schemaSql, time } from './lib.mjs';
import { startEngineProcess } from './engine-process.mjs';

const GROUP = 'one change';
const GOAL_MS = 10;
const FLAT = 2;
export const SIZES = { full: { sizes: [100, 1000, 10_000], runs: 21 }, quick: { sizes: [50, 200, 1000], runs: 5 } };

/** The engine of one configuration: `database` is the row's label, `start` answers { query, close }. */
const CONFIGS = {
  pglite: [
    { database: 'PGlite (data dir)', start: () => startEngineProcess('pglite'), judged: true },
    { database: 'PGlite (in memory)', start: () => benchEngine('pglite'), judged: false },
  ],
  postgres: [{ database: 'postgres', start: () => startEngineProcess('postgres'), judged: true }],
};

async function measure(config, tables, runs) {
  progress(`${GROUP}: ${config.database}, ${count(tables)} tables, ${runs} runs`);
  const e = await config.start();
  try {
    // One run_sql per 1,000 statements: 10,000 tables in one transaction exceed max_locks_per_transaction.
    const statements = schemaSql(tables).split(';\n');
    for (let i = 0; i < statements.length; i += 1000) {
      await e.query({ type: 'run_sql', args: { sql: statements.slice(i, i + 1000).join(';\n') } });
    }
    await e.query({ type: 'replace_metadata', args: metadataDoc(tables) });
    const perm = [];
    const trig = [];
    for (let i = 0; i < runs; i++) {
      const t = `t${(i * 7) % tables}`;
      perm.push(await time(() => e.query({
        type: 'create_select_permission',
        args: { table: t, role: `user${i}`, permission: { columns: ['id', 'name'], filter: { parent: { name: { _eq: 'X-Engine-User-Id' } }, id: { _gt: 0 } }, limit: 10 } },
      })));
      trig.push(await time(() => e.query({
        type: 'create_event_trigger',
        args: { name: `ev_${i}`, table: t, webhook: 'http://localhost:3000/events', insert: { columns: '*' }, update: { columns: ['name'], payload: ['id', 'name'] } },
      })));
    }
    return { perm: p50(perm), trig: p50(trig) };
  } finally {
    await e.close();
  }
}

/** One row: the three sizes as text, judged on the middle one (≤ 10 ms) and on largest / smallest (≤ 2×). */
function row(op, database, judged, sizes, values) {
  const [small, mid, large] = values;
  const flat = large / small;
  return {
    group: GROUP, figure: `${op} at ${sizes.map(count).join(' / ')} tables`, database, value: mid,
    text: `${values.map(fmt).join(' / ')} (${flat.toFixed(2)}×)`,
    goal: `≤ ${GOAL_MS} ms at ${count(sizes[1])}; ${count(sizes[2])} / ${count(sizes[0])} ≤ ${FLAT}×`,
    ratio: mid / GOAL_MS, pass: judged ? mid <= GOAL_MS && flat <= FLAT : null,
  };
}

/** Adds its rows through `add`; `kinds` are the databases to run on ('pglite', 'postgres'). */
export async function run({ quick = false, kinds = ['pglite', 'postgres'], add }) {
  const { sizes, runs } = quick ? SIZES.quick : SIZES.full;
  const only = process.env.BENCH_ONE_CHANGE_CONFIG;
  for (const config of kinds.flatMap((k) => CONFIGS[k] ?? []).filter((c) => !only || c.database.includes(only))) {
    const results = [];
    for (const n of sizes) results.push(await measure(config, n, runs));
    add(row('create_select_permission', config.database, config.judged, sizes, results.map((r) => r.perm)));
    add(row('create_event_trigger', config.database, config.judged, sizes, results.map((r) => r.trig)));
  }
}
