import type { EngineClient } from './engine-client.js';

/** The engine's event operations as the project tool uses them (engine-api.md §4.7.3–4.7.4, get_event_logs …). */

export interface EventRecord {
  id: string;
  trigger_name: string;
  table: { schema: string; name: string };
  op: string;
  state: string;
  tries: number;
  created_at: string;
  next_retry_at: string | null;
  payload: unknown;
}

export interface InvocationRecord {
  id: string;
  event_id: string;
  trigger_name: string;
  status: number | null;
  created_at: string;
  request: unknown;
  response: { type: string; data: { status?: number; body?: string; message?: string } };
}

export const MAX_EVENTS = 1000;
/** The engine's default `limit` of both listings. */
const DEFAULT_LIMIT = 100;

/**
 * The words `--status` takes: every state the listing shows (issue 37 item 8), plus `all`. `pending` stays the
 * engine's filter of every unfinished event (pending, processing or waiting for a retry); `processing` and `waiting`
 * narrow it to that state.
 */
export const EVENT_STATUSES = ['pending', 'processing', 'waiting', 'delivered', 'error', 'archived', 'all'] as const;
/** `pending` is the engine's `scheduled`: not yet delivered, errored, dead or archived; `processing` narrows it. */
export const SCHEDULED_STATUSES = ['pending', 'scheduled', 'processing', 'delivered', 'error', 'dead', 'archived', 'all'] as const;

/** States the engine has no filter of its own for: the broader filter that holds them. */
const NARROWED: Record<string, string> = { processing: 'pending', waiting: 'pending' };
const NARROWED_SCHEDULED: Record<string, string> = { processing: 'scheduled' };

/**
 * Pages through a broad filter keeping the records in `state` until `limit` are found, so `--limit` counts what is
 * shown. Pages are the engine's largest, so a narrowed list costs one request in the common case.
 */
async function narrowed<T extends { state: string }>(page: (limit: number, offset: number) => Promise<T[]>, state: string, limit: number): Promise<T[]> {
  const found: T[] = [];
  for (let offset = 0; ; offset += MAX_EVENTS) {
    const rows = await page(MAX_EVENTS, offset);
    for (const r of rows) if (r.state === state && found.length < limit) found.push(r);
    if (found.length >= limit || rows.length < MAX_EVENTS) return found;
  }
}

export interface ScheduledRecord {
  id: string;
  type: 'cron' | 'one_off';
  trigger_name: string | null;
  scheduled_time: string;
  state: string;
  tries: number;
  created_at: string;
  next_retry_at: string | null;
  payload: unknown;
}

/** Scheduled events (get_scheduled_events), the latest scheduled time first. */
export async function listScheduled(client: EngineClient, opts: { trigger?: string; status?: string; limit?: number }): Promise<ScheduledRecord[]> {
  const args: Record<string, unknown> = {};
  if (opts.trigger !== undefined) args['trigger_name'] = opts.trigger;
  const broad = opts.status !== undefined ? NARROWED_SCHEDULED[opts.status] : undefined;
  if (opts.status !== undefined) args['status'] = broad ?? (opts.status === 'pending' ? 'scheduled' : opts.status);
  const get = async (limit: number | undefined, offset?: number) =>
    (await client.query('get_scheduled_events', { ...args, ...(limit !== undefined ? { limit } : {}), ...(offset ? { offset } : {}) }, { read: true })).body as ScheduledRecord[];
  if (broad !== undefined) return narrowed(get, opts.status as string, opts.limit ?? DEFAULT_LIMIT);
  return get(opts.limit);
}

/** Reads are retried like the CLI's other reads (cli.md §3.6). */
export async function listEvents(client: EngineClient, opts: { trigger?: string; status?: string; limit?: number }): Promise<EventRecord[]> {
  const args: Record<string, unknown> = {};
  if (opts.trigger !== undefined) args['name'] = opts.trigger;
  const broad = opts.status !== undefined ? NARROWED[opts.status] : undefined;
  if (opts.status !== undefined) args['status'] = broad ?? opts.status;
  const get = async (limit: number | undefined, offset?: number) =>
    (await client.query('get_event_logs', { ...args, ...(limit !== undefined ? { limit } : {}), ...(offset ? { offset } : {}) }, { read: true })).body as EventRecord[];
  if (broad !== undefined) return narrowed(get, opts.status as string, opts.limit ?? DEFAULT_LIMIT);
  return get(opts.limit);
}

/** The event (any state) and its attempts, oldest first. */
export async function showEvent(client: EngineClient, id: string): Promise<{ event: EventRecord; invocations: InvocationRecord[] }> {
  const events = (await client.query('get_event_logs', { event_id: id }, { read: true })).body as EventRecord[];
  const invocations = (await client.query('get_event_invocation_logs', { event_id: id }, { read: true })).body as InvocationRecord[];
  return { event: events[0] as EventRecord, invocations };
}

/** Writes: never retried. */
export async function redeliverEvent(client: EngineClient, id: string): Promise<void> {
  await client.query('redeliver_event', { event_id: id }, { read: false });
}

export async function invokeTrigger(client: EngineClient, trigger: string, payload: unknown): Promise<string> {
  const r = await client.query('invoke_event_trigger', { name: trigger, payload }, { read: false });
  return (r.body as { event_id: string }).event_id;
}
