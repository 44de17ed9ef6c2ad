import { badRequest } from '../../errors.js';
import { at, comment, exclusive, graphqlName, obj, opt, optBool, req, roleName } from '../../metadata/reader.js';
import { cloneMetadata } from '../../metadata/document.js';
import { parseActionDefinition, parseCustomTypes } from '../../metadata/kinds/actions.js';
import type { Action, CustomTypes } from '../../metadata/types.js';
import { recordJson } from '../inconsistency.js';
import { actionId, actionPermRecord, actionPrefix, actionRecord } from '../kinds/actions.js';
import { CUSTOM_TYPES_ID, customTypeReasons, customTypesRecord } from '../kinds/custom-types.js';
import type { OpContext } from '../context.js';
import { op, SUCCESS, type Operation } from './operation.js';

const setCustomTypes: Operation<CustomTypes> = {
  write: true,
  parse: (args, path) => parseCustomTypes(args, path),
  async run(ctx, ct) {
    // Invalid custom types fail with their own record alone (§4.6.1), not with the actions they would break.
    const reasons = customTypeReasons(ct, ctx.cache.catalog, ctx.cache.tables);
    if (reasons.length > 0) {
      const rec = customTypesRecord(ct, reasons);
      throw badRequest('constraint-violation', '$.args', rec.reason, [recordJson(rec)]);
    }
    const md = cloneMetadata(ctx.metadata);
    md.custom_types = ct;
    ctx.apply(md, 'incremental', { id: CUSTOM_TYPES_ID, prefix: '', record: () => customTypesRecord(ct, []) });
    return SUCCESS;
  },
};

function requireAction(ctx: OpContext, name: string, path: string): Action {
  const a = ctx.metadata.actions.get(name);
  if (!a) throw badRequest('not-exists', path, `action with name "${name}" does not exist`);
  return a;
}

function installAction(ctx: OpContext, a: Action): void {
  const md = cloneMetadata(ctx.metadata);
  md.actions.set(a.name, a);
  ctx.apply(md, 'incremental', { id: actionId(a.name), prefix: actionPrefix(a.name), record: () => actionRecord(a, '') });
}

const createAction: Operation<Action> = {
  write: true,
  parse(args, path) {
    const o = obj(args, path);
    return {
      name: graphqlName(req(o, 'name', path), at(path, 'name')),
      definition: parseActionDefinition(req(o, 'definition', path), at(path, 'definition')),
      comment: comment(o, path),
      permissions: [],
    };
  },
  async run(ctx, a) {
    if (ctx.metadata.actions.has(a.name)) throw badRequest('already-exists', '$.args.name', `action with name "${a.name}" already exists`);
    installAction(ctx, a);
    return SUCCESS;
  },
};

const updateAction: Operation<{ name: string; definition: Action['definition']; comment?: string | null }> = {
  write: true,
  parse(args, path) {
    const o = obj(args, path);
    return {
      name: graphqlName(req(o, 'name', path), at(path, 'name')),
      definition: parseActionDefinition(req(o, 'definition', path), at(path, 'definition')),
      ...('comment' in o ? { comment: comment(o, path) } : {}),
    };
  },
  async run(ctx, args) {
    const existing = requireAction(ctx, args.name, '$.args.name');
    installAction(ctx, { ...existing, definition: args.definition, comment: args.comment === undefined ? existing.comment : args.comment });
    return SUCCESS;
  },
};

const dropAction: Operation<{ name: string; clearData: boolean }> = {
  write: true,
  parse(args, path) {
    const o = obj(args, path);
    return { name: graphqlName(req(o, 'name', path), at(path, 'name')), clearData: optBool(o, 'clear_data', path, true) };
  },
  async run(ctx, { name, clearData }) {
    requireAction(ctx, name, '$.args.name');
    const md = cloneMetadata(ctx.metadata);
    md.actions.delete(name);
    ctx.apply(md);
    if (clearData) await ctx.tx.query('DELETE FROM engine_catalog.action_log WHERE action_name = $1', [name]);
    return SUCCESS;
  },
};

interface PermArgs {
  action: string;
  key: string;
  role: string;
  comment: string | null;
}

function parsePermArgs(args: unknown, path: string): PermArgs {
  const o = obj(args, path);
  const key = exclusive(o, 'action', 'name', path);
  return {
    action: graphqlName(opt(o, key), at(path, key)),
    key,
    role: roleName(req(o, 'role', path), at(path, 'role')),
    comment: comment(o, path),
  };
}

function withActionPermissions(ctx: OpContext, name: string, f: (ps: Action['permissions']) => Action['permissions']) {
  const md = cloneMetadata(ctx.metadata);
  const a = md.actions.get(name);
  if (a) md.actions.set(name, { ...a, permissions: f(a.permissions) });
  return md;
}

const createActionPermission: Operation<PermArgs> = {
  write: true,
  parse: parsePermArgs,
  async run(ctx, p) {
    const a = requireAction(ctx, p.action, `$.args.${p.key}`);
    if (p.role === 'admin') {
      const rec = actionPermRecord(p.action, p, 'cannot define permission for admin role');
      throw badRequest('constraint-violation', '$.args', rec.reason, [recordJson(rec)]);
    }
    if (a.permissions.some((x) => x.role === p.role)) {
      throw badRequest('already-exists', '$.args', `permission for role "${p.role}" is already defined on "${p.action}"`);
    }
    if (!ctx.cache.consistentActions.has(p.action)) {
      const rec = actionPermRecord(p.action, p, `action "${p.action}" is inconsistent`);
      throw badRequest('constraint-violation', '$.args', rec.reason, [recordJson(rec)]);
    }
    ctx.apply(withActionPermissions(ctx, p.action, (ps) => [...ps, { role: p.role, comment: p.comment }]));
    return SUCCESS;
  },
};

const dropActionPermission: Operation<PermArgs> = {
  write: true,
  parse: parsePermArgs,
  async run(ctx, p) {
    const a = requireAction(ctx, p.action, `$.args.${p.key}`);
    if (!a.permissions.some((x) => x.role === p.role)) {
      throw badRequest('not-exists', '$.args', `permission for role "${p.role}" is not defined on "${p.action}"`);
    }
    ctx.apply(withActionPermissions(ctx, p.action, (ps) => ps.filter((x) => x.role !== p.role)));
    return SUCCESS;
  },
};

export const actionOperations: Record<string, Operation<unknown>> = {
  set_custom_types: op(setCustomTypes),
  create_action: op(createAction),
  update_action: op(updateAction),
  drop_action: op(dropAction),
  create_action_permission: op(createActionPermission),
  drop_action_permission: op(dropActionPermission),
};
