import { badRequest, parseFailed } from '../../errors.js';
import { at, obj, optBool, qualifiedName, req, str } from '../../metadata/reader.js';
import type { Json } from '../../metadata/json.js';
import { qnEqual } from '../../metadata/names.js';
import { parseEventTriggerArgs } from '../../metadata/kinds/event-triggers.js';
import { eventTriggerTables } from '../../metadata/trigger-index.js';
import type { EventTrigger, QualifiedName, TableEntry } from '../../metadata/types.js';
import { etId, etPrefix, etRecord } from '../kinds/event-triggers.js';
import type { OpContext } from '../context.js';
import { setSessionVariables } from './run-sql.js';
import { op, SUCCESS, type Operation } from './operation.js';
import { requireTracked, withEntry } from './table-objects.js';
import { LOCK_HELD } from '../workers/event-store.js';
import { EVENTS_CHANNEL } from '../catalog.js';

/** The table entry holding the named event trigger (names are unique across tables). */
export function findTrigger(ctx: OpContext, name: string): { entry: TableEntry; trigger: EventTrigger } | undefined {
  const key = eventTriggerTables(ctx.metadata).get(name);
  const entry = key === undefined ? undefined : ctx.metadata.tables.get(key);
  const trigger = entry?.event_triggers.find((e) => e.name === name);
  return entry && trigger ? { entry, trigger } : undefined;
}

const missing = (name: string) => badRequest('not-exists', '$.args.name', `event trigger "${name}" does not exist`);

const createEventTrigger: Operation<{ table: QualifiedName; trigger: EventTrigger; replace: boolean }> = {
  write: true,
  parse(args, path) {
    const o = obj(args, path);
    const trigger = parseEventTriggerArgs(o, path);
    return { table: qualifiedName(req(o, 'table', path), at(path, 'table')), trigger, replace: optBool(o, 'replace', path, false) };
  },
  async run(ctx, { table, trigger, replace }) {
    requireTracked(ctx, table);
    const existing = findTrigger(ctx, trigger.name);
    if (existing && !replace) throw badRequest('already-exists', '$.args.name', `event trigger with name "${trigger.name}" already exists`);
    if (!existing && replace) throw missing(trigger.name);
    if (existing && !qnEqual(existing.entry.table, table)) {
      throw badRequest('not-supported', '$.args.table', `cannot replace table or schema for trigger "${trigger.name}"`);
    }
    const md = withEntry(ctx, table, (entry) => ({
      event_triggers: [...entry.event_triggers.filter((e) => e.name !== trigger.name), trigger],
    }));
    ctx.apply(md, 'incremental', {
      id: etId(trigger.name), table, prefix: etPrefix(table, trigger.name), record: () => etRecord(table, trigger, ''),
    });
    return SUCCESS;
  },
};

const deleteEventTrigger: Operation<string> = {
  write: true,
  parse: (args, path) => str(req(obj(args, path), 'name', path), at(path, 'name')),
  async run(ctx, name) {
    const found = findTrigger(ctx, name);
    if (!found) throw missing(name);
    ctx.apply(withEntry(ctx, found.entry.table, (entry) => ({ event_triggers: entry.event_triggers.filter((e) => e.name !== name) })));
    return SUCCESS;
  },
};

const invokeEventTrigger: Operation<{ name: string; payload: Json }> = {
  write: false,
  parse(args, path) {
    const o = obj(args, path);
    const name = str(req(o, 'name', path), at(path, 'name'));
    if (!('payload' in o)) throw parseFailed(path, 'the key "payload" was not present');
    return { name, payload: o['payload'] as Json };
  },
  async run(ctx, { name, payload }) {
    const found = findTrigger(ctx, name);
    if (!found) throw missing(name);
    if (!found.trigger.definition.enable_manual) {
      throw badRequest('not-supported', '$.args.name', `manual mode is not enabled for event trigger "${name}"`);
    }
    await setSessionVariables(ctx);
    const t = found.entry.table;
    const rows = await ctx.tx.query<{ id: string }>(
      `SELECT engine_catalog.insert_event_log($1, $2, $3, 'MANUAL', jsonb_build_object('old', NULL, 'new', $4::jsonb))::text AS id`,
      [t.schema, t.name, name, JSON.stringify(payload)],
    );
    return { event_id: rows[0]?.id ?? '' };
  },
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The `event_id` argument: a UUID, lower-cased. */
export function eventIdArg(o: Record<string, Json>, path: string): string {
  const v = req(o, 'event_id', path);
  if (typeof v !== 'string' || !UUID.test(v)) throw parseFailed(at(path, 'event_id'), `expected a UUID, encountered ${JSON.stringify(v)}`);
  return v.toLowerCase();
}

const redeliverEvent: Operation<string> = {
  write: false,
  parse(args, path) {
    return eventIdArg(obj(args, path), path);
  },
  async run(ctx, id) {
    const rows = await ctx.tx.query<{ busy: boolean }>(
      `SELECT ${LOCK_HELD} AS busy
         FROM engine_catalog.event_log WHERE id = $1::uuid AND NOT archived FOR UPDATE`, [id]);
    const row = rows[0];
    if (!row) throw badRequest('not-exists', '$.args.event_id', `event "${id}" does not exist`);
    if (row.busy) throw badRequest('busy', '$.args.event_id', `event "${id}" is already being processed`);
    await ctx.tx.query(
      `UPDATE engine_catalog.event_log SET tries = 0, error = false, delivered = false, next_retry_at = NULL, locked = NULL, locked_by = NULL
        WHERE id = $1::uuid`, [id]);
    // Wakes the processors at commit, as a new event does.
    await ctx.tx.query(`SELECT pg_notify('${EVENTS_CHANNEL}', '')`);
    return SUCCESS;
  },
};

export const eventTriggerOperations: Record<string, Operation<unknown>> = {
  create_event_trigger: op(createEventTrigger),
  delete_event_trigger: op(deleteEventTrigger),
  invoke_event_trigger: op(invokeEventTrigger),
  redeliver_event: op(redeliverEvent),
};
