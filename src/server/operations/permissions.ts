import { badRequest } from '../../errors.js';
import { at, comment, exclusive, obj, oneOf, opt, qualifiedName, req, roleName } from '../../metadata/reader.js';
import { qnKey, qnQuoted } from '../../metadata/names.js';
import { parsePermissionDef, permField } from '../../metadata/kinds/permissions.js';
import { PERM_KINDS, type PermKind, type Permission, type QualifiedName } from '../../metadata/types.js';
import { recordJson } from '../inconsistency.js';
import { permId, permPrefix, permRecord } from '../kinds/permissions.js';
import type { OpContext } from '../context.js';
import { op, SUCCESS, type Operation } from './operation.js';
import { requireTracked, withEntry } from './table-objects.js';

interface CreateArgs {
  table: QualifiedName;
  perm: Permission;
}

function findPermission(ctx: OpContext, table: QualifiedName, kind: PermKind, role: string): Permission | undefined {
  return ctx.metadata.tables.get(qnKey(table))?.[permField(kind)].find((p) => p.role === role);
}

function notDefined(kind: PermKind, table: QualifiedName, role: string) {
  return badRequest('not-exists', '$.args', `${kind} permission on ${qnQuoted(table)} for role "${role}" does not exist`);
}

/** Replaces (or with `perm` null removes) one permission of a table in a copy of the metadata. */
function withPermission(ctx: OpContext, table: QualifiedName, kind: PermKind, role: string, perm: Permission | null) {
  const field = permField(kind);
  return withEntry(ctx, table, (entry) => {
    const others = entry[field].filter((p) => p.role !== role);
    return { [field]: perm ? [...others, perm] : others };
  });
}

function createPermission(kind: PermKind): Operation<CreateArgs> {
  return {
    write: true,
    parse(args, path) {
      const o = obj(args, path);
      const table = qualifiedName(req(o, 'table', path), at(path, 'table'));
      const role = roleName(req(o, 'role', path), at(path, 'role'));
      const permission = parsePermissionDef(kind, req(o, 'permission', path), at(path, 'permission'));
      return { table, perm: { role, permission, comment: comment(o, path) } };
    },
    async run(ctx, { table, perm }) {
      requireTracked(ctx, table);
      if (perm.role === 'admin') {
        const rec = permRecord(kind, table, perm, 'cannot define permission for admin role');
        throw badRequest('constraint-violation', '$.args', rec.reason, [recordJson(rec)]);
      }
      if (findPermission(ctx, table, kind, perm.role)) {
        throw badRequest('already-exists', '$.args', `'${kind}' permission on ${qnQuoted(table)} for role "${perm.role}" already exists`);
      }
      ctx.apply(withPermission(ctx, table, kind, perm.role, perm), 'incremental', {
        id: permId(kind, table, perm.role), table, prefix: permPrefix(table, perm.role),
        record: () => permRecord(kind, table, perm, ''),
      });
      return SUCCESS;
    },
  };
}

function dropPermission(kind: PermKind): Operation<{ table: QualifiedName; role: string }> {
  return {
    write: true,
    parse(args, path) {
      const o = obj(args, path);
      return { table: qualifiedName(req(o, 'table', path), at(path, 'table')), role: roleName(req(o, 'role', path), at(path, 'role')) };
    },
    async run(ctx, { table, role }) {
      requireTracked(ctx, table);
      if (!findPermission(ctx, table, kind, role)) throw notDefined(kind, table, role);
      ctx.apply(withPermission(ctx, table, kind, role, null));
      return SUCCESS;
    },
  };
}

const setPermissionComment: Operation<{ table: QualifiedName; role: string; kind: PermKind; comment: string | null }> = {
  write: true,
  parse(args, path) {
    const o = obj(args, path);
    const key = exclusive(o, 'type', 'permission', path);
    const table = qualifiedName(req(o, 'table', path), at(path, 'table'));
    const role = roleName(req(o, 'role', path), at(path, 'role'));
    const kind = oneOf(opt(o, key), at(path, key), PERM_KINDS);
    return { table, role, kind, comment: comment(o, path) };
  },
  async run(ctx, args) {
    requireTracked(ctx, args.table);
    const existing = findPermission(ctx, args.table, args.kind, args.role);
    if (!existing) throw notDefined(args.kind, args.table, args.role);
    ctx.apply(withPermission(ctx, args.table, args.kind, args.role, { ...existing, comment: args.comment }));
    return SUCCESS;
  },
};

export const permissionOperations: Record<string, Operation<unknown>> = Object.fromEntries([
  ...PERM_KINDS.flatMap((kind) => [
    [`create_${kind}_permission`, op(createPermission(kind))],
    [`drop_${kind}_permission`, op(dropPermission(kind))],
  ]),
  ['set_permission_comment', op(setPermissionComment)],
]);

