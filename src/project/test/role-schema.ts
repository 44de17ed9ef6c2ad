import { buildClientSchema, getIntrospectionQuery, printSchema, type IntrospectionQuery } from 'graphql';
import { CliError } from '../../errors.js';
import { isObject, type JsonObject } from '../../metadata/json.js';

/**
 * `engine metadata schema` (issue 33 point 4): a role's GraphQL schema as SDL, read by introspection from an engine
 * (the ephemeral one) as that role with its session variables: exactly what a client of that role can see.
 */
export async function roleSdl(url: string, adminSecret: string | undefined, role: string, session: Record<string, string> = {}): Promise<string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...session, 'x-engine-role': role };
  if (adminSecret) headers['x-engine-admin-secret'] = adminSecret;
  const res = await fetch(`${url}/v1/graphql`, { method: 'POST', headers, body: JSON.stringify({ query: getIntrospectionQuery({ descriptions: true }) }) });
  const body = (await res.json()) as { data?: IntrospectionQuery; errors?: { message: string; extensions?: { code?: string } }[] };
  if (!body.data) {
    const e = body.errors?.[0];
    throw new CliError('schema-unavailable', `no schema for role "${role}": ${e?.message ?? `HTTP ${res.status}`}${e?.extensions?.code ? ` [${e.extensions.code}]` : ''}`, 1);
  }
  return `${printSchema(buildClientSchema(body.data))}\n`;
}

/** Every role the metadata names: permissions of tables, functions, computed fields and actions, inherited roles. */
export function metadataRoles(metadata: JsonObject): string[] {
  const roles = new Set<string>();
  const fromList = (list: unknown) => {
    if (Array.isArray(list)) for (const p of list) if (isObject(p) && typeof p['role'] === 'string') roles.add(p['role']);
  };
  for (const t of Array.isArray(metadata['tables']) ? metadata['tables'] : []) {
    if (!isObject(t)) continue;
    for (const k of ['select_permissions', 'insert_permissions', 'update_permissions', 'delete_permissions']) fromList(t[k]);
  }
  for (const f of Array.isArray(metadata['functions']) ? metadata['functions'] : []) if (isObject(f)) fromList(f['permissions']);
  for (const a of Array.isArray(metadata['actions']) ? metadata['actions'] : []) if (isObject(a)) fromList(a['permissions']);
  for (const r of Array.isArray(metadata['inherited_roles']) ? metadata['inherited_roles'] : []) {
    if (isObject(r) && typeof r['role_name'] === 'string') roles.add(r['role_name']);
  }
  roles.delete('admin');
  return [...roles].sort();
}

/** A role name as a file name: `<role>.graphql`, characters outside [A-Za-z0-9_.-] written as `_`. */
export const roleFileName = (role: string): string => `${role.replace(/[^A-Za-z0-9_.-]/g, '_')}.graphql`;
