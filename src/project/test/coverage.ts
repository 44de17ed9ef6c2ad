import { isObject, type JsonObject } from '../../metadata/json.js';
import type { TestCase } from './format.js';
import type { CaseResult } from './runner.js';

/**
 * The permission coverage of `engine test --coverage` (issue 33 point 3): one cell per role × table × operation, for
 * every role that has a permission on some table. A passing case touches a cell through its operation's root fields
 * (`article`, `insert_article_one`, …, custom root field names included); it exercises the allowed path when it
 * expects success, the denied path when it expects an error, no row affected, rows left out (`rows_exclude`) or fields absent from the
 * role's schema (`fields_absent`, where `query_root.f`/`mutation_root.f` name root fields and `table.column` the
 * table's select).
 */
export const OPERATIONS = ['select', 'insert', 'update', 'delete'] as const;
export type Operation = (typeof OPERATIONS)[number];

export interface CoverageCell {
  role: string;
  table: string;
  operation: Operation;
  /** The role has this permission in the metadata. */
  permitted: boolean;
  allowed: number;
  denied: number;
}

export interface Coverage {
  cells: CoverageCell[];
  covered: number;
  total: number;
  /** covered / total in percent, one decimal. */
  percent: number;
}

const ROOT_FIELD_OPS: [string, Operation, (t: string) => string][] = [
  ['select', 'select', (t) => t], ['select_by_pk', 'select', (t) => `${t}_by_pk`], ['select_aggregate', 'select', (t) => `${t}_aggregate`],
  ['select_stream', 'select', (t) => `${t}_stream`],
  ['insert', 'insert', (t) => `insert_${t}`], ['insert_one', 'insert', (t) => `insert_${t}_one`],
  ['update', 'update', (t) => `update_${t}`], ['update_by_pk', 'update', (t) => `update_${t}_by_pk`], ['update_many', 'update', (t) => `update_${t}_many`],
  ['delete', 'delete', (t) => `delete_${t}`], ['delete_by_pk', 'delete', (t) => `delete_${t}_by_pk`],
];

interface TableInfo {
  /** `schema.table`, as the matrix shows it. */
  name: string;
  typeName: string;
  roots: Map<string, Operation>;
  roles: Map<Operation, Set<string>>;
}

function customName(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (isObject(v) && typeof v['name'] === 'string') return v['name'];
  return undefined;
}

function tablesOf(metadata: JsonObject): TableInfo[] {
  const tables = Array.isArray(metadata['tables']) ? metadata['tables'] : [];
  return tables.filter(isObject).map((t) => {
    const ref = isObject(t['table']) ? t['table'] : {};
    const schema = typeof ref['schema'] === 'string' ? ref['schema'] : 'public';
    const table = typeof ref['name'] === 'string' ? ref['name'] : '';
    const config = isObject(t['configuration']) ? t['configuration'] : {};
    const typeName = typeof config['custom_name'] === 'string' ? config['custom_name'] : schema === 'public' ? table : `${schema}_${table}`;
    const custom = isObject(config['custom_root_fields']) ? config['custom_root_fields'] : {};
    const roots = new Map<string, Operation>();
    for (const [key, op, name] of ROOT_FIELD_OPS) roots.set(customName(custom[key]) ?? name(typeName), op);
    const roles = new Map<Operation, Set<string>>();
    for (const op of OPERATIONS) {
      const perms = t[`${op}_permissions`];
      roles.set(op, new Set(Array.isArray(perms) ? perms.flatMap((p) => (isObject(p) && typeof p['role'] === 'string' ? [p['role']] : [])) : []));
    }
    return { name: `${schema}.${table}`, typeName, roots, roles };
  });
}

