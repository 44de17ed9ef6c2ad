import { badRequest, parseFailed } from '../../errors.js';
import { cloneMetadata } from '../../metadata/document.js';
import type { Json } from '../../metadata/json.js';
import { boundedPayload, cronTriggerJson, parseCronTrigger, scheduleRetryConf, type CronTrigger } from '../../metadata/kinds/cron-triggers.js';
import { headerJson, headers, urlTemplate } from '../../metadata/kinds/common.js';
import { at, comment, int, obj, oneOf, opt, optBool, req, str } from '../../metadata/reader.js';
import { SCHEDULED_CHANNEL } from '../catalog.js';
import { op, SUCCESS, type Operation } from './operation.js';

/** Cron triggers and one-off scheduled events (issue 20; the incumbent's operations of the same names). */

interface CreateArgs {
  trigger: CronTrigger;
  replace: boolean;
}

const createCronTrigger: Operation<CreateArgs> = {
  write: true,
  parse(args, path) {
    const o = obj(args, path);
    return { trigger: parseCronTrigger(o, path), replace: optBool(o, 'replace', path, false) };
  },
  async run(ctx, { trigger, replace }) {
    const exists = ctx.metadata.cron_triggers.has(trigger.name);
    if (exists && !replace) throw badRequest('already-exists', '$.args.name', `cron trigger with name "${trigger.name}" already exists`);
    if (!exists && replace) throw badRequest('not-exists', '$.args.name', `cron trigger "${trigger.name}" does not exist`);
    const md = cloneMetadata(ctx.metadata);
    md.cron_triggers.set(trigger.name, trigger);
    ctx.apply(md);
    return SUCCESS;
  },
};

const nameArg = (args: Json, path: string): string => str(req(obj(args, path), 'name', path), at(path, 'name'));

const deleteCronTrigger: Operation<string> = {
  write: true,
  parse: nameArg,
  async run(ctx, name) {
    if (!ctx.metadata.cron_triggers.has(name)) throw badRequest('not-exists', '$.args.name', `cron trigger "${name}" does not exist`);
    const md = cloneMetadata(ctx.metadata);
    md.cron_triggers.delete(name);
    ctx.apply(md);
    return SUCCESS;
  },
};

const getCronTriggers: Operation<null> = {
  write: false,
  parse(args, path) {
    obj(args, path);
    return null;
  },
  async run(ctx) {
    const list = [...ctx.metadata.cron_triggers.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { cron_triggers: list.map(cronTriggerJson) };
  },
};

/** An ISO 8601 date and time with a zone (`Z` or `±hh:mm`); what Date.parse reads alone is not enough. */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)$/i;

interface ScheduledArgs {
  at: Date;
  definition: Json;
}

const createScheduledEvent: Operation<ScheduledArgs> = {
  write: false,
  parse(args, path) {
    const o = obj(args, path);
    const sp = at(path, 'schedule_at');
    const text = str(req(o, 'schedule_at', path), sp);
    const when = TIMESTAMP.test(text) ? new Date(text) : null;
    if (!when || Number.isNaN(when.getTime())) throw parseFailed(sp, `expected an ISO 8601 timestamp with a time zone, encountered "${text}"`);
    const rc = opt(o, 'retry_conf');
    const payload = opt(o, 'payload');
    return {
      at: when,
      definition: {
        webhook: urlTemplate(req(o, 'webhook', path), at(path, 'webhook'), 'webhook', path),
        headers: headers(o, path).map(headerJson),
        retry_conf: rc === undefined ? {} : { ...scheduleRetryConf(rc, at(path, 'retry_conf')) },
        payload: payload === undefined ? null : boundedPayload(payload, at(path, 'payload')),
        comment: comment(o, path),
      },
    };
  },
  async run(ctx, a) {
    if (a.at.getTime() < ctx.now().getTime()) {
      throw parseFailed('$.args.schedule_at', `the time ${a.at.toISOString()} is in the past`);
    }
    const rows = await ctx.tx.query<{ id: string }>(
      'INSERT INTO engine_catalog.scheduled_events (scheduled_time, definition) VALUES ($1::timestamptz, $2::jsonb) RETURNING id::text AS id',
      [a.at.toISOString(), JSON.stringify(a.definition)],
    );
    // Wakes the processors at commit, as insert_event_log does for events.
    await ctx.tx.query('SELECT pg_notify($1, $2)', [SCHEDULED_CHANNEL, '']);
    return { event_id: rows[0]?.id ?? null };
  },
};

