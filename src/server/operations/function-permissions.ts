import { badRequest } from '../../errors.js';
import { at, obj, qualifiedName, req, roleName } from '../../metadata/reader.js';
import { qnKey, qnQuoted } from '../../metadata/names.js';
import { cloneMetadata } from '../../metadata/document.js';
import type { FunctionEntry, QualifiedName } from '../../metadata/types.js';
import { op, SUCCESS, type Operation } from './operation.js';
import { onlyKeys } from './table-settings.js';
import type { OpContext } from '../context.js';

/**
 * The incumbent's function permissions (issue 29 point 6): `create_function_permission` / `drop_function_permission`
 * keep the roles in the function's metadata entry. They grant the function's root fields only with
 * ENGINE_GRAPHQL_INFER_FUNCTION_PERMISSIONS=false (graphql/schema/functions.ts); by default (the incumbent's) those
 * follow the select permission of the table the function returns, and the roles are only stored and exported.
 */

interface Args { fn: QualifiedName; role: string }

function parse(args: unknown, path: string): Args {
  const o = obj(args, path);
  onlyKeys(o, path, ['function', 'role', 'source', 'comment']);
  return { fn: qualifiedName(req(o, 'function', path), at(path, 'function')), role: roleName(req(o, 'role', path), at(path, 'role')) };
}

function tracked(ctx: OpContext, fn: QualifiedName): FunctionEntry {
  const entry = ctx.metadata.functions.get(qnKey(fn));
  if (!entry) throw badRequest('not-exists', '$.args.function', `function ${qnQuoted(fn)} is not tracked`);
  return entry;
}

function store(ctx: OpContext, entry: FunctionEntry, roles: string[]): void {
  const md = cloneMetadata(ctx.metadata);
  const next: FunctionEntry = { function: entry.function, configuration: entry.configuration };
  if (roles.length > 0) next.permissions = roles;
  md.functions.set(qnKey(entry.function), next);
  ctx.apply(md);
}

/** The incumbent's rule: a function permission needs the role's select permission on the table the function returns. */
function checkReturnTable(ctx: OpContext, fn: QualifiedName, role: string): void {
  const returned = ctx.cache.catalog.tablesByOid.get(ctx.cache.catalog.functions.get(qnKey(fn))?.[0]?.returnRelid ?? '');
  const entry = returned && ctx.metadata.tables.get(qnKey(returned));
  if (!returned || !entry) return;
  // An inherited role selects what its member roles select.
  const selects = (r: string, seen: Set<string>): boolean => entry.select_permissions.some((p) => p.role === r)
    || (!seen.has(r) && (ctx.metadata.inherited_roles.get(r)?.role_set ?? []).some((m) => selects(m, new Set([...seen, r]))));
  if (!selects(role, new Set())) {
    throw badRequest('not-supported', '$.args', `function permission can only be added when the function's return table ${qnQuoted(returned)} has select permission configured for role: "${role}"`);
  }
}

const createFunctionPermission: Operation<Args> = {
  write: true,
  parse: (args, path) => parse(args, path),
  async run(ctx, { fn, role }) {
    const entry = tracked(ctx, fn);
    const roles = entry.permissions ?? [];
    if (roles.includes(role)) throw badRequest('already-exists', '$.args', `permission on function ${qnQuoted(fn)} for role "${role}" already exists`);
    checkReturnTable(ctx, fn, role);
    store(ctx, entry, [...roles, role]);
    return SUCCESS;
  },
};

const dropFunctionPermission: Operation<Args> = {
  write: true,
  parse: (args, path) => parse(args, path),
  async run(ctx, { fn, role }) {
    const entry = tracked(ctx, fn);
    const roles = entry.permissions ?? [];
    if (!roles.includes(role)) throw badRequest('not-exists', '$.args', `permission on function ${qnQuoted(fn)} for role "${role}" does not exist`);
    store(ctx, entry, roles.filter((r) => r !== role));
    return SUCCESS;
  },
};

export const functionPermissionOperations: Record<string, Operation<unknown>> = {
  create_function_permission: op(createFunctionPermission),
  drop_function_permission: op(dropFunctionPermission),
};
