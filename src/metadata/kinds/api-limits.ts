import { parseFailed } from '../../errors.js';
import { compareCodePoints, type JsonObject } from '../json.js';
import { arr, at, bool, idx, int, obj, opt, req, roleName, str } from '../reader.js';

/**
 * API limits (the incumbent's `api_limits`, issue 31 item 6): per-operation depth and node limits, a batch limit, a
 * time limit (seconds) and a per-minute rate limit, each global with per-role overrides; `disabled` turns them all off.
 */
export interface LimitOption {
  global: number;
  per_role: Record<string, number>;
}

/** `IP`, session-variable names (lower-case), or nothing: what, besides the role, tells callers apart. */
export type UniqueParams = 'IP' | string[] | null;

export interface RateLimitRule {
  max_reqs_per_min: number;
  unique_params: UniqueParams;
}

export interface RateLimitOption {
  global: RateLimitRule;
  per_role: Record<string, RateLimitRule>;
}

export interface ApiLimits {
  disabled: boolean;
  depth_limit?: LimitOption;
  node_limit?: LimitOption;
  time_limit?: LimitOption;
  batch_limit?: LimitOption;
  rate_limit?: RateLimitOption;
}

export const NUMERIC_LIMITS = ['batch_limit', 'depth_limit', 'node_limit', 'time_limit'] as const;
const KEYS = new Set<string>(['disabled', ...NUMERIC_LIMITS, 'rate_limit']);
const SESSION_VARIABLE = /^x-(hasura|engine)-[A-Za-z0-9_-]+$/i;

function onlyKeys(o: JsonObject, allowed: readonly string[], what: string, path: string): void {
  const unknown = Object.keys(o).filter((k) => !allowed.includes(k));
  if (unknown.length > 0) throw parseFailed(path, `unexpected keys in ${what}: ${unknown.map((k) => `"${k}"`).join(', ')}`);
}

function perRole<T>(o: JsonObject, path: string, item: (v: unknown, p: string) => T): Record<string, T> {
  const v = opt(o, 'per_role');
  if (v === undefined) return {};
  const p = at(path, 'per_role');
  const out: Record<string, T> = {};
  for (const [role, value] of Object.entries(obj(v, p))) out[roleName(role, at(p, role))] = item(value, at(p, role));
  return out;
}

function limitOption(v: unknown, path: string): LimitOption {
  const o = obj(v, path);
  onlyKeys(o, ['global', 'per_role'], 'limit', path);
  return { global: int(req(o, 'global', path), at(path, 'global'), 0), per_role: perRole(o, path, (x, p) => int(x, p, 0)) };
}

function uniqueParams(v: unknown, path: string): UniqueParams {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string') {
    if (v.toUpperCase() !== 'IP') throw parseFailed(path, `expected "IP" or a list of session variables, encountered ${JSON.stringify(v)}`);
    return 'IP';
  }
  const names = arr(v, path).map((n, i) => {
    const s = str(n, idx(path, i));
    if (!SESSION_VARIABLE.test(s)) throw parseFailed(idx(path, i), `"${s}" is not a session variable (x-hasura-… or x-engine-…)`);
    return s.toLowerCase();
  });
  if (names.length === 0) throw parseFailed(path, 'the list of session variables must not be empty');
  return [...new Set(names)];
}

function rateRule(v: unknown, path: string): RateLimitRule {
  const o = obj(v, path);
  onlyKeys(o, ['max_reqs_per_min', 'unique_params'], 'rate limit', path);
  return {
    max_reqs_per_min: int(req(o, 'max_reqs_per_min', path), at(path, 'max_reqs_per_min'), 1),
    unique_params: uniqueParams(o['unique_params'], at(path, 'unique_params')),
  };
}

export function parseApiLimits(v: unknown, path: string): ApiLimits {
  const o = obj(v, path);
  onlyKeys(o, [...KEYS], 'api limits', path);
  const d = opt(o, 'disabled');
  const out: ApiLimits = { disabled: d === undefined ? false : bool(d, at(path, 'disabled')) };
  for (const key of NUMERIC_LIMITS) {
    const x = opt(o, key);
    if (x !== undefined) out[key] = limitOption(x, at(path, key));
  }
  const r = opt(o, 'rate_limit');
  if (r !== undefined) {
    const rp = at(path, 'rate_limit');
    const ro = obj(r, rp);
    onlyKeys(ro, ['global', 'per_role'], 'rate limit', rp);
    out.rate_limit = { global: rateRule(req(ro, 'global', rp), at(rp, 'global')), per_role: perRole(ro, rp, rateRule) };
  }
  return out;
}

const sortedRecord = <T>(r: Record<string, T>, f: (v: T) => JsonObject[string]): JsonObject =>
  Object.fromEntries(Object.keys(r).sort(compareCodePoints).map((k) => [k, f(r[k] as T)]));

const ruleJson = (r: RateLimitRule): JsonObject => ({ max_reqs_per_min: r.max_reqs_per_min, unique_params: r.unique_params });

/** The canonical form: keys in the incumbent's export order (alphabetical), roles sorted. */
export function apiLimitsJson(l: ApiLimits): JsonObject {
  const out: JsonObject = {};
  const numeric = (key: (typeof NUMERIC_LIMITS)[number]): void => {
    const x = l[key];
    if (x) out[key] = { global: x.global, per_role: sortedRecord(x.per_role, (n) => n) };
  };
  numeric('batch_limit');
  numeric('depth_limit');
  out['disabled'] = l.disabled;
  numeric('node_limit');
  if (l.rate_limit) out['rate_limit'] = { global: ruleJson(l.rate_limit.global), per_role: sortedRecord(l.rate_limit.per_role, ruleJson) };
  numeric('time_limit');
  return out;
}

/** The limit that applies to a role: its own, else the global one; none for admin (the incumbent exempts it). */
export function limitFor(option: LimitOption | undefined, role: string): number | undefined {
  if (!option || role === 'admin') return undefined;
  return option.per_role[role] ?? option.global;
}

export function rateRuleFor(l: ApiLimits, role: string): { rule: RateLimitRule; scope: string } | undefined {
  const r = l.rate_limit;
  if (!r || role === 'admin') return undefined;
  const own = r.per_role[role];
  return own ? { rule: own, scope: `role:${role}` } : { rule: r.global, scope: 'global' };
}
