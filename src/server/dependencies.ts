import { compareCodePoints } from '../metadata/json.js';
import { qnEqual, qnKey, qnText } from '../metadata/names.js';
import type { Metadata, QualifiedName, RelKind } from '../metadata/types.js';
import { relId } from './kinds/relationships.js';
import { functionId } from './kinds/functions.js';
import type { SchemaCache } from './schema-cache.js';

/** Something that can be removed and have dependents (engine-api.md §3.5). */
export type Target =
  | { kind: 'table'; table: QualifiedName }
  | { kind: 'column'; table: QualifiedName; column: string }
  | { kind: 'relationship'; table: QualifiedName; name: string };

export interface Dependent {
  id: string;
  label: string;
  /** What the dependent itself is, so that cascading can follow it. */
  self: Target | null;
  remove(md: Metadata): void;
}

function removeRelationship(md: Metadata, table: QualifiedName, kind: RelKind, name: string): void {
  const key = qnKey(table);
  const entry = md.tables.get(key);
  if (!entry) return;
  const field = kind === 'object' ? 'object_relationships' : 'array_relationships';
  md.tables.set(key, { ...entry, [field]: entry[field].filter((r) => r.name !== name) });
}

/** The direct dependents of one target, leaving out objects owned by tables in `owners` (removed with them). */
function directDependents(cache: SchemaCache, target: Target, owners: Set<string>): Dependent[] {
  const out: Dependent[] = [];
  for (const rt of cache.tables.values()) {
    const t = rt.entry.table;
    if (owners.has(qnKey(t))) continue;
    for (const [name, rel] of rt.relationships) {
      const uses =
        target.kind === 'table'
          ? qnEqual(rel.remote, target.table) && !qnEqual(t, target.table)
          : target.kind === 'column'
            ? rel.mapping.some(([local, remote]) =>
                (qnEqual(t, target.table) && local === target.column) || (qnEqual(rel.remote, target.table) && remote === target.column))
            : false;
      if (!uses) continue;
      out.push({
        id: relId(rel.kind, t, name), label: `relationship ${qnText(t)}.${name}`,
        self: { kind: 'relationship', table: t, name },
        remove: (md) => removeRelationship(md, t, rel.kind, name),
      });
    }
  }
  if (target.kind === 'table') {
    const db = cache.tables.get(qnKey(target.table))?.db;
    for (const f of cache.metadata.functions.values()) {
      const fns = cache.catalog.functions.get(qnKey(f.function));
      if (!db || !fns || fns.length !== 1 || fns[0]?.returnRelid !== db.oid) continue;
      out.push({
        id: functionId(f.function), label: `function ${qnText(f.function)}`, self: null,
        remove: (md) => void md.functions.delete(qnKey(f.function)),
      });
    }
  }
  return out;
}

/** The dependents of the targets (transitively when asked), each once, in label order. */
export function dependentsOf(cache: SchemaCache, targets: Target[], owners: Set<string> = new Set(), transitive = true): Dependent[] {
  const found = new Map<string, Dependent>();
  const queue = [...targets];
  while (queue.length > 0) {
    const target = queue.shift() as Target;
    for (const d of directDependents(cache, target, owners)) {
      if (found.has(d.id)) continue;
      found.set(d.id, d);
      if (d.self && transitive) queue.push(d.self);
    }
  }
  return [...found.values()].sort((a, b) => compareCodePoints(a.label, b.label));
}

export const dependencyMessage = (deps: Dependent[]): string =>
  `cannot drop due to the following dependent objects : ${[...new Set(deps.map((d) => d.label))].join(', ')}`;