/** The matrix of the metadata's roles and tables, with what the passing cases exercised. */
export function coverage(metadata: JsonObject, cases: TestCase[], results: CaseResult[]): Coverage {
  const tables = tablesOf(metadata);
  const roles = [...new Set(tables.flatMap((t) => [...t.roles.values()].flatMap((s) => [...s])))].sort();
  const cells = new Map<string, CoverageCell>();
  const key = (role: string, table: string, op: Operation) => `${role}\u0000${table}\u0000${op}`;
  for (const role of roles) {
    for (const t of tables) {
      for (const op of OPERATIONS) cells.set(key(role, t.name, op), { role, table: t.name, operation: op, permitted: t.roles.get(op)?.has(role) ?? false, allowed: 0, denied: 0 });
    }
  }
  const byRoot = new Map<string, { table: string; op: Operation }>();
  const byType = new Map<string, string>();
  for (const t of tables) {
    for (const [field, op] of t.roots) byRoot.set(field, { table: t.name, op });
    byType.set(t.typeName, t.name);
  }
  const caseOf = new Map(cases.map((c) => [`${c.file}\u0000${c.name}`, c]));
  for (const r of results) {
    const c = caseOf.get(`${r.file}\u0000${r.name}`);
    if (r.status !== 'passed' || !c) continue;
    const touch = (table: string, op: Operation, path: 'allowed' | 'denied') => {
      const cell = cells.get(key(c.role, table, op));
      if (cell) cell[path]++;
    };
    const e = c.expect;
    // No row affected is the filter saying no: the denied path of an update or delete.
    const noneAffected = e.affectedRows !== undefined && (typeof e.affectedRows === 'number' ? e.affectedRows === 0 : Object.values(e.affectedRows).every((n) => n === 0));
    const denied = e.error !== undefined || e.rowsExclude !== undefined || noneAffected;
    const allowed = e.error === undefined && !noneAffected;
    for (const field of r.operation?.fields ?? []) {
      const hit = byRoot.get(field);
      if (!hit) continue;
      if (allowed) touch(hit.table, hit.op, 'allowed');
      if (denied) touch(hit.table, hit.op, 'denied');
    }
    for (const name of e.fieldsAbsent ?? []) {
      const [type, field] = name.split('.') as [string, string];
      const root = /^(query|mutation|subscription)_root$/.test(type) ? byRoot.get(field) : undefined;
      if (root) touch(root.table, root.op, 'denied');
      const table = byType.get(type);
      if (table) touch(table, 'select', 'denied');
    }
  }
  const all = [...cells.values()];
  const covered = all.filter((c) => c.allowed + c.denied > 0).length;
  return { cells: all, covered, total: all.length, percent: all.length === 0 ? 100 : Math.round((covered / all.length) * 1000) / 10 };
}

/** The matrix as text: one block per role, a row per table, a column per operation (`A` allowed, `D` denied, `-` none). */
export function renderCoverage(cov: Coverage): string[] {
  const lines: string[] = [];
  const roles = [...new Set(cov.cells.map((c) => c.role))];
  const width = Math.max(5, ...cov.cells.map((c) => c.table.length));
  for (const role of roles) {
    lines.push(`role ${role}`);
    lines.push(`  ${'table'.padEnd(width)}  ${OPERATIONS.map((o) => o.padEnd(8)).join('')}`.trimEnd());
    for (const table of [...new Set(cov.cells.filter((c) => c.role === role).map((c) => c.table))]) {
      const row = OPERATIONS.map((op) => {
        const cell = cov.cells.find((c) => c.role === role && c.table === table && c.operation === op);
        const mark = !cell ? '' : `${cell.allowed > 0 ? 'A' : ''}${cell.denied > 0 ? 'D' : ''}` || '-';
        return `${mark}${cell?.permitted ? '' : '*'}`.padEnd(8);
      });
      lines.push(`  ${table.padEnd(width)}  ${row.join('')}`.trimEnd());
    }
  }
  lines.push('A allowed path exercised, D denied path exercised, - not exercised; * the role has no such permission');
  lines.push(`Permission coverage: ${cov.covered}/${cov.total} (${cov.percent}%)`);
  return lines;
}
