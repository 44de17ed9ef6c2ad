import type { Queryable } from '../db/database.js';
import { EVENT_OPS } from '../metadata/kinds/event-triggers.js';
import { eventTriggerJson } from '../metadata/kinds/event-triggers.js';
import type { ColumnList, EventTrigger, QualifiedName } from '../metadata/types.js';
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

/** The consistent event triggers of a cache, by name. */
export function installedTriggers(cache: SchemaCache): Map<string, Installed> {
  const out = new Map<string, Installed>();
  for (const rt of cache.tables.values()) {
    for (const et of rt.entry.event_triggers) {
      if (!rt.eventTriggers.has(et.name)) continue;
      const def = eventTriggerJson(et)['definition'];
      out.set(et.name, { table: rt.entry.table, trigger: et, signature: JSON.stringify([rt.entry.table, def]) });
    }
  }
  return out;
}

/** Names of every event trigger in the metadata, consistent or not: their events are kept, the rest archived. */
export function metadataTriggerNames(cache: SchemaCache): Set<string> {
  const names = new Set<string>();
  for (const entry of cache.metadata.tables.values()) for (const et of entry.event_triggers) names.add(et.name);
  return names;
}

/** `data` of the row, restricted to the payload columns: to_jsonb keeps no column dependency on the table. */
const rowJson = (row: 'NEW' | 'OLD', payload: ColumnList | undefined): [string, unknown[]] =>
  payload === undefined || payload === '*'
    ? [`to_jsonb(${row})`, []]
    : [`(SELECT coalesce(jsonb_object_agg(e.key, e.value), '{}'::jsonb) FROM jsonb_each(to_jsonb(${row})) e WHERE e.key = ANY(%L::text[]))`, [`{${payload.map((c) => `"${c.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`]];

async function formatSql(tx: Queryable, template: string, args: unknown[]): Promise<string> {
  const placeholders = args.map((_, i) => `$${i + 2}::text`).join(', ');
  const rows = await tx.query<{ sql: string }>(`SELECT format($1::text${placeholders ? `, ${placeholders}` : ''}) AS sql`, [template, ...args]);
  return rows[0]?.sql ?? '';
}

async function install(tx: Queryable, it: Installed): Promise<void> {
  for (const op of EVENT_OPS) {
    const spec = it.trigger.definition[op];
    if (!spec) continue;
    const OP = OPS[op];
    const name = triggerName(it.trigger.name, OP);
    const [newSql, newArgs] = op === 'delete' ? ['NULL', []] : rowJson('NEW', spec.payload);
    const [oldSql, oldArgs] = op === 'insert' ? ['NULL', []] : rowJson('OLD', spec.payload);
    const body = await formatSql(tx,
      `BEGIN PERFORM engine_catalog.insert_event_log(TG_TABLE_SCHEMA::text, TG_TABLE_NAME::text, %L, TG_OP, ` +
      `jsonb_build_object('old', ${oldSql}, 'new', ${newSql})); RETURN NULL; END`,
      [it.trigger.name, ...oldArgs, ...newArgs]);
    await tx.runScript(await formatSql(tx, 'CREATE OR REPLACE FUNCTION engine_catalog.%I() RETURNS trigger LANGUAGE plpgsql AS %L', [name, body]));
    let when = '';
    const whenArgs: unknown[] = [];
    if (op === 'update') {
      if (spec.columns === '*') when = 'WHEN (to_jsonb(OLD) IS DISTINCT FROM to_jsonb(NEW))';
      else {
        when = `WHEN (${spec.columns.map(() => '(to_jsonb(OLD) -> %L) IS DISTINCT FROM (to_jsonb(NEW) -> %L)').join(' OR ')})`;
        for (const c of spec.columns) whenArgs.push(c, c);
      }
    }
    await tx.runScript(await formatSql(tx,
      `CREATE TRIGGER %I AFTER ${OP} ON %I.%I FOR EACH ROW ${when} EXECUTE FUNCTION engine_catalog.%I()`,
      [name, it.table.schema, it.table.name, ...whenArgs, name]));
  }
}

/** Drops the database triggers and functions of the named event triggers, wherever their tables now are. */
async function drop(tx: Queryable, names: string[]): Promise<void> {
  if (names.length === 0) return;
  const all = names.flatMap((n) => Object.values(OPS).map((op) => triggerName(n, op)));
  const found = await tx.query<{ tg: string; s: string; t: string }>(
    `SELECT t.tgname AS tg, n.nspname AS s, c.relname AS t FROM pg_trigger t
       JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE NOT t.tgisinternal AND t.tgname = ANY($1::text[])`, [all]);
  for (const f of found) await tx.runScript(await formatSql(tx, 'DROP TRIGGER IF EXISTS %I ON %I.%I', [f.tg, f.s, f.t]));
  const fns = await tx.query<{ f: string }>(
    `SELECT p.proname AS f FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = 'engine_catalog' AND p.proname = ANY($1::text[])`, [all]);
  for (const f of fns) await tx.runScript(await formatSql(tx, 'DROP FUNCTION IF EXISTS engine_catalog.%I()', [f.f]));
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
  const was = installedTriggers(before);
  const now = installedTriggers(after);
  const toDrop = full ? [...new Set([...was.keys(), ...(await presentTriggerNames(tx))])]
    : [...was.keys()].filter((n) => was.get(n)?.signature !== now.get(n)?.signature);
  const toInstall = [...now.values()].filter((it) => full || was.get(it.trigger.name)?.signature !== it.signature);
  await drop(tx, toDrop);
  for (const it of toInstall) await install(tx, it);
  const names = metadataTriggerNames(after);
  const before_ = metadataTriggerNames(before);
  if (full || names.size !== before_.size || [...before_].some((n) => !names.has(n))) {
    await tx.query('UPDATE engine_catalog.event_log SET archived = true WHERE NOT archived AND NOT (trigger_name = ANY($1::text[]))', [[...names]]);
  }
}
