/**
 * The objects of a metadata directory (cli.md §4.12) with the position of their entries, and the duplicate rules of
 * cli.md §4.13. Entries too malformed to name are skipped here; their shape problems are reported elsewhere.
 */
import type { Position, Problems } from '../problems.js';
import type { MetadataSources } from './sources.js';
import { isObj, qnameText, type Path } from './core.js';
import { lazyPosition, positionAt, type YamlSource } from '../yaml-source.js';

interface ObjectEntry {
  kind: string;
  /** The §4.12 name: `public.author`, `public.author.user`, `c`. */
  name: string;
  src: YamlSource;
  path: Path;
  /** For children of a table: the table and the child's own name or role. */
  table?: string;
  own?: string;
  /** For queries: the index of their collection (query names are unique per collection). */
  scope?: number;
}

/** Child lists of a table entry: list key, §4.12 kind, the key naming an item. */
const CHILDREN: [string, string, string][] = [
  ['object_relationships', 'object_relationship', 'name'],
  ['array_relationships', 'array_relationship', 'name'],
  ['remote_relationships', 'remote_relationship', 'name'],
  ['computed_fields', 'computed_field', 'name'],
  ['event_triggers', 'event_trigger', 'name'],
  ['insert_permissions', 'insert_permission', 'role'],
  ['select_permissions', 'select_permission', 'role'],
  ['update_permissions', 'update_permission', 'role'],
  ['delete_permissions', 'delete_permission', 'role'],
];

/** Relationships and computed fields of a table share one namespace (cli.md §4.13). */
const NAMESPACE_KINDS = new Set(['object_relationship', 'array_relationship', 'remote_relationship', 'computed_field']);

const items = (src: YamlSource | undefined): unknown[] => (Array.isArray(src?.value) ? src.value : []);

function tableObjects(src: YamlSource, out: ObjectEntry[]): void {
  items(src).forEach((t, i) => {
    if (!isObj(t)) return;
    const table = qnameText(t['table']);
    if (table === undefined) return;
    out.push({ kind: 'table', name: table, src, path: [i] });
    for (const [listKey, kind, nameKey] of CHILDREN) {
      const list = t[listKey];
      if (!Array.isArray(list)) continue;
      list.forEach((x, j) => {
        const own = isObj(x) ? x[nameKey] : undefined;
        if (typeof own === 'string') out.push({ kind, name: `${table}.${own}`, src, path: [i, listKey, j], table, own });
      });
    }
  });
}

function functionName(v: unknown): string | undefined {
  if (!isObj(v)) return qnameText(v);
  return qnameText('function' in v ? v['function'] : v);
}

/** Every named object of the directory, in file order, plus the queries of query collections. */
function listObjects(src: MetadataSources): ObjectEntry[] {
  const out: ObjectEntry[] = [];
  if (src.tables) tableObjects(src.tables, out);
  const simple = (file: YamlSource | undefined, kind: string, name: (v: unknown) => string | undefined) => {
    if (!file) return;
    items(file).forEach((v, i) => {
      const n = name(v);
      if (n !== undefined) out.push({ kind, name: n, src: file, path: [i] });
    });
  };
  const key = (k: string) => (v: unknown) => (isObj(v) && typeof v[k] === 'string' ? v[k] : undefined);
  simple(src.functions, 'function', functionName);
  simple(src.remoteSchemas, 'remote_schema', key('name'));
  simple(src.queryCollections, 'query_collection', key('name'));
  simple(src.allowList, 'allowlist_entry', key('collection'));
  simple(src.cronTriggers, 'cron_trigger', key('name'));
  simple(src.inheritedRoles, 'inherited_role', key('role_name'));
  simple(src.restEndpoints, 'rest_endpoint', key('name'));
  const qc = src.queryCollections;
  if (qc) {
    items(qc).forEach((coll, i) => {
      const def = isObj(coll) ? coll['definition'] : undefined;
      const queries = isObj(def) && Array.isArray(def['queries']) ? def['queries'] : [];
      const collection = isObj(coll) && typeof coll['name'] === 'string' ? coll['name'] : `#${i + 1}`;
      queries.forEach((q, j) => {
        const own = isObj(q) ? q['name'] : undefined;
        if (typeof own === 'string') {
          out.push({ kind: 'query', name: `${collection}.${own}`, src: qc, path: [i, 'definition', 'queries', j], own, scope: i });
        }
      });
    });
  }
  return out;
}

const position = (e: ObjectEntry): Position => positionAt(e.src, [...e.path]);

/**
 * `<kind>:<name>` → the position of the object's entry, for every object of cli.md §4.12 defined in these files
 * (the first definition when an object is duplicated).
 */
export function objectOrigins(src: MetadataSources): Map<string, Position> {
  const out = new Map<string, Position>();
  for (const e of listObjects(src)) {
    const key = `${e.kind}:${e.name}`;
    // Lazy: only the positions asked for are computed (a rejected apply names a few objects out of thousands).
    if (e.kind !== 'query' && !out.has(key)) out.set(key, lazyPosition(e.src, [...e.path]));
  }
  return out;
}

/**
 * Duplicates (`duplicate-object`), reported at the later entry: objects by (kind, name), event-trigger names over all
 * tables, query names per collection; and a name used by relationships or computed fields of different kinds of one
 * table (the one-namespace rule; two of the same kind are a duplicate object instead).
 */
export function checkDuplicates(src: MetadataSources, problems: Problems): void {
  const first = new Map<string, ObjectEntry>();
  const namespace = new Map<string, ObjectEntry>();
  for (const e of listObjects(src)) {
    const key = e.kind === 'event_trigger' ? `event_trigger\u0000${e.own ?? ''}`
      : e.kind === 'query' ? `query\u0000${e.scope ?? 0}\u0000${e.own ?? ''}`
        : `${e.kind}\u0000${e.name}`;
    const f = first.get(key);
    if (f) {
      const at = position(f);
      problems.error('duplicate-object', `duplicate ${e.kind} ${e.name} (first defined at ${at.file}:${at.line}:${at.column})`, position(e));
      continue;
    }
    first.set(key, e);
    if (!NAMESPACE_KINDS.has(e.kind)) continue;
    const nsKey = `${e.table ?? ''}\u0000${e.own ?? ''}`;
    const nf = namespace.get(nsKey);
    if (!nf) namespace.set(nsKey, e);
    else problems.error('duplicate-object', `"${e.own ?? ''}" is used by more than one relationship or computed field of ${e.table ?? ''}`, position(e));
  }
}
