import type { Queryable } from '../db/database.js';
import { EVENT_OPS } from '../metadata/kinds/event-triggers.js';
import { eventTriggerJson } from '../metadata/kinds/event-triggers.js';
import type { ColumnList, EventTrigger, QualifiedName } from '../metadata/types.js';
import { eventTriggerTables } from '../metadata/trigger-index.js';
import { VersionedMap } from '../metadata/versioned-map.js';
import type { SchemaCache } from './schema-cache.js';

/**
 * The database side of event triggers (engine-api.md §4.7.1): per operation a function
 * engine_catalog."notify_engine_<name>_<OP>"() and an AFTER … FOR EACH ROW trigger of the same name.
 * DDL cannot take parameters, so the statements are assembled by PostgreSQL's own format() (%I, %L) from
 * bound values: no identifier or value is ever pasted into SQL text here.
 */

interface Installed {
  table: QualifiedName;
  trigger: EventTrigger;
  /** Canonical JSON of what the database triggers depend on: a change means reinstall. */
  signature: string;
}

const OPS = { insert: 'INSERT', update: 'UPDATE', delete: 'DELETE' } as const;
export const triggerName = (name: string, op: string): string => `notify_engine_${name}_${op}`;

/** The consistent event triggers of a cache (of the named tables only, when given), by name. */
export function installedTriggers(cache: SchemaCache, keys?: Iterable<string>): Map<string, Installed> {
  const out = new Map<string, Installed>();
  const tables = keys ? [...keys].map((k) => cache.tables.get(k)).filter((rt) => rt !== undefined) : cache.tables.values();
  for (const rt of tables) {
    for (const et of rt.entry.event_triggers) {
      if (!rt.eventTriggers.has(et.name)) continue;
      const def = eventTriggerJson(et)['definition'];
      out.set(et.name, { table: rt.entry.table, trigger: et, signature: JSON.stringify([rt.entry.table, def]) });
    }
  }
  return out;
}

