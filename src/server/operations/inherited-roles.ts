import { badRequest } from '../../errors.js';
import { cloneMetadata } from '../../metadata/document.js';
import { checkInheritance, parseInheritedRole } from '../../metadata/kinds/inherited-roles.js';
import { at, obj, req, roleName } from '../../metadata/reader.js';
import type { InheritedRole } from '../../metadata/types.js';
import { op, SUCCESS, type Operation } from './operation.js';

/** `add_inherited_role {role_name, role_set}`: the incumbent's operation; an existing role name is `already-exists`. */
const addInheritedRole: Operation<InheritedRole> = {
  write: true,
  parse: (args, path) => parseInheritedRole(args, path),
  async run(ctx, role) {
    if (ctx.metadata.inherited_roles.has(role.role_name)) {
      throw badRequest('already-exists', '$.args.role_name', `the inherited role "${role.role_name}" already exists`);
    }
    const md = cloneMetadata(ctx.metadata);
    md.inherited_roles.set(role.role_name, role);
    checkInheritance([...md.inherited_roles.values()], '$.args');
    ctx.apply(md);
    return SUCCESS;
  },
};

/** `drop_inherited_role {role_name}`. */
const dropInheritedRole: Operation<string> = {
  write: true,
  parse(args, path) {
    const o = obj(args, path);
    return roleName(req(o, 'role_name', path), at(path, 'role_name'));
  },
  async run(ctx, name) {
    if (!ctx.metadata.inherited_roles.has(name)) {
      throw badRequest('not-exists', '$.args.role_name', `the inherited role "${name}" does not exist`);
    }
    const md = cloneMetadata(ctx.metadata);
    md.inherited_roles.delete(name);
    ctx.apply(md);
    return SUCCESS;
  },
};

export const inheritedRoleOperations: Record<string, Operation<unknown>> = {
  add_inherited_role: op(addInheritedRole),
  drop_inherited_role: op(dropInheritedRole),
};
