// Issue 3: the cost of one change must not grow with the metadata. p50 latency of one create_select_permission
// and one create_event_trigger with 100 and 1,000 tracked tables, on PGlite and PostgreSQL. Goal ≤ 10 ms each at
// 1,000 tables, shown beside the 100-table figure with the ratio 1,000 / 100.
import { benchEngine, compareRow, count, metadataDoc, p50, progress, schemaSql, time } from './lib.mjs';

const GROUP = 'one change';
const GOAL_MS = 10;
export const SIZES = { full: { small: 100, large: 1000, runs: 21 }, quick: { small: 50, large: 200, runs: 5 } };

async function measure(kind, tables, runs) {
  progress(`${GROUP}: ${kind}, ${count(tables)} tables, ${runs} runs`);
  const e = await benchEngine(kind);
  try {
    await e.query({ type: 'run_sql', args: { sql: schemaSql(tables) } });
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

/** Adds its rows through `add`; `kinds` are the databases to run on ('pglite', 'postgres'). */
export async function run({ quick = false, kinds = ['pglite', 'postgres'], add }) {
  const { small, large, runs } = quick ? SIZES.quick : SIZES.full;
  const goal = `≤ ${GOAL_MS} ms at ${count(large)}; ratio ${count(large)} / ${count(small)}`;
  for (const kind of kinds) {
    const s = await measure(kind, small, runs);
    const l = await measure(kind, large, runs);
    add(compareRow(GROUP, `create_select_permission, ${count(large)} vs ${count(small)} tables`, kind, l.perm, s.perm, goal, l.perm <= GOAL_MS));
    add(compareRow(GROUP, `create_event_trigger, ${count(large)} vs ${count(small)} tables`, kind, l.trig, s.trig, goal, l.trig <= GOAL_MS));
  }
}
