import { createHash } from 'node:crypto';
import type { BatchStatement, Database } from '../../../db/database.js';
import { VERSION_SQL } from '../../catalog.js';
import type { RootPlan } from '../plan/index.js';

/** A live query's compiled statements and parameters; `plans` is the plan cache's array, shared by its cohorts. */
export interface LivePlan {
  db: Database;
  /** The resource_version it was planned at: a batch that reads another one is run again through handle. */
  version: number;
  plans: Extract<RootPlan, { kind: 'sql' }>[];
  args: Map<string, (string | null)[]>;
}

/** Most cohorts in one statement (the incumbent's batch size). */
export const MAX_BATCH = 100;

/**
 * A compiled statement made to serve a batch of cohorts at once (issue 32.2): every parameter of the statement is
 * written `$n::type` (compile/ casts each one), so `$n` becomes the n-th value of the cohort's row of a JSON array of
 * parameter lists, unnested WITH ORDINALITY and joined LATERAL; each row answers its cohort's `root`. Null when a
 * parameter is not so written: the cohorts then run one by one.
 */
export function multiplexSql(sql: string): string | null {
  const inner = sql.replace(/\$(\d+)(?=::)/g, (_, n: string) => `(_engine_c.v->>${Number(n) - 1})`);
  if (/\$\d/.test(inner)) return null;
  return `SELECT _engine_c.i::int AS i, _engine_q.root FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS _engine_c(v, i) `
    + `LEFT JOIN LATERAL (${inner}) AS _engine_q ON true`;
}

class Stale extends Error {}

/**
 * Runs the statements of one live query shape for several cohorts' parameters: one statement per root field for the
 * whole batch, in one read-only snapshot that reads the stored resource_version first. Returns each cohort's body, in
 * the form the service answers (`{"data":{…}}`), or null when the plan is stale or cannot be multiplexed.
 */
export async function runBatch(lp: LivePlan, args: Map<string, (string | null)[]>[]): Promise<string[] | null> {
  const statements: BatchStatement[] = [];
  for (const p of lp.plans) {
    const sql = multiplexSql(p.sql);
    if (sql === null) return null;
    const params = [JSON.stringify(args.map((a) => a.get(p.key) ?? []))];
    statements.push({ sql, params, name: `engine_live_${createHash('sha256').update(sql).digest('hex').slice(0, 32)}` });
  }
  let results;
  try {
    results = await lp.db.batch(statements, {
      readOnlySnapshot: true, utc: true, first: VERSION_SQL,
      begun: (first) => {
        if (Number(first[0]?.['v'] ?? 0) !== lp.version) throw new Stale();
      },
    });
  } catch (e) {
    if (e instanceof Stale) return null;
    throw e;
  }
  const roots = lp.plans.map((_, s) => {
    const byCohort = new Map<number, string | null>();
    for (const row of results[s] ?? []) byCohort.set(Number(row['i']), (row['root'] as string | null | undefined) ?? null);
    return byCohort;
  });
  return args.map((_, j) => `{"data":{${lp.plans.map((p, s) => `${JSON.stringify(p.key)}:${roots[s]?.get(j + 1) ?? 'null'}`).join(',')}}}`);
}
