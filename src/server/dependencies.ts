import { compareCodePoints } from '../metadata/json.js';
import { qnEqual, qnKey, qnText } from '../metadata/names.js';
import { permField } from '../metadata/kinds/permissions.js';
import type { Metadata, PermKind, QualifiedName, TableEntry } from '../metadata/types.js';
import { relId } from './kinds/relationships.js';
import { functionId } from './kinds/functions.js';
import { cfId } from './kinds/computed-fields.js';
import { permId } from './kinds/permissions.js';
import { etColumns, etId } from './kinds/event-triggers.js';
import type { SchemaCache } from './schema-cache.js';
import type { JsonObject } from '../metadata/json.js';
import { remoteRelId } from './remote-schemas/relationships.js';
import { toTableId } from './remote-schemas/to-table.js';

/** Something that can be removed and have dependents (engine-api.md §3.5). */
export type Target =
  | { kind: 'table'; table: QualifiedName }
  | { kind: 'column'; table: QualifiedName; column: string }
  | { kind: 'relationship'; table: QualifiedName; name: string }
  | { kind: 'computed_field'; table: QualifiedName; name: string }
  | { kind: 'function'; fn: QualifiedName };

export interface Dependent {
  id: string;
  label: string;
  /** What the dependent itself is, so that cascading can follow it. */
  self: Target | null;
  remove(md: Metadata): void;
}

/** A consistent object with everything it refers to. */
interface Candidate extends Dependent {
  owner: QualifiedName | null;
  refs: Target[];
}

const same = (a: Target, b: Target): boolean => {
  switch (a.kind) {
    case 'table':
      return b.kind === 'table' && qnEqual(a.table, b.table);
    case 'column':
      return b.kind === 'column' && qnEqual(a.table, b.table) && a.column === b.column;
    case 'relationship':
    case 'computed_field':
      return b.kind === a.kind && qnEqual(a.table, b.table) && a.name === b.name;
    case 'function':
      return b.kind === 'function' && qnEqual(a.fn, b.fn);
  }
};

type ListField = 'object_relationships' | 'array_relationships' | 'computed_fields' | 'event_triggers' | `${PermKind}_permissions`;

function removeFrom(md: Metadata, table: QualifiedName, field: ListField, keep: (x: { name?: string; role?: string }) => boolean): void {
  const key = qnKey(table);
  const entry = md.tables.get(key);
  if (!entry) return;
  md.tables.set(key, { ...entry, [field]: (entry[field] as { name?: string; role?: string }[]).filter(keep) } as TableEntry);
}

/** Every consistent object of the cache as a potential dependent. */
function candidates(cache: SchemaCache): Candidate[] {
  const out: Candidate[] = [];
  for (const rt of cache.tables.values()) {
    const t = rt.entry.table;
    const tn = qnText(t);
    for (const [name, rel] of rt.relationships) {
      const refs: Target[] = qnEqual(rel.remote, t) ? [] : [{ kind: 'table', table: rel.remote }];
      for (const [l, r] of rel.mapping) refs.push({ kind: 'column', table: t, column: l }, { kind: 'column', table: rel.remote, column: r });
      const field = rel.kind === 'object' ? 'object_relationships' : 'array_relationships';
      out.push({
        id: relId(rel.kind, t, name), label: `relationship ${tn}.${name}`, owner: t, refs,
        self: { kind: 'relationship', table: t, name },
        remove: (md) => removeFrom(md, t, field, (x) => x.name !== name),
      });
    }
    for (const [name, cf] of rt.computedFields) {
      const refs: Target[] = [{ kind: 'function', fn: { schema: cf.fn.schema, name: cf.fn.name } }];
      if (cf.returnsTable && !qnEqual(cf.returnsTable, t)) refs.push({ kind: 'table', table: cf.returnsTable });
      out.push({
        id: cfId(t, name), label: `computed field ${tn}.${name}`, owner: t, refs,
        self: { kind: 'computed_field', table: t, name },
        remove: (md) => removeFrom(md, t, 'computed_fields', (x) => x.name !== name),
      });
    }
    for (const p of rt.permissions.values()) {
      const refs: Target[] = [
        ...p.refs.columns.map((c): Target => ({ kind: 'column', table: c.table, column: c.column })),
        ...p.refs.relationships.map((r): Target => ({ kind: 'relationship', table: r.table, name: r.name })),
        ...p.refs.tables.filter((x) => !qnEqual(x, t)).map((x): Target => ({ kind: 'table', table: x })),
        ...p.computedFields.map((name): Target => ({ kind: 'computed_field', table: t, name })),
        ...p.refs.computedFields.map((c): Target => ({ kind: 'computed_field', table: c.table, name: c.name })),
      ];
      out.push({
        id: permId(p.kind, t, p.role), label: `permission ${tn}.${p.role}.${p.kind}`, owner: t, refs, self: null,
        remove: (md) => removeFrom(md, t, permField(p.kind), (x) => x.role !== p.role),
      });
    }
    for (const et of rt.entry.event_triggers) {
      if (!rt.eventTriggers.has(et.name)) continue;
      out.push({
        id: etId(et.name), label: `event trigger ${tn}.${et.name}`, owner: t, self: null,
        refs: etColumns(et).map((c): Target => ({ kind: 'column', table: t, column: c })),
        remove: (md) => removeFrom(md, t, 'event_triggers', (x) => x.name !== et.name),
      });
    }
  }
  remoteRelCandidates(cache, out);
  for (const f of cache.metadata.functions.values()) {
    const fns = cache.catalog.functions.get(qnKey(f.function));
    const returned = fns?.length === 1 ? cache.catalog.tablesByOid.get(fns[0]?.returnRelid ?? '') : undefined;
    if (!returned) continue;
    out.push({
      id: functionId(f.function), label: `function ${qnText(f.function)}`, owner: null, self: null,
      refs: [{ kind: 'table', table: { schema: returned.schema, name: returned.name } }],
      remove: (md) => void md.functions.delete(qnKey(f.function)),
    });
  }
  return out;
}

