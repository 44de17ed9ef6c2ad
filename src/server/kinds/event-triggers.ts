import { eventTriggerJson, EVENT_OPS } from '../../metadata/kinds/event-triggers.js';
import { qnQuoted } from '../../metadata/names.js';
import type { EventTrigger, QualifiedName } from '../../metadata/types.js';
import { objectId, tablePrefix, withTable, type InconsistentObject } from '../inconsistency.js';
import type { ResolvedTable } from './resolved.js';

/** Event-trigger names are global (unique across tables), so the identity has no table. */
export const etId = (name: string): string => objectId('event_trigger', null, name);
export const etPrefix = (t: QualifiedName, name: string): string => `${tablePrefix(t)}in event trigger "${name}": `;

export function etRecord(t: QualifiedName, et: EventTrigger, reason: string): InconsistentObject {
  return { id: etId(et.name), type: 'event_trigger', definition: withTable(t, eventTriggerJson(et)), reason: etPrefix(t, et.name) + reason };
}

/** Every column an event trigger names, in check order: per operation, `columns` then `payload`. */
export function etColumns(et: EventTrigger): string[] {
  const out: string[] = [];
  for (const op of EVENT_OPS) {
    const spec = et.definition[op];
    if (!spec) continue;
    if (Array.isArray(spec.columns)) out.push(...spec.columns);
    if (Array.isArray(spec.payload)) out.push(...spec.payload);
  }
  return out;
}

export function resolveEventTrigger(et: EventTrigger, rt: ResolvedTable): string | null {
  for (const c of etColumns(et)) {
    if (!rt.db.columns.has(c)) return `column "${c}" does not exist in table ${qnQuoted(rt.entry.table)}`;
  }
  return null;
}
