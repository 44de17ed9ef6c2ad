/**
 * The changes of a plan that widen access (issue 27 item 5): a reviewer of `metadata apply --dry-run` or of the apply
 * report sees them in their own section "Access widened", apart from the field-by-field plan where a dropped `check`
 * is one line among many. Judged on the normalised objects of both sides (objects.ts), as the diff compares them.
 * Some listed changes may in fact narrow access (a filter replaced by a stricter one): the section says what changed
 * in a way that can widen, not that it did.
 */
import { comparedObjects, jsonEqual, showValue } from './diff.js';
import { isObject } from './json.js';
import { objectKey, type CanonicalDocument, type MetadataObject } from './objects.js';

export interface Widening {
  kind: string;
  name: string;
  /** What widens, e.g. `check removed`, `columns added: email, phone`. */
  reasons: string[];
}

type Obj = Record<string, unknown>;

const PERMISSIONS = new Set(['insert_permission', 'select_permission', 'update_permission', 'delete_permission']);

/** The changes diff(from → to) makes that widen access, in the plan's order. */
export function widenedAccess(from: CanonicalDocument, to: CanonicalDocument): Widening[] {
  const [a, b] = comparedObjects(from, to);
  const before = new Map<string, MetadataObject>();
  for (const o of a) if (!before.has(objectKey(o.kind, o.name))) before.set(objectKey(o.kind, o.name), o);
  const seen = new Set<string>();
  const out: Widening[] = [];
  for (const o of b) {
    const key = objectKey(o.kind, o.name);
    if (seen.has(key)) continue;
    seen.add(key);
    const reasons = widening(o.kind, before.get(key)?.value, o.value);
    if (reasons.length > 0) out.push({ kind: o.kind, name: o.name, reasons });
  }
  return out;
}

const asObj = (v: unknown): Obj => (isObject(v) ? v : {});
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const added = (from: unknown, to: unknown): string[] => strings(to).filter((x) => !strings(from).includes(x));

function widening(kind: string, from: unknown, to: unknown): string[] {
  if (PERMISSIONS.has(kind)) {
    if (from === undefined) return ['permission added'];
    return permission(kind, asObj(asObj(from)['permission']), asObj(asObj(to)['permission']));
  }
  if (kind === 'action_permission') return from === undefined ? ['permission added'] : [];
  if (kind === 'inherited_role') {
    const roles = asObj(to)['role_set'];
    if (from === undefined) return [`inherited role added: ${strings(roles).join(', ')}`];
    const more = added(asObj(from)['role_set'], roles);
    return more.length > 0 ? [`roles added: ${more.join(', ')}`] : [];
  }
  return [];
}

/** No condition at all: absent, null (an update's default check) or `{}` (true). */
const unconditional = (v: unknown): boolean => v === undefined || v === null || (isObject(v) && Object.keys(v).length === 0);

/** `*`, or the listed columns; an insert permission without `columns` allows every column (engine-api.md §6.1). */
const columnsOf = (kind: string, v: unknown): '*' | string[] => (v === '*' || (v === undefined && kind === 'insert_permission') ? '*' : strings(v));

function permission(kind: string, p: Obj, q: Obj): string[] {
  const reasons: string[] = [];
  for (const key of ['filter', 'check']) {
    if (jsonEqual(p[key], q[key]) || unconditional(p[key])) continue;
    reasons.push(unconditional(q[key]) ? `${key} removed` : `${key} changed: ${showValue(p[key])} → ${showValue(q[key])}`);
  }
  const [c, d] = [columnsOf(kind, p['columns']), columnsOf(kind, q['columns'])];
  if (d === '*' && c !== '*') reasons.push('columns added: all (*)');
  else if (d !== '*' && c !== '*' && added(c, d).length > 0) reasons.push(`columns added: ${added(c, d).join(', ')}`);
  const fields = added(p['computed_fields'], q['computed_fields']);
  if (fields.length > 0) reasons.push(`computed fields added: ${fields.join(', ')}`);
  if (typeof p['limit'] === 'number' && q['limit'] === undefined) reasons.push('limit removed');
  else if (typeof p['limit'] === 'number' && typeof q['limit'] === 'number' && q['limit'] > p['limit']) reasons.push(`limit raised: ${p['limit']} → ${q['limit']}`);
  if (!p['allow_aggregations'] && q['allow_aggregations']) reasons.push('aggregations allowed');
  const [s, t] = [asObj(p['set']), asObj(q['set'])];
  const presets = Object.keys(s).filter((k) => !Object.hasOwn(t, k) || !jsonEqual(s[k], t[k]));
  if (presets.length > 0) reasons.push(`presets removed or changed: ${presets.join(', ')}`);
  if (p['backend_only'] === true && q['backend_only'] !== true) reasons.push('no longer backend only');
  return reasons;
}

/** The section of the plan's text: a blank line, a heading, one line per object; empty when nothing widens. */
export function renderWidenedText(list: readonly Widening[]): string[] {
  if (list.length === 0) return [];
  return ['', `Access widened (${list.length}):`, ...list.map((w) => `  ! ${w.kind} ${w.name}: ${w.reasons.join('; ')}`)];
}
