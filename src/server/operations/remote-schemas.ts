import { parse } from 'graphql';
import { badRequest } from '../../errors.js';
import { cloneMetadata } from '../../metadata/document.js';
import type { Json } from '../../metadata/json.js';
import {
  parseRemoteSchema, remoteSchemaJson, type RemoteSchema, type RemoteSchemaPermission,
} from '../../metadata/kinds/remote-schemas.js';
import { at, comment, obj, req, roleName, str } from '../../metadata/reader.js';
import { qnText } from '../../metadata/names.js';
import { buildRoleRemote, introspected, introspectRemote, remoteSchemaId } from '../remote-schemas/index.js';
import { resolve } from '../resolve.js';
import type { OpContext } from '../context.js';
import { op, SUCCESS, type Operation } from './operation.js';

/** The remote-schema operations of the metadata API (issue 35), named as the incumbent names them. */

const nameArg = (args: Json, path: string): string => {
  const o = obj(args, path);
  return str(req(o, 'name', path), at(path, 'name'));
};

function existing(ctx: OpContext, name: string, path = '$.args.name'): RemoteSchema {
  const r = ctx.metadata.remote_schemas.get(name);
  if (!r) throw badRequest('not-exists', path, `remote schema with name "${name}" does not exist`);
  return r;
}

/** Introspects the remote before the metadata changes: an unreachable or invalid remote is refused, nothing stored. */
async function introspectOrFail(r: RemoteSchema): Promise<void> {
  const got = await introspectRemote(r);
  if (!got.ok) throw badRequest('remote-schema-error', '$.args', got.message);
}

function install(ctx: OpContext, r: RemoteSchema): void {
  const md = cloneMetadata(ctx.metadata);
  md.remote_schemas.set(r.name, r);
  ctx.apply(md, 'incremental', {
    id: remoteSchemaId(r.name), prefix: `in remote schema "${r.name}": `,
    record: () => ({ id: remoteSchemaId(r.name), type: 'remote_schema', definition: remoteSchemaJson(r), reason: 'inconsistent' }),
  });
}

const addRemoteSchema: Operation<RemoteSchema> = {
  write: true,
  parse: (args, path) => parseRemoteSchema(args, path),
  async run(ctx, r) {
    if (ctx.metadata.remote_schemas.has(r.name)) throw badRequest('already-exists', '$.args.name', `remote schema with name "${r.name}" already exists`);
    await introspectOrFail(r);
    install(ctx, r);
    return SUCCESS;
  },
};

/** `update_remote_schema`: a new definition (and comment); the permissions stay. */
const updateRemoteSchema: Operation<RemoteSchema> = {
  write: true,
  parse: (args, path) => parseRemoteSchema(args, path),
  async run(ctx, r) {
    const old = existing(ctx, r.name);
    const next: RemoteSchema = { ...r, permissions: old.permissions, remote_relationships: old.remote_relationships };
    await introspectOrFail(next);
    install(ctx, next);
    return SUCCESS;
  },
};

const removeRemoteSchema: Operation<string> = {
  write: true,
  parse: nameArg,
  async run(ctx, name) {
    existing(ctx, name);
    // A table's remote relationship to it stays in the way, as in the incumbent (no cascade).
    const users: string[] = [];
    for (const t of ctx.metadata.tables.values()) {
      for (const r of t.extras?.remote_relationships ?? []) {
        const d = r['definition'] as Record<string, unknown> | undefined;
        const target = (d?.['to_remote_schema'] as Record<string, unknown> | undefined)?.['remote_schema'] ?? d?.['remote_schema'];
        if (target === name) users.push(`remote relationship ${qnText(t.table)}.${String(r['name'])}`);
      }
    }
    if (users.length > 0) throw badRequest('dependency-error', '$.args', `cannot drop due to the following dependent objects : ${users.sort().join(', ')}`);
    const md = cloneMetadata(ctx.metadata);
    md.remote_schemas.delete(name);
    ctx.apply(md);
    return SUCCESS;
  },
};

