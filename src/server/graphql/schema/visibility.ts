import { compareCodePoints, type Json } from '../../../metadata/json.js';
import { qnKey } from '../../../metadata/names.js';
import type { ComputedField, PermissionDef, PermKind, TableEntry } from '../../../metadata/types.js';
import type { DbFunction, DbFunctionArg } from '../../db-catalog.js';
import type { ResolvedComputedField } from '../../kinds/computed-fields.js';
import type { ResolvedRelationship } from '../../kinds/relationships.js';
import { permKey, type ResolvedTable, type SchemaCache } from '../../schema-cache.js';
import { tableColumns, type GqlColumn } from './columns.js';
import { memoByObject } from './memo.js';
import { isGraphqlName } from './names.js';
import { tableNames } from './table-names.js';

/** What one role may see of one table (graphql-api.md §3), computed once per (schema cache, role). */
export interface TableView {
  key: string;
  rt: ResolvedTable;
  /** The table's GraphQL name `T`. */
  name: string;
  /** Visible columns with a GraphQL field, attnum order. */
  columns: GqlColumn[];
  /** Scalar computed fields, sorted by name. */
  scalarCfs: CfView[];
  /** Computed fields returning rows of a table the role may select, sorted by name. */
  tableCfs: CfView[];
  objRels: RelView[];
  arrRels: RelView[];
  aggregates: boolean;
  /** The query root fields the role gets (`query_root_fields`, issue 29): null for all. */
  queryRoots: ReadonlySet<string> | null;
  /** The subscription root fields the role gets (`subscription_root_fields`, issue 32.4): null for all. */
  subscriptionRoots: ReadonlySet<string> | null;
  /** The select filter; null for admin. */
  filter: Json | null;
  limit: number | null;
  /** Primary-key columns in constraint order when they are all visible. */
  pk: GqlColumn[] | null;
  /**
   * An inherited role's union (issue 27): per column (`c:<sql name>`), computed field (`f:<name>`) and relationship
   * (`r:<name>`) that not every member role grants, the rows where it is visible — the filters of the members that
   * grant it, ORed. Elsewhere the cell is null (the incumbent's rule). Null when every cell of every row is visible.
   */
  cells: Map<string, Json> | null;
}

export interface FnArgs {
  /** User arguments in declaration order; `required` when the argument has no default. */
  args: { arg: DbFunctionArg; required: boolean }[];
  sessionArg: string | undefined;
  tableArg: DbFunctionArg | undefined;
}

export interface CfView {
  name: string;
  def: ComputedField;
  cf: ResolvedComputedField;
  fnArgs: FnArgs;
  /** Key of the table whose rows it returns. */
  target: string | null;
}

export interface RelView {
  name: string;
  rel: ResolvedRelationship;
  remoteKey: string;
  comment: string | null;
}

/**
 * A function's user arguments (§2.8): its inputs minus the table and session arguments. Null when one of them is
 * unnamed: named notation is impossible, so the function is not exposed.
 */
export function fnArgs(fn: DbFunction, tableArg: string | null | undefined, sessionArg: string | undefined): FnArgs | null {
  const firstDefault = fn.inputs.length - fn.numDefaults;
  const table = tableArg === null ? undefined : tableArg === undefined ? fn.inputs[0] : fn.inputs.find((a) => a.name === tableArg);
  const args: FnArgs['args'] = [];
  for (const [i, arg] of fn.inputs.entries()) {
    if (arg === table || (sessionArg !== undefined && arg.name === sessionArg)) continue;
    if (!isGraphqlName(arg.name)) return null;
    args.push({ arg, required: i < firstDefault });
  }
  return { args, sessionArg, tableArg: table };
}

/** The roles an inherited role stands for, inherited members expanded (the metadata forbids cycles). */
export function memberRoles(cache: SchemaCache, role: string, seen = new Set<string>()): string[] {
  const ir = cache.metadata.inherited_roles.get(role);
  if (!ir || seen.has(role)) return [role];
  seen.add(role);
  return [...new Set(ir.role_set.flatMap((r) => memberRoles(cache, r, seen)))];
}

