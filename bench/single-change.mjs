// Issue 3: the cost of one change must not grow with the metadata. p50 latency of one create_select_permission
// and one create_event_trigger with 100 and 1,000 tracked tables, on PGlite and PostgreSQL. Goal ≤ 10 ms each.
import { benchEngine, metadataDoc, p50, report, schemaSql, time } from './lib.mjs';

const RUNS = 21;

async function measure(kind, tables) {
  const e = await benchEngine(kind);
  try {
    await e.query({ type: 'run_sql', args: { sql: schemaSql(tables) } });
    await e.query({ type: 'replace_metadata', args: metadataDoc(tables) });
    const perm = [];
    const trig = [];
    for (let i = 0; i < RUNS; i++) {
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

export async function run() {
  for (const kind of ['pglite', 'postgres']) {
    const small = await measure(kind, 100);
    const large = await measure(kind, 1000);
    report(`${kind}: create_select_permission at 100 tables`, small.perm, 10);
    report(`${kind}: create_select_permission at 1000 tables`, large.perm, 10);
    report(`${kind}: create_event_trigger at 100 tables`, small.trig, 10);
    report(`${kind}: create_event_trigger at 1000 tables`, large.trig, 10);
    console.log(`${kind}: 1000/100 tables ratio: permission ${(large.perm / small.perm).toFixed(2)}x, event trigger ${(large.trig / small.trig).toFixed(2)}x`);
  }
}
