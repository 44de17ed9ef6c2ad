/**
 * One page of the tracked tables with their permission matrix, searched by name: the console's table list and matrix.
 * Pure (no Node imports) so that `engine console` answers it server-side and the console bundle runs the same code when
 * it is served by `engine serve` without a project.
 */
export const PERMISSION_TYPES = ['insert', 'select', 'update', 'delete'] as const;
export type PermissionType = (typeof PERMISSION_TYPES)[number];

/** none: the role has no such permission; all: without a row filter (or check); filter: with one. */
export type CellState = 'none' | 'all' | 'filter';

export interface TableRow {
  schema: string;
  name: string;
  /** role → type → state, only roles with at least one permission on the table. */
  cells: Record<string, Partial<Record<PermissionType, CellState>>>;
  /** The GraphQL names of the table (custom_name and custom_root_fields.select honoured), for the data browser. */
  typeName: string;
  selectField: string;
  insertOneField: string;
  updateField: string;
  deleteField: string;
}

export interface TablePage {
  total: number;
  offset: number;
  limit: number;
  /** Every role of the metadata's table permissions, sorted: the matrix's columns stay put while paging. */
  roles: string[];
  tables: TableRow[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isEmpty = (v: unknown) => v === undefined || (isObj(v) && Object.keys(v).length === 0);

function stateOf(type: PermissionType, permission: unknown): CellState {
  if (!isObj(permission)) return 'all';
  const rowChecks = type === 'insert' ? [permission['check']] : type === 'update' ? [permission['filter'], permission['check']] : [permission['filter']];
  return rowChecks.every(isEmpty) ? 'all' : 'filter';
}

function tableName(entry: Obj): { schema: string; name: string } {
  const t = entry['table'];
  if (typeof t === 'string') return { schema: 'public', name: t };
  return isObj(t) ? { schema: String(t['schema'] ?? 'public'), name: String(t['name']) } : { schema: 'public', name: '' };
}

/** `search` matches `schema.name` case-insensitively anywhere; the order is schema, then name. */
export function tablePage(metadata: unknown, search: string, offset: number, limit: number): TablePage {
  const entries = isObj(metadata) && Array.isArray(metadata['tables']) ? (metadata['tables'] as unknown[]).filter(isObj) : [];
  const roles = new Set<string>();
  const needle = search.trim().toLowerCase();
  const matching: { entry: Obj; schema: string; name: string }[] = [];
  for (const entry of entries) {
    for (const type of PERMISSION_TYPES) {
      const list = entry[`${type}_permissions`];
      if (Array.isArray(list)) for (const p of list) if (isObj(p)) roles.add(String(p['role']));
    }
    const { schema, name } = tableName(entry);
    if (needle === '' || `${schema}.${name}`.toLowerCase().includes(needle)) matching.push({ entry, schema, name });
  }
  matching.sort((a, b) => (a.schema === b.schema ? (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) : a.schema < b.schema ? -1 : 1));
  const start = Math.max(0, Math.min(offset, matching.length));
  const tables = matching.slice(start, start + limit).map(({ entry, schema, name }) => {
    const cells: TableRow['cells'] = {};
    for (const type of PERMISSION_TYPES) {
      const list = entry[`${type}_permissions`];
      if (!Array.isArray(list)) continue;
      for (const p of list) if (isObj(p)) (cells[String(p['role'])] ??= {})[type] = stateOf(type, p['permission']);
    }
    const conf = isObj(entry['configuration']) ? entry['configuration'] : {};
    const roots = isObj(conf['custom_root_fields']) ? conf['custom_root_fields'] : {};
    const typeName = typeof conf['custom_name'] === 'string' ? conf['custom_name'] : schema === 'public' ? name : `${schema}_${name}`;
    const root = (key: string, fallback: string) => {
      const v = roots[key];
      return typeof v === 'string' ? v : isObj(v) && typeof v['name'] === 'string' ? v['name'] : fallback;
    };
    return {
      schema, name, cells, typeName, selectField: root('select', typeName),
      insertOneField: root('insert_one', `insert_${typeName}_one`), updateField: root('update', `update_${typeName}`), deleteField: root('delete', `delete_${typeName}`),
    };
  });
  return { total: matching.length, offset: start, limit, roles: [...roles].sort(), tables };
}

/** The permission object of one cell, or null. */
export function permissionOf(metadata: unknown, schema: string, name: string, role: string, type: PermissionType): Obj | null {
  const entries = isObj(metadata) && Array.isArray(metadata['tables']) ? (metadata['tables'] as unknown[]).filter(isObj) : [];
  const entry = entries.find((e) => { const t = tableName(e); return t.schema === schema && t.name === name; });
  const list = entry?.[`${type}_permissions`];
  const found = Array.isArray(list) ? list.find((p) => isObj(p) && p['role'] === role) : undefined;
  return isObj(found) && isObj(found['permission']) ? found['permission'] : null;
}
