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

export const EVENT_STATUSES = ['pending', 'delivered', 'error', 'archived', 'all'] as const;
/** `pending` is the engine's `scheduled`: not yet delivered, errored, dead or archived. */
export const SCHEDULED_STATUSES = ['pending', 'scheduled', 'delivered', 'error', 'dead', 'archived', 'all'] as const;

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
  if (opts.status !== undefined) args['status'] = opts.status === 'pending' ? 'scheduled' : opts.status;
  if (opts.limit !== undefined) args['limit'] = opts.limit;
  return (await client.query('get_scheduled_events', args, { read: true })).body as ScheduledRecord[];
}
export const MAX_EVENTS = 1000;

/** Reads are retried like the CLI's other reads (cli.md §3.6). */
export async function listEvents(client: EngineClient, opts: { trigger?: string; status?: string; limit?: number }): Promise<EventRecord[]> {
  const args: Record<string, unknown> = {};
  if (opts.trigger !== undefined) args['name'] = opts.trigger;
  if (opts.status !== undefined) args['status'] = opts.status;
  if (opts.limit !== undefined) args['limit'] = opts.limit;
  return (await client.query('get_event_logs', args, { read: true })).body as EventRecord[];
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