/** `data` of the row, restricted to the payload columns: to_jsonb keeps no column dependency on the table. */
const rowJson = (row: 'NEW' | 'OLD', payload: ColumnList | undefined): [string, unknown[]] =>
  payload === undefined || payload === '*'
    ? [`to_jsonb(${row})`, []]
    : [`(SELECT coalesce(jsonb_object_agg(e.key, e.value), '{}'::jsonb) FROM jsonb_each(to_jsonb(${row})) e WHERE e.key = ANY(%L::text[]))`, [`{${payload.map((c) => `"${c.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`]];

/** A DDL statement to be assembled by PostgreSQL's format(): the template and its (bound) arguments. */
interface Ddl {
  template: string;
  /** Bound values, or nested statements whose formatted text is the argument (a function body). */
  args: (unknown | Ddl)[];
}

const isDdl = (v: unknown): v is Ddl => typeof v === 'object' && v !== null && 'template' in v && 'args' in v;

/** Has PostgreSQL's format() fill every template with its bound arguments, in one round trip. */
async function formatAll(tx: Queryable, ddl: Ddl[]): Promise<string[]> {
  if (ddl.length === 0) return [];
  const params: unknown[] = [];
  const bind = (v: unknown): string => {
    if (isDdl(v)) return call(v);
    params.push(v);
    return `$${params.length}::text`;
  };
  const call = (d: Ddl): string => `format(${[bind(d.template), ...d.args.map(bind)].join(', ')})`;
  const calls = ddl.map(call);
  const rows = await tx.query<{ s: string[] }>(`SELECT ARRAY[${calls.join(', ')}]::text[] AS s`, params);
  return rows[0]?.s ?? [];
}

/** Assembles the statements and runs them as one script. */
async function runDdl(tx: Queryable, ddl: Ddl[]): Promise<void> {
  const statements = await formatAll(tx, ddl);
  if (statements.length > 0) await tx.runScript(statements.join(';\n'));
}

/** The function body is itself built by a nested format() so that names inside it are quoted literals. */
function installDdl(it: Installed): Ddl[] {
  const bodies: Ddl[] = [];
  const ops: { OP: string; name: string; when: string; whenArgs: unknown[] }[] = [];
  for (const op of EVENT_OPS) {
    const spec = it.trigger.definition[op];
    if (!spec) continue;
    const OP = OPS[op];
    const name = triggerName(it.trigger.name, OP);
    const [newSql, newArgs] = op === 'delete' ? ['NULL', []] : rowJson('NEW', spec.payload);
    const [oldSql, oldArgs] = op === 'insert' ? ['NULL', []] : rowJson('OLD', spec.payload);
    bodies.push({
      template: `BEGIN PERFORM engine_catalog.insert_event_log(TG_TABLE_SCHEMA::text, TG_TABLE_NAME::text, %L, TG_OP, ` +
        `jsonb_build_object('old', ${oldSql}, 'new', ${newSql})); RETURN NULL; END`,
      args: [it.trigger.name, ...oldArgs, ...newArgs],
    });
    let when = '';
    const whenArgs: unknown[] = [];
    if (op === 'update') {
      // to_jsonb keeps the trigger free of column dependencies, so dropping a listened column stays the
      // engine's decision (dependency-error or cascade), not a PostgreSQL error.
      if (spec.columns === '*') when = 'WHEN (to_jsonb(OLD) IS DISTINCT FROM to_jsonb(NEW))';
      else {
        when = `WHEN (${spec.columns.map(() => '(to_jsonb(OLD) -> %L) IS DISTINCT FROM (to_jsonb(NEW) -> %L)').join(' OR ')})`;
        for (const c of spec.columns) whenArgs.push(c, c);
      }
    }
    ops.push({ OP, name, when, whenArgs });
  }
  return ops.flatMap((o, i) => [
    { template: 'CREATE OR REPLACE FUNCTION engine_catalog.%I() RETURNS trigger LANGUAGE plpgsql AS %L', args: [o.name, bodies[i]] },
    { template: `CREATE TRIGGER %I AFTER ${o.OP} ON %I.%I FOR EACH ROW ${o.when} EXECUTE FUNCTION engine_catalog.%I()`,
      args: [o.name, it.table.schema, it.table.name, ...o.whenArgs, o.name] },
  ]);
}

/** Installs the database triggers of the given event triggers: two round trips whatever their number. */
async function install(tx: Queryable, items: Installed[]): Promise<void> {
  await runDdl(tx, items.flatMap(installDdl));
}

/** Drops the database triggers and functions of the named event triggers, wherever their tables now are. */
async function drop(tx: Queryable, names: string[]): Promise<void> {
  if (names.length === 0) return;
  const all = names.flatMap((n) => Object.values(OPS).map((op) => triggerName(n, op)));
  const found = await tx.query<{ tg: string; s: string; t: string }>(
    `SELECT t.tgname AS tg, n.nspname AS s, c.relname AS t FROM pg_trigger t
       JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE NOT t.tgisinternal AND t.tgname = ANY($1::text[])`, [all]);
  const fns = await tx.query<{ f: string }>(
    `SELECT p.proname AS f FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = 'engine_catalog' AND p.proname = ANY($1::text[])`, [all]);
  await runDdl(tx, [
    ...found.map((f) => ({ template: 'DROP TRIGGER IF EXISTS %I ON %I.%I', args: [f.tg, f.s, f.t] })),
    ...fns.map((f) => ({ template: 'DROP FUNCTION IF EXISTS engine_catalog.%I()', args: [f.f] })),
  ]);
}

/** Every engine trigger present in the database (for a full reinstall). */
async function presentTriggerNames(tx: Queryable): Promise<string[]> {
  const rows = await tx.query<{ n: string }>(
    `SELECT DISTINCT regexp_replace(p.proname, '^notify_engine_(.*)_(INSERT|UPDATE|DELETE)$', '\\1') AS n
       FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = 'engine_catalog' AND p.proname ~ '^notify_engine_.*_(INSERT|UPDATE|DELETE)$'`);
  return rows.map((r) => r.n);
}

/**
 * Brings the database triggers from `before` to `after` in the request's transaction; with `full`, drops
 * every engine trigger and installs all consistent ones. Then applies the archiving rule (§4.7.2).
 */
export async function syncTriggers(tx: Queryable, before: SchemaCache, after: SchemaCache, full: boolean): Promise<void> {
  // Resolved tables are shared between versions of the cache: only those replaced since `before` can differ.
  const changed = full ? undefined : VersionedMap.changedKeys(before.tables, after.tables) ?? undefined;
  const was = installedTriggers(before, changed);
  const now = installedTriggers(after, changed);
  const toDrop = full ? [...new Set([...was.keys(), ...(await presentTriggerNames(tx))])]
    : [...was.keys()].filter((n) => was.get(n)?.signature !== now.get(n)?.signature);
  const toInstall = [...now.values()].filter((it) => full || was.get(it.trigger.name)?.signature !== it.signature);
  await drop(tx, toDrop);
  await install(tx, toInstall);
}

/**
 * The archiving rule (§4.7.2), applied at the commit of every writing request: events whose trigger is no
 * longer in the metadata are archived. The distinct names of unarchived events are read by a loose index scan
 * of a partial index, so the cost is the number of triggers with live events, not the size of event_log.
 */
export async function archiveOrphanEvents(tx: Queryable, cache: SchemaCache): Promise<void> {
  const rows = await tx.query<{ n: string }>(`
    WITH RECURSIVE names(n) AS (
      (SELECT trigger_name FROM engine_catalog.event_log WHERE NOT archived ORDER BY trigger_name LIMIT 1)
      UNION ALL
      SELECT (SELECT e.trigger_name FROM engine_catalog.event_log e
               WHERE NOT e.archived AND e.trigger_name > names.n ORDER BY e.trigger_name LIMIT 1)
        FROM names WHERE names.n IS NOT NULL)
    SELECT n FROM names WHERE n IS NOT NULL`);
  if (rows.length === 0) return;
  const known = eventTriggerTables(cache.metadata);
  const orphans = rows.map((r) => r.n).filter((n) => !known.has(n));
  if (orphans.length > 0) {
    await tx.query('UPDATE engine_catalog.event_log SET archived = true WHERE NOT archived AND trigger_name = ANY($1::text[])', [orphans]);
  }
}
