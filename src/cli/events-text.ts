import type { EventRecord, InvocationRecord, ScheduledRecord } from '../client/events.js';

/** Text output of `engine events list|show`: left-aligned columns two spaces apart, like the other listings. */

export function columns(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ')).join('\n');
}

const table = (e: EventRecord) => (e.table.schema === 'public' ? e.table.name : `${e.table.schema}.${e.table.name}`);

export function eventsTable(events: EventRecord[]): string {
  return columns([['ID', 'TRIGGER', 'OP', 'STATE', 'TRIES', 'CREATED', 'NEXT RETRY'],
    ...events.map((e) => [e.id, e.trigger_name, e.op, e.state, String(e.tries), e.created_at, e.next_retry_at ?? '-'])]);
}

export function scheduledTable(events: ScheduledRecord[]): string {
  return columns([['ID', 'TYPE', 'TRIGGER', 'SCHEDULED', 'STATE', 'TRIES', 'NEXT RETRY'],
    ...events.map((e) => [e.id, e.type, e.trigger_name ?? '-', e.scheduled_time, e.state, String(e.tries), e.next_retry_at ?? '-'])]);
}

/** One line per attempt: the response body's first line (cut at 80 characters) or the client error. */
function outcome(i: InvocationRecord): string {
  const text = i.response.type === 'client_error' ? i.response.data.message ?? '' : i.response.data.body ?? '';
  const line = text.split('\n')[0] ?? '';
  return line.length > 80 ? `${line.slice(0, 80)}…` : line;
}

export function eventText(event: EventRecord, invocations: InvocationRecord[]): string {
  const fields: [string, string][] = [
    ['id', event.id], ['trigger', event.trigger_name], ['table', table(event)], ['op', event.op], ['state', event.state],
    ['tries', String(event.tries)], ['created at', event.created_at], ['next retry', event.next_retry_at ?? '-'],
    ['payload', JSON.stringify(event.payload)],
  ];
  const width = Math.max(...fields.map(([k]) => k.length)) + 1;
  const head = fields.map(([k, v]) => `${`${k}:`.padEnd(width)}  ${v}`).join('\n');
  if (invocations.length === 0) return `${head}\n\nNo attempts yet.`;
  const attempts = columns([['ATTEMPT', 'CREATED', 'STATUS', 'RESULT'],
    ...invocations.map((i, n) => [String(n + 1), i.created_at, i.status === null ? '-' : String(i.status), outcome(i)])]);
  return `${head}\n\n${attempts}`;
}
