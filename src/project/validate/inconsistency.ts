import { isObject, type JsonObject } from '../../metadata/json.js';

/** An engine inconsistency record (engine-api.md §3.4) as the CLI shows it (cli.md §5.9). */
export interface ShownInconsistency {
  kind: string;
  name: string;
  reason: string;
  type: string;
  definition: unknown;
}

const KIND_OF_TYPE: Record<string, string> = { object_relation: 'object_relationship', array_relation: 'array_relationship' };

function qn(v: unknown): string | null {
  if (typeof v === 'string') return `public.${v}`;
  if (isObject(v) && typeof v['name'] === 'string') return `${typeof v['schema'] === 'string' ? v['schema'] : 'public'}.${v['name']}`;
  return null;
}

/** The §4.12 name of the object a record describes (cli.md §5.9). */
export function recordName(type: string, definition: unknown): string {
  const d = isObject(definition) ? definition : ({} as JsonObject);
  if (type === 'table') return qn(d) ?? '-';
  if (type === 'function') return qn(d['function']) ?? '-';
  const parts: string[] = [];
  const table = qn(d['table']);
  if (table) parts.push(table);
  if (typeof d['action'] === 'string') parts.push(d['action']);
  if (typeof d['name'] === 'string') parts.push(d['name']);
  if (typeof d['role'] === 'string') parts.push(d['role']);
  return parts.length > 0 ? parts.join('.') : '-';
}

export function showInconsistency(r: { type: string; reason: string; definition: unknown }): ShownInconsistency {
  return { kind: KIND_OF_TYPE[r.type] ?? r.type, name: recordName(r.type, r.definition), reason: r.reason, type: r.type, definition: r.definition };
}

/** `KIND  NAME  REASON`, left-aligned columns two spaces apart. */
export function inconsistencyTable(list: ShownInconsistency[]): string {
  const rows = [['KIND', 'NAME', 'REASON'], ...list.map((o) => [o.kind, o.name, o.reason.replace(/\n/g, ' ').trim()])];
  const w0 = Math.max(...rows.map((r) => (r[0] as string).length));
  const w1 = Math.max(...rows.map((r) => (r[1] as string).length));
  return rows.map((r) => `${(r[0] as string).padEnd(w0)}  ${(r[1] as string).padEnd(w1)}  ${r[2] as string}`).join('\n');
}