/** Several select permissions as one: rows any of them shows, columns any of them lists (the incumbent's union). */
function unionOfSelects(perms: PermissionDef[]): PermissionDef {
  const columns = perms.some((p) => p.columns === '*') ? '*' : [...new Set(perms.flatMap((p) => (Array.isArray(p.columns) ? p.columns : [])))];
  const limits = perms.map((p) => p.limit);
  return {
    columns,
    computed_fields: [...new Set(perms.flatMap((p) => p.computed_fields ?? []))],
    filter: { _or: perms.map((p) => p.filter ?? {}) },
    allow_aggregations: perms.some((p) => p.allow_aggregations === true),
    ...(perms.every((p) => p.query_root_fields) ? { query_root_fields: [...new Set(perms.flatMap((p) => p.query_root_fields ?? []))] } : {}),
    ...(perms.every((p) => p.subscription_root_fields) ? { subscription_root_fields: [...new Set(perms.flatMap((p) => p.subscription_root_fields ?? []))] } : {}),
    ...(limits.every((l): l is number => l !== undefined) ? { limit: Math.max(...limits) } : {}),
  };
}

export class RoleView {
  readonly admin: boolean;
  private readonly views = new Map<string, TableView | null>();

  /** `backendOnly`: the caller may use backend-only insert permissions (admin secret and the header, issue 12). */
  constructor(readonly cache: SchemaCache, readonly role: string, readonly backendOnly = false) {
    this.admin = role === 'admin';
  }

  permission(rt: ResolvedTable, kind: PermKind): PermissionDef | undefined {
    const own = this.direct(rt, kind, this.role);
    if (own || kind !== 'select' || !this.cache.metadata.inherited_roles.has(this.role)) return own;
    // An inherited role selects what any of its member roles selects (issue 12); its own permission, if any, wins.
    const perms = this.memberSelects(rt).map(([, p]) => p);
    return perms.length <= 1 ? perms[0] : unionOfSelects(perms);
  }

  /** The member roles' select permissions an inherited role without one of its own unites, with their roles. */
  private memberSelects(rt: ResolvedTable): [string, PermissionDef][] {
    if (this.admin || this.direct(rt, 'select', this.role) || !this.cache.metadata.inherited_roles.has(this.role)) return [];
    return memberRoles(this.cache, this.role).flatMap((r): [string, PermissionDef][] => {
      const p = this.direct(rt, 'select', r);
      return p ? [[r, p]] : [];
    });
  }

  /** Whether `role` (a member, or this role when it has a permission of its own) may select the table `key`. */
  private selects(key: string, role: string): boolean {
    const rt = this.cache.tables.get(key);
    return rt !== undefined && (this.direct(rt, 'select', this.role) !== undefined || this.direct(rt, 'select', role) !== undefined);
  }

  /** The cells of an inherited union that only some members grant (TableView.cells); null when all grant all. */
  private cellsOf(view: TableView, members: [string, PermissionDef][]): Map<string, Json> | null {
    if (members.length < 2) return null;
    const cells = new Map<string, Json>();
    const add = (key: string, grants: (role: string, p: PermissionDef) => boolean): void => {
      const granting = members.filter(([r, p]) => grants(r, p));
      if (granting.length === members.length) return;
      const filters = granting.map(([, p]) => p.filter ?? {});
      // No member granting it: never visible (an inherited role's own permission on another table can cause this).
      cells.set(key, filters.length === 1 ? (filters[0] as Json) : { _or: filters });
    };
    for (const c of view.columns) add(`c:${c.name}`, (_, p) => p.columns === '*' || (Array.isArray(p.columns) && p.columns.includes(c.name)));
    for (const cf of view.scalarCfs) add(`f:${cf.name}`, (_, p) => (p.computed_fields ?? []).includes(cf.name));
    for (const cf of view.tableCfs) add(`f:${cf.name}`, (r) => cf.target !== null && this.selects(cf.target, r));
    for (const rel of [...view.objRels, ...view.arrRels]) add(`r:${rel.name}`, (r) => this.selects(rel.remoteKey, r));
    return cells.size > 0 ? cells : null;
  }

  private direct(rt: ResolvedTable, kind: PermKind, role: string): PermissionDef | undefined {
    if (!rt.permissions.has(permKey(kind, role))) return undefined;
    const list = kind === 'select' ? rt.entry.select_permissions : kind === 'insert' ? rt.entry.insert_permissions
      : kind === 'update' ? rt.entry.update_permissions : rt.entry.delete_permissions;
    const perm = list.find((p) => p.role === role)?.permission;
    return perm?.backend_only === true && !this.backendOnly ? undefined : perm;
  }