/**
 * Remote relationships (issue 35.3) as dependents, labelled as the incumbent reports them: a table's relationship
 * to a remote schema depends on its join columns; a remote type's relationship to a table (`to_source`) on that
 * table and its mapped columns.
 */
function remoteRelCandidates(cache: SchemaCache, out: Candidate[]): void {
  for (const [key, rels] of cache.remoteRels ?? []) {
    const t = cache.tables.get(key)?.entry.table;
    if (!t) continue;
    for (const rel of rels) {
      out.push({
        id: remoteRelId(t, rel.name), label: `remote relationship ${qnText(t)}.${rel.name}`, owner: t, self: null,
        refs: rel.lhs.map((column): Target => ({ kind: 'column', table: t, column })),
        remove: (md) => {
          const entry = md.tables.get(key);
          if (!entry) return;
          const rest = (entry.extras?.remote_relationships ?? []).filter((r) => r['name'] !== rel.name);
          const extras = { ...entry.extras };
          if (rest.length > 0) extras.remote_relationships = rest;
          else delete extras.remote_relationships;
          md.tables.set(key, { ...entry, extras });
        },
      });
    }
  }
  for (const [remote, rels] of cache.remoteToTable ?? []) {
    for (const rel of rels) {
      out.push({
        id: toTableId(remote, rel.typeName, rel.name), label: `remote_relationship ${rel.name} on type ${rel.typeName} in remote schema ${remote}`,
        owner: null, self: null,
        refs: [{ kind: 'table', table: rel.table }, ...rel.mapping.map(([, column]): Target => ({ kind: 'column', table: rel.table, column }))],
        remove: (md) => {
          const r = md.remote_schemas.get(remote);
          if (!r) return;
          const groups = r.remote_relationships.map((g) => (g['type_name'] !== rel.typeName ? g
            : { ...g, relationships: ((g['relationships'] ?? []) as JsonObject[]).filter((x) => x['name'] !== rel.name) }));
          md.remote_schemas.set(remote, { ...r, remote_relationships: groups.filter((g) => ((g['relationships'] ?? []) as JsonObject[]).length > 0) });
        },
      });
    }
  }
}

/**
 * The dependents of the targets (transitively when asked), each once, in label order. Objects owned by the
 * tables in `owners` are removed with them and are not dependents.
 */
export function dependentsOf(cache: SchemaCache, targets: Target[], owners: Set<string> = new Set(), transitive = true): Dependent[] {
  const all = candidates(cache).filter((c) => !(c.owner && owners.has(qnKey(c.owner))));
  const found = new Map<string, Dependent>();
  const queue = [...targets];
  while (queue.length > 0) {
    const target = queue.shift() as Target;
    for (const c of all) {
      if (found.has(c.id) || !c.refs.some((r) => same(r, target))) continue;
      // A table's own objects are not its dependents (only other tables' objects are).
      if (target.kind === 'table' && c.owner && qnEqual(c.owner, target.table)) continue;
      found.set(c.id, c);
      if (c.self && transitive) queue.push(c.self);
    }
  }
  return [...found.values()].sort((a, b) => compareCodePoints(a.label, b.label));
}

export const dependencyLabels = (deps: Dependent[]): string => [...new Set(deps.map((d) => d.label))].join(', ');

export const dependencyMessage = (deps: Dependent[]): string => `cannot drop due to the following dependent objects : ${dependencyLabels(deps)}`;
