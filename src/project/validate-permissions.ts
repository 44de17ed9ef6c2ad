/**
 * Permission entries of tables.yaml (engine-api.md §4.3.2; cli.md §4.13 "Permissions"): `{role, permission, comment?}`.
 * The `permission` mapping is named like its entry in messages (`select permission for role "user" on public.author
 * is missing required key "filter"`): the position tells which mapping is meant.
 */
import { checkBoolExp } from './validate-bool-exp.js';
import { checkKeys, comment, isObj, list, mapping, optional, present, string, boolean, type Ctx, type Obj, type Path } from './validate-core.js';

export const PERM_KINDS = ['insert', 'select', 'update', 'delete'] as const;
export type PermKind = (typeof PERM_KINDS)[number];

const PERMISSION_KEYS: Record<PermKind, readonly string[]> = {
  insert: ['check', 'set', 'columns', 'backend_only'],
  select: ['columns', 'computed_fields', 'filter', 'limit', 'allow_aggregations'],
  update: ['columns', 'filter', 'check', 'set'],
  delete: ['filter'],
};

const REQUIRED: Record<PermKind, readonly string[]> = {
  insert: ['check'],
  select: ['columns', 'filter'],
  update: ['columns', 'filter'],
  delete: ['filter'],
};

const isScalar = (v: unknown): boolean => v === null || ['string', 'number', 'boolean'].includes(typeof v);

const invalid = (c: Ctx, message: string, path: Path): void => c.error('permission-invalid', message, path);

export interface PermissionOwner {
  /** `<schema>.<table>`, or `table #n` when the entry has no usable name. */
  text: string;
  /** Whether `text` is a real table name (references are checked only then). */
  named: boolean;
  /** The names of the table's computed fields, for select `computed_fields`. */
  computedFields: Set<string>;
}

export function checkPermission(c: Ctx, kind: PermKind, v: unknown, path: Path, i: number, owner: PermissionOwner): void {
  const o = mapping(c, v, path);
  if (!o) return;
  const role = o['role'];
  const thing = typeof role === 'string'
    ? `${kind} permission for role "${role}" on ${owner.text}`
    : `${kind} permission #${i + 1} on ${owner.text}`;
  checkKeys(c, o, path, thing, ['role', 'permission', 'comment'], ['role', 'permission']);
  optional(o, path, 'role', (x, p) => {
    if (string(c, x, p, true) === 'admin') invalid(c, 'cannot define a permission for the admin role', p);
  });
  comment(c, o, path);
  optional(o, path, 'permission', (x, p) => {
    const perm = mapping(c, x, p);
    if (perm) permissionBody(c, kind, perm, p, thing, owner);
  });
}

function permissionBody(c: Ctx, kind: PermKind, o: Obj, path: Path, thing: string, owner: PermissionOwner): void {
  checkKeys(c, o, path, thing, PERMISSION_KEYS[kind], REQUIRED[kind]);
  const has = (key: string) => PERMISSION_KEYS[kind].includes(key);
  optional(o, path, 'columns', (v, p) => {
    if (v !== '*' && !(Array.isArray(v) && v.every((x) => typeof x === 'string'))) {
      invalid(c, '"columns" must be "*" or a list of column names', p);
    }
  });
  for (const key of ['filter', 'check']) if (has(key)) optional(o, path, key, (v, p) => checkBoolExp(c, v, p));
  if (has('set')) optional(o, path, 'set', (v, p) => presets(c, v, p));
  if (kind !== 'select') {
    if (has('backend_only')) optional(o, path, 'backend_only', (v, p) => boolean(c, v, p));
    return;
  }
  optional(o, path, 'limit', (v, p) => {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) invalid(c, '"limit" must be an integer ≥ 1', p);
  });
  optional(o, path, 'allow_aggregations', (v, p) => boolean(c, v, p));
  optional(o, path, 'computed_fields', (v, p) =>
    list(c, v, p)?.forEach((name, j) => {
      const np = [...p, j];
      if (string(c, name, np) === undefined || !owner.named || owner.computedFields.has(name as string)) return;
      invalid(c, `computed field "${name as string}" is not defined on table ${owner.text}`, np);
    }));
}

/** ColumnPresets: a mapping of column names to scalars (a value, a session variable or `NOW()`). */
function presets(c: Ctx, v: unknown, path: Path): void {
  const message = '"set" must map column names to scalar values';
  if (!isObj(v)) {
    invalid(c, message, path);
    return;
  }
  for (const [column, value] of Object.entries(v)) if (present(value) && !isScalar(value)) invalid(c, message, [...path, column]);
}