  /** The table as the role may select it, or null. */
  table(key: string): TableView | null {
    const known = this.views.get(key);
    if (known !== undefined) return known;
    const view = this.build(key);
    if (!view) this.views.set(key, null);
    return view;
  }

  private build(key: string): TableView | null {
    const rt = this.cache.tables.get(key);
    if (!rt) return null;
    const name = tableNames(rt.entry).type;
    if (!isGraphqlName(name)) return null;
    const perm = this.admin ? undefined : this.permission(rt, 'select');
    if (!this.admin && !perm) return null;
    const s = shapeOf(rt);
    const listed = perm?.columns;
    const columns = this.admin || listed === '*' ? s.columns : s.columns.filter((c) => Array.isArray(listed) && listed.includes(c.name));
    const pk = s.pk ? s.pk.map((c) => columns.find((x) => x.name === c)) : null;
    const view: TableView = {
      key, rt, name, columns, scalarCfs: [], tableCfs: [], objRels: [], arrRels: [],
      aggregates: this.admin || perm?.allow_aggregations === true,
      queryRoots: this.admin || !perm?.query_root_fields ? null : new Set(perm.query_root_fields),
      subscriptionRoots: this.admin || !perm?.subscription_root_fields ? null : new Set(perm.subscription_root_fields),
      filter: this.admin ? null : (perm?.filter ?? {}),
      limit: this.admin ? null : (perm?.limit ?? null),
      pk: pk && pk.every((c) => c !== undefined) ? (pk as GqlColumn[]) : null,
      cells: null,
    };
    // Registered before its fields are resolved: relationships and computed fields may lead back here.
    this.views.set(key, view);
    for (const cf of s.cfs) {
      if (cf.target) {
        if (this.table(cf.target)) view.tableCfs.push(cf);
      } else if (this.admin || (perm?.computed_fields ?? []).includes(cf.name)) {
        view.scalarCfs.push(cf);
      }
    }
    view.objRels = this.visible(s.objRels);
    view.arrRels = this.visible(s.arrRels);
    view.cells = this.cellsOf(view, this.memberSelects(rt));
    return view;
  }

  /** The relationships to tables the role may select: the shape's own list when that is all of them. */
  private visible(rels: RelView[]): RelView[] {
    let all = true;
    for (const r of rels) if (!this.table(r.remoteKey)) all = false;
    return all ? rels : rels.filter((r) => this.table(r.remoteKey) !== null);
  }
}

/** What a table offers every role, computed once per resolved table: its roles' views take from it. */
interface TableShape {
  /** Columns with a GraphQL field, attnum order. */
  columns: GqlColumn[];
  /** Primary-key column names, constraint order. */
  pk: string[] | null;
  /** Computed fields with a free valid name and named arguments, sorted by name. */
  cfs: CfView[];
  /** Relationships with a free valid name, sorted by name. */
  objRels: RelView[];
  arrRels: RelView[];
}

const shapeOf = memoByObject((rt: ResolvedTable): TableShape => {
  const cols = tableColumns(rt);
  const cfs: CfView[] = [];
  for (const def of [...rt.entry.computed_fields].sort((a, b) => compareCodePoints(a.name, b.name))) {
    const cf = rt.computedFields.get(def.name);
    if (!cf || !isGraphqlName(def.name) || cols.fields.has(def.name)) continue;
    const args = fnArgs(cf.fn, def.definition.table_argument, def.definition.session_argument);
    if (args) cfs.push({ name: def.name, def, cf, fnArgs: args, target: cf.returnsTable ? qnKey(cf.returnsTable) : null });
  }
  const rels = (list: TableEntry['object_relationships']): RelView[] => {
    const out: RelView[] = [];
    for (const r of [...list].sort((a, b) => compareCodePoints(a.name, b.name))) {
      const rel = rt.relationships.get(r.name);
      if (rel && isGraphqlName(r.name) && !cols.fields.has(r.name)) out.push({ name: r.name, rel, remoteKey: qnKey(rel.remote), comment: r.comment });
    }
    return out;
  };
  return {
    columns: cols.exposed, pk: rt.db.uniques.find((u) => u.primary)?.columns ?? null, cfs,
    objRels: rels(rt.entry.object_relationships), arrRels: rels(rt.entry.array_relationships),
  };
});
