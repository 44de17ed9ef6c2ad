import { Cron } from 'croner';
import { parseFailed } from '../../errors.js';
import type { Json, JsonObject } from '../json.js';
import { at, bool, comment, int, obj, opt, req, str } from '../reader.js';
import type { Header } from '../types.js';
import { headerJson, headers, urlTemplate } from './common.js';

/**
 * Cron triggers and one-off scheduled events (issue 20; the incumbent's `cron_triggers`). Times are UTC; a schedule
 * is the five-field syntax of cli.md §4.13, evaluated by croner.
 */

export interface ScheduleRetryConf {
  num_retries: number;
  retry_interval_seconds: number;
  timeout_seconds: number;
  tolerance_seconds: number;
}

export const DEFAULT_SCHEDULE_RETRY: ScheduleRetryConf = { num_retries: 0, retry_interval_seconds: 10, timeout_seconds: 60, tolerance_seconds: 21_600 };
const RETRY_KEYS: [keyof ScheduleRetryConf, number][] = [['num_retries', 0], ['retry_interval_seconds', 1], ['timeout_seconds', 1], ['tolerance_seconds', 1]];

export interface CronTrigger {
  name: string;
  webhook: string;
  schedule: string;
  include_in_metadata: boolean;
  payload?: Json;
  /** Only the keys given, in canonical order: the export shows what was written. */
  retry_conf?: Partial<ScheduleRetryConf>;
  headers: Header[];
  comment: string | null;
}

/** A payload is stored in the catalog and sent with every delivery: bounded so that neither grows without limit. */
export const MAX_PAYLOAD_BYTES = 100 * 1024;

/** The five fields of a cron schedule with their ranges; day of week 0–7 (0 and 7 are Sunday, as in cron). */
const CRON_FIELDS: [string, number, number][] = [
  ['minute', 0, 59], ['hour', 0, 23], ['day-of-month', 1, 31], ['month', 1, 12], ['day-of-week', 0, 7],
];
const CRON_ITEM = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/;

function cronFieldOk(text: string, min: number, max: number): boolean {
  return text.split(',').every((item) => {
    const m = CRON_ITEM.exec(item);
    if (!m) return false;
    if (m[4] !== undefined && Number(m[4]) < 1) return false;
    if (m[1] === '*') return true;
    const from = Number(m[2]);
    const to = m[3] === undefined ? from : Number(m[3]);
    return from >= min && to <= max && from <= to;
  });
}

/**
 * The syntax of cli.md §4.13, which is narrower than croner's (no names, no six fields): five whitespace-separated
 * fields of numbers, `*`, ranges `a-b`, lists `a,b` and steps `/n` (n ≥ 1), each within its range; one message per
 * field. The times themselves are croner's to compute.
 */
export function cronProblems(schedule: string): string[] {
  const fields = schedule.trim().split(/\s+/).filter((f) => f !== '');
  if (fields.length !== CRON_FIELDS.length) {
    return [`invalid cron schedule "${schedule}": expected 5 fields (minute hour day-of-month month day-of-week)`];
  }
  return CRON_FIELDS.flatMap(([name, min, max], i) =>
    cronFieldOk(fields[i] as string, min, max) ? [] : [`invalid cron schedule "${schedule}": field "${name}" is out of range`]);
}

/** The schedule as croner evaluates it (UTC), or the reason it is not one; a schedule that never fires is not one. */
export function cronSchedule(schedule: string): Cron | string {
  const problem = cronProblems(schedule)[0];
  if (problem !== undefined) return problem;
  let cron: Cron;
  try {
    cron = new Cron(schedule.trim(), { timezone: 'UTC', paused: true });
  } catch (e) {
    const detail = (e instanceof Error ? e.message : String(e)).replace(/^CronPattern: /, '');
    return `invalid cron schedule "${schedule}": ${detail}`;
  }
  if (cron.nextRun(new Date()) === null) return `cron schedule "${schedule}" never fires`;
  return cron;
}

export function scheduleRetryConf(v: unknown, path: string): Partial<ScheduleRetryConf> {
  const o = obj(v, path);
  const out: Partial<ScheduleRetryConf> = {};
  // Keys keep the order they were written in (engine-api.md §6.3 kept retry_conf as given); unknown ones are dropped.
  for (const k of Object.keys(o)) {
    const min = RETRY_KEYS.find(([name]) => name === k)?.[1];
    const x = opt(o, k);
    if (min !== undefined && x !== undefined) out[k as keyof ScheduleRetryConf] = int(x, at(path, k), min);
  }
  return out;
}

export const fullRetryConf = (r: Partial<ScheduleRetryConf> | undefined): ScheduleRetryConf => ({ ...DEFAULT_SCHEDULE_RETRY, ...r });

export function boundedPayload(v: Json, path: string): Json {
  const size = Buffer.byteLength(JSON.stringify(v));
  if (size > MAX_PAYLOAD_BYTES) throw parseFailed(path, `payload is ${size} bytes; at most ${MAX_PAYLOAD_BYTES} bytes are allowed`);
  return v;
}

export function parseCronTrigger(v: unknown, path: string): CronTrigger {
  const o = obj(v, path);
  const name = str(req(o, 'name', path), at(path, 'name'));
  if (name.trim() === '') throw parseFailed(at(path, 'name'), 'cron trigger name cannot be empty');
  const schedule = str(req(o, 'schedule', path), at(path, 'schedule'));
  const cron = cronSchedule(schedule);
  if (typeof cron === 'string') throw parseFailed(at(path, 'schedule'), cron);
  const out: CronTrigger = {
    name,
    webhook: urlTemplate(req(o, 'webhook', path), at(path, 'webhook'), 'webhook', path),
    schedule,
    include_in_metadata: bool(req(o, 'include_in_metadata', path), at(path, 'include_in_metadata')),
    headers: headers(o, path),
    comment: comment(o, path),
  };
  const payload = opt(o, 'payload');
  if (payload !== undefined) out.payload = boundedPayload(payload, at(path, 'payload'));
  const rc = opt(o, 'retry_conf');
  if (rc !== undefined) out.retry_conf = scheduleRetryConf(rc, at(path, 'retry_conf'));
  return out;
}

/** engine-api.md §6.5 order: name, webhook, schedule, include_in_metadata, payload, retry_conf, headers, comment. */
export function cronTriggerJson(c: CronTrigger): JsonObject {
  const out: JsonObject = { name: c.name, webhook: c.webhook, schedule: c.schedule, include_in_metadata: c.include_in_metadata };
  if (c.payload !== undefined) out['payload'] = c.payload;
  if (c.retry_conf !== undefined) out['retry_conf'] = { ...c.retry_conf } as JsonObject;
  if (c.headers.length > 0) out['headers'] = c.headers.map(headerJson);
  if (c.comment !== null) out['comment'] = c.comment;
  return out;
}