export const SCHEDULED_STATUSES = ['scheduled', 'delivered', 'error', 'dead', 'archived', 'all'] as const;
const UTC = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

interface ListArgs {
  type: 'cron' | 'one_off' | 'all';
  name: string | null;
  /** The states asked for; null for all. */
  status: string[] | null;
  limit: number;
  offset: number;
}

/** One state, `all`, or (as the incumbent takes it) a list of states. */
function statusArg(v: Json | undefined, path: string): string[] | null {
  if (v === undefined) return null;
  const list = Array.isArray(v) ? v.map((s, i) => oneOf(s, `${path}[${i}]`, SCHEDULED_STATUSES)) : [oneOf(v, path, SCHEDULED_STATUSES)];
  return list.includes('all') ? null : list;
}

/** Scheduled events, the latest scheduled time first; `state` `processing` while an attempt is in flight. */
const getScheduledEvents: Operation<ListArgs> = {
  write: false,
  parse(args, path) {
    const o = obj(args, path);
    const type = opt(o, 'type');
    const name = opt(o, 'trigger_name');
    const status = opt(o, 'status');
    const limit = opt(o, 'limit');
    const offset = opt(o, 'offset');
    const out: ListArgs = {
      type: type === undefined ? 'all' : oneOf(type, at(path, 'type'), ['cron', 'one_off', 'all'] as const),
      name: name === undefined ? null : str(name, at(path, 'trigger_name')),
      status: statusArg(status, at(path, 'status')),
      limit: limit === undefined ? 100 : int(limit, at(path, 'limit'), 1),
      offset: offset === undefined ? 0 : int(offset, at(path, 'offset'), 0),
    };
    if (out.limit > 1000) throw parseFailed(at(path, 'limit'), `expected an integer <= 1000, encountered ${out.limit}`);
    return out;
  },
  async run(ctx, a) {
    const rows = await ctx.tx.query<{ e: string }>(
      `SELECT json_build_object('id', id, 'type', CASE WHEN trigger_name IS NULL THEN 'one_off' ELSE 'cron' END,
          'trigger_name', trigger_name, 'scheduled_time', ${UTC('scheduled_time')},
          'state', CASE WHEN status = 'scheduled' AND locked IS NOT NULL THEN 'processing' ELSE status END,
          'tries', tries, 'created_at', ${UTC('created_at')}, 'next_retry_at', ${UTC('next_retry_at')},
          'payload', definition->'payload')::text AS e
         FROM engine_catalog.scheduled_events
        WHERE ($1 = 'all' OR ($1 = 'cron') = (trigger_name IS NOT NULL)) AND ($2::text IS NULL OR trigger_name = $2)
          AND ($3::text[] IS NULL OR status = ANY($3::text[]))
        ORDER BY scheduled_time DESC, id DESC LIMIT $4 OFFSET $5`,
      [a.type, a.name, a.status, a.limit, a.offset],
    );
    return rows.map((r) => JSON.parse(r.e) as Json);
  },
};

export const cronTriggerOperations: Record<string, Operation<unknown>> = {
  create_cron_trigger: op(createCronTrigger),
  delete_cron_trigger: op(deleteCronTrigger),
  get_cron_triggers: op(getCronTriggers),
  create_scheduled_event: op(createScheduledEvent),
  get_scheduled_events: op(getScheduledEvents),
};
