import type { Metadata, TableEntry } from './types.js';
import { VersionedMap } from './versioned-map.js';

type Tables = VersionedMap<string, TableEntry>;
const known = new WeakMap<Tables, ReadonlyMap<string, string>>();

/**
 * Each event trigger's name → the key of its table (names are unique across tables, §4.7.1). For the versioned
 * tables of the engine's metadata it is kept per version (which is frozen) and brought forward from an earlier
 * version by the entries changed since, so that finding a trigger after one change does not read every table.
 */
export function eventTriggerTables(md: Metadata): ReadonlyMap<string, string> {
  const tables = md.tables;
  if (!(tables instanceof VersionedMap)) return indexAll(tables);
  const versioned = tables as Tables;
  let index = known.get(versioned);
  if (index) return index;
  const base = VersionedMap.nearest(versioned, known);
  if (base) {
    const next = new Map([...base.value].filter(([, key]) => !base.changed.has(key)));
    for (const key of base.changed) add(next, key, tables.get(key));
    index = next;
  } else {
    index = indexAll(tables);
  }
  known.set(versioned.freeze(), index);
  return index;
}

function indexAll(tables: ReadonlyMap<string, TableEntry>): Map<string, string> {
  const index = new Map<string, string>();
  for (const [key, entry] of tables) add(index, key, entry);
  return index;
}

function add(index: Map<string, string>, key: string, entry: TableEntry | undefined): void {
  for (const et of entry?.event_triggers ?? []) if (!index.has(et.name)) index.set(et.name, key);
}
