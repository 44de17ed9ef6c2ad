import { badRequest, parseFailed } from '../../errors.js';
import { type JsonObject } from '../json.js';
import { arr, at, idx, isFunctionArgsObject, obj, opt, optStr, qualifiedName, req, roleName } from '../reader.js';
import { qnJson } from '../names.js';
import type { FunctionEntry } from '../types.js';

/** `track_function` args and metadata entries: a FunctionName, or {"function", "configuration"?}. */
export function parseFunctionEntry(v: unknown, path: string): FunctionEntry {
  if (!isFunctionArgsObject(v, 'function')) return { function: qualifiedName(v, path), configuration: {} };
  const o = obj(v, path);
  const unknown = Object.keys(o).filter((k) => !['function', 'configuration', 'permissions'].includes(k));
  if (unknown.length > 0) throw parseFailed(path, `unexpected keys in function: ${unknown.map((k) => `"${k}"`).join(', ')}`);
  const fn = qualifiedName(req(o, 'function', path), at(path, 'function'));
  const confV = opt(o, 'configuration');
  const configuration: FunctionEntry['configuration'] = {};
  if (confV !== undefined && confV !== null) {
    const cPath = at(path, 'configuration');
    const conf = obj(confV, cPath);
    for (const k of Object.keys(conf)) {
      if (k === 'session_argument' || (k === 'exposed_as' && (conf[k] === 'query' || conf[k] === null))) continue;
      // Names and mutations of functions are not built yet: refused rather than dropped (issue 29 point 6).
      if (['custom_name', 'custom_root_fields', 'exposed_as'].includes(k)) throw badRequest('not-supported', at(cPath, k), `function configuration "${k}"${k === 'exposed_as' ? ': mutation' : ''} is not supported`);
      throw parseFailed(cPath, `unexpected keys in function configuration: "${k}"`);
    }
    const s = optStr(conf, 'session_argument', cPath);
    if (s !== undefined) configuration.session_argument = s;
  }
  const entry: FunctionEntry = { function: fn, configuration };
  const pv = opt(o, 'permissions');
  if (pv !== undefined && pv !== null) {
    const pPath = at(path, 'permissions');
    const roles = arr(pv, pPath).map((p, i) => {
      const ip = idx(pPath, i);
      const po = obj(p, ip);
      const extra = Object.keys(po).filter((k) => k !== 'role');
      if (extra.length > 0) throw parseFailed(ip, `unexpected keys in function permission: ${extra.map((k) => `"${k}"`).join(', ')}`);
      return roleName(req(po, 'role', ip), at(ip, 'role'));
    });
    const dup = roles.find((r, i) => roles.indexOf(r) !== i);
    if (dup !== undefined) throw badRequest('already-exists', pPath, `duplicate function permission for role "${dup}"`);
    if (roles.length > 0) entry.permissions = roles;
  }
  return entry;
}

export function functionEntryJson(f: FunctionEntry): JsonObject {
  const out: JsonObject = { function: qnJson(f.function) };
  if (f.configuration.session_argument !== undefined) {
    out['configuration'] = { session_argument: f.configuration.session_argument };
  }
  if (f.permissions && f.permissions.length > 0) out['permissions'] = f.permissions.map((role) => ({ role }));
  return out;
}
