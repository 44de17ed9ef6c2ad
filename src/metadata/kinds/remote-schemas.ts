import { parseFailed } from '../../errors.js';
import { compareCodePoints, type Json, type JsonObject } from '../json.js';
import { arr, at, bool, comment, exclusive, graphqlName, idx, int, obj, opt, req, roleName, str } from '../reader.js';
import { envName, headerJson, headers, urlTemplate } from './common.js';

/**
 * A remote schema (the incumbent's `add_remote_schema`, issue 35): its definition kept in its canonical §6 JSON form
 * (url or url_from_env, timeout_seconds, forward_client_headers, headers, customization), and its role permissions,
 * each an SDL document naming the subset the role sees.
 */
export interface RemoteSchemaPermission {
  role: string;
  schema: string;
  comment: string | null;
}

export interface RemoteSchema {
  name: string;
  definition: JsonObject;
  comment: string | null;
  permissions: RemoteSchemaPermission[];
  /** Remote schema → table relationships (`to_source`), kept as written (not served yet). */
  remote_relationships: JsonObject[];
}

function affixes(v: unknown, path: string, extra: (o: JsonObject, out: JsonObject) => void = () => undefined): JsonObject {
  const o = obj(v, path);
  const out: JsonObject = {};
  extra(o, out);
  for (const k of ['prefix', 'suffix']) {
    const s = opt(o, k);
    if (s !== undefined) out[k] = graphqlName(s, at(path, k));
  }
  const m = opt(o, 'mapping');
  if (m !== undefined) {
    const mp = at(path, 'mapping');
    const mo = obj(m, mp);
    const mapping: JsonObject = {};
    for (const key of Object.keys(mo).sort(compareCodePoints)) mapping[key] = graphqlName(mo[key], at(mp, key));
    if (Object.keys(mapping).length > 0) out['mapping'] = mapping;
  }
  return out;
}

/** `customization`: root-field namespace, type-name and field-name prefixes, suffixes and mappings. */
export function parseCustomization(v: unknown, path: string): JsonObject | undefined {
  if (v === null) return undefined;
  const o = obj(v, path);
  const out: JsonObject = {};
  const ns = opt(o, 'root_fields_namespace');
  if (ns !== undefined) out['root_fields_namespace'] = graphqlName(ns, at(path, 'root_fields_namespace'));
  const tn = opt(o, 'type_names');
  if (tn !== undefined) {
    const t = affixes(tn, at(path, 'type_names'));
    if (Object.keys(t).length > 0) out['type_names'] = t;
  }
  const fn = opt(o, 'field_names');
  if (fn !== undefined) {
    const p = at(path, 'field_names');
    const list = arr(fn, p).map((f, i) => affixes(f, idx(p, i), (fo, fout) => {
      fout['parent_type'] = graphqlName(req(fo, 'parent_type', idx(p, i)), at(idx(p, i), 'parent_type'));
    }));
    if (list.length > 0) out['field_names'] = list;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

export function parseRemoteSchemaDefinition(v: unknown, dp: string): JsonObject {
  const d = obj(v, dp);
  const def: JsonObject = {};
  if (exclusive(d, 'url', 'url_from_env', dp) === 'url') def['url'] = urlTemplate(d['url'], at(dp, 'url'), 'url', dp);
  else def['url_from_env'] = envName(d['url_from_env'], at(dp, 'url_from_env'), 'url_from_env', dp);
  const ts = opt(d, 'timeout_seconds');
  if (ts !== undefined) def['timeout_seconds'] = int(ts, at(dp, 'timeout_seconds'), 1);
  const f = opt(d, 'forward_client_headers');
  if (f !== undefined && bool(f, at(dp, 'forward_client_headers'))) def['forward_client_headers'] = true;
  const hs = headers(d, dp);
  if (hs.length > 0) def['headers'] = hs.map(headerJson);
  const c = opt(d, 'customization');
  const custom = c === undefined ? undefined : parseCustomization(c, at(dp, 'customization'));
  if (custom) def['customization'] = custom;
  return def;
}

export function parseRemoteSchemaPermission(v: unknown, path: string): RemoteSchemaPermission {
  const o = obj(v, path);
  const role = roleName(req(o, 'role', path), at(path, 'role'));
  const dp = at(path, 'definition');
  const d = obj(req(o, 'definition', path), dp);
  const schema = str(req(d, 'schema', dp), at(dp, 'schema'));
  return { role, schema, comment: comment(o, path) };
}

export function parseRemoteSchema(v: unknown, path: string): RemoteSchema {
  const o = obj(v, path);
  const name = str(req(o, 'name', path), at(path, 'name'));
  if (name.trim() === '') throw parseFailed(at(path, 'name'), 'remote schema name cannot be empty');
  const definition = parseRemoteSchemaDefinition(req(o, 'definition', path), at(path, 'definition'));
  const pv = opt(o, 'permissions');
  const pp = at(path, 'permissions');
  const permissions = pv === undefined ? [] : arr(pv, pp).map((p, i) => parseRemoteSchemaPermission(p, idx(pp, i)));
  const rv = opt(o, 'remote_relationships');
  const remote_relationships = rv === undefined ? [] : arr(rv, at(path, 'remote_relationships')).map((r, i) => obj(r, idx(at(path, 'remote_relationships'), i)));
  return { name, definition, comment: comment(o, path), permissions, remote_relationships };
}

const byRole = (a: RemoteSchemaPermission, b: RemoteSchemaPermission): number => compareCodePoints(a.role, b.role);

export function remoteSchemaPermissionJson(p: RemoteSchemaPermission): JsonObject {
  const out: JsonObject = { role: p.role, definition: { schema: p.schema } };
  if (p.comment !== null) out['comment'] = p.comment;
  return out;
}

/** The canonical §6 entry: name, definition, comment, permissions (by role), remote_relationships. */
export function remoteSchemaJson(r: RemoteSchema): JsonObject {
  const out: JsonObject = { name: r.name, definition: r.definition };
  if (r.comment !== null) out['comment'] = r.comment;
  if (r.permissions.length > 0) out['permissions'] = [...r.permissions].sort(byRole).map(remoteSchemaPermissionJson);
  if (r.remote_relationships.length > 0) out['remote_relationships'] = r.remote_relationships as Json[];
  return out;
}
