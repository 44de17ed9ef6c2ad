import { afterEach } from 'vitest';
import type { TestEngine } from './engine.js';
import { EventProcessor, type ProcessorOptions } from '../../src/server/workers/event-processor.js';

/** Event processors for integration tests: started by the test on the test engine, stopped after each test. */

const running: EventProcessor[] = [];

export function useProcessors(): void {
  afterEach(async () => {
    for (const p of running.splice(0)) await p.stop();
  });
}

export async function startProcessor(e: TestEngine, opts: Partial<ProcessorOptions> = {}): Promise<EventProcessor> {
  const p = await EventProcessor.start(e.db, { triggers: () => e.engine.consistentEventTriggers(), ...opts });
  running.push(p);
  return p;
}

export interface EventRow {
  id: string;
  trigger_name: string;
  delivered: boolean;
  error: boolean;
  tries: number;
  locked: unknown;
  locked_by: number | null;
  next_retry_at: unknown;
  archived: boolean;
}

export async function eventRows(e: TestEngine): Promise<EventRow[]> {
  return e.db.query<EventRow & Record<string, unknown>>(`SELECT id::text AS id, trigger_name, delivered, error, tries, locked, locked_by,
    next_retry_at, archived FROM engine_catalog.event_log ORDER BY created_at, id`);
}

export interface InvocationRow {
  event_id: string;
  trigger_name: string;
  status: number | null;
  request: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  response: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export async function invocations(e: TestEngine, eventId?: string): Promise<InvocationRow[]> {
  return e.db.query<InvocationRow & Record<string, unknown>>(
    `SELECT event_id::text AS event_id, trigger_name, status, request, response FROM engine_catalog.event_invocation_logs
      WHERE $1::uuid IS NULL OR event_id = $1::uuid ORDER BY created_at, id`, [eventId ?? null]);
}