/** Introspects the remote again and rebuilds the schema cache; a remote still down stays inconsistent. */
const reloadRemoteSchema: Operation<string> = {
  write: false,
  locks: true,
  parse: nameArg,
  async run(ctx, name) {
    await introspectRemote(existing(ctx, name));
    ctx.cache = resolve(ctx.metadata, ctx.cache.catalog);
    ctx.refreshed = true;
    return SUCCESS;
  },
};

/** The remote's own introspection answer, as the engine last read it (the incumbent's `introspect_remote_schema`). */
const introspectRemoteSchema: Operation<string> = {
  write: false,
  parse: nameArg,
  async run(ctx, name) {
    const r = existing(ctx, name);
    const got = introspected(r) ?? await introspectRemote(r);
    if (!got.ok) throw badRequest('remote-schema-error', '$.args', got.message);
    return { data: got.raw };
  },
};

interface PermissionArgs {
  remote: string;
  permission: RemoteSchemaPermission;
}

const addPermissions: Operation<PermissionArgs> = {
  write: true,
  parse(args, path) {
    const o = obj(args, path);
    const remote = str(req(o, 'remote_schema', path), at(path, 'remote_schema'));
    const role = roleName(req(o, 'role', path), at(path, 'role'));
    const dp = at(path, 'definition');
    const schema = str(req(obj(req(o, 'definition', path), dp), 'schema', dp), at(dp, 'schema'));
    try {
      parse(schema);
    } catch (e) {
      throw badRequest('parse-failed', at(dp, 'schema'), `the role's schema is not valid SDL: ${e instanceof Error ? e.message : String(e)}`);
    }
    return { remote, permission: { role, schema, comment: comment(o, path) } };
  },
  async run(ctx, { remote, permission }) {
    const r = existing(ctx, remote, '$.args.remote_schema');
    if (permission.role === 'admin') throw badRequest('constraint-violation', '$.args.role', 'cannot define permission for admin role');
    if (r.permissions.some((p) => p.role === permission.role)) {
      throw badRequest('already-exists', '$.args.role', `permissions for role "${permission.role}" already exist for remote schema "${remote}"`);
    }
    // The SDL must be a subset of the remote's schema as introspected (issue 35.2).
    const got = introspected(r);
    const role = got?.ok ? buildRoleRemote(got.remote, permission.schema) : null;
    if (typeof role === 'string') throw badRequest('validation-failed', '$.args', role);
    const md = cloneMetadata(ctx.metadata);
    md.remote_schemas.set(remote, { ...r, permissions: [...r.permissions, permission] });
    ctx.apply(md);
    return SUCCESS;
  },
};

const dropPermissions: Operation<{ remote: string; role: string }> = {
  write: true,
  parse(args, path) {
    const o = obj(args, path);
    return { remote: str(req(o, 'remote_schema', path), at(path, 'remote_schema')), role: roleName(req(o, 'role', path), at(path, 'role')) };
  },
  async run(ctx, { remote, role }) {
    const r = existing(ctx, remote, '$.args.remote_schema');
    if (!r.permissions.some((p) => p.role === role)) {
      throw badRequest('not-exists', '$.args.role', `permissions for role "${role}" do not exist for remote schema "${remote}"`);
    }
    const md = cloneMetadata(ctx.metadata);
    md.remote_schemas.set(remote, { ...r, permissions: r.permissions.filter((p) => p.role !== role) });
    ctx.apply(md);
    return SUCCESS;
  },
};

export const remoteSchemaOperations: Record<string, Operation<unknown>> = {
  add_remote_schema: op(addRemoteSchema),
  update_remote_schema: op(updateRemoteSchema),
  remove_remote_schema: op(removeRemoteSchema),
  reload_remote_schema: op(reloadRemoteSchema),
  introspect_remote_schema: op(introspectRemoteSchema),
  add_remote_schema_permissions: op(addPermissions),
  drop_remote_schema_permissions: op(dropPermissions),
};
