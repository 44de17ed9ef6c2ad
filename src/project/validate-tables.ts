/**
 * Table entries of tables.yaml (engine-api.md §6.1, §6.5; the entries parsed like the arguments of §4.2, §4.5.1,
 * §4.3.2 and §4.7.1): shapes, unknown keys, names, URLs and the event-trigger rule. Duplicates are checked over the
 * whole directory in validate-objects.ts.
 */
import {
  boolean, checkKeys, comment, eachItem, envName, exactlyOne, graphqlName, headers, integer, isObj, list, mapping, named,
  optional, present, qname, qnameText, string, urlTemplate, type Ctx, type Obj, type Path,
} from './validate-core.js';
import { checkPermission, PERM_KINDS, type PermissionOwner } from './validate-permissions.js';

/** The keys of a table entry (engine-api.md §6.1); the build leaves any other key out. */
export const TABLE_KEYS = [
  'table', 'is_enum', 'configuration', 'object_relationships', 'array_relationships', 'computed_fields',
  'remote_relationships', 'insert_permissions', 'select_permissions', 'update_permissions', 'delete_permissions',
  'event_triggers',
] as const;

export function checkTable(c: Ctx, v: unknown, path: Path, i: number): void {
  const o = mapping(c, v, path);
  if (!o) return;
  const name = qnameText(o['table']);
  const ownerText = name ?? `table #${i + 1}`;
  const thing = name === undefined ? ownerText : `table ${name}`;
  checkKeys(c, o, path, thing, TABLE_KEYS, ['table']);
  optional(o, path, 'table', (x, p) => qname(c, x, p, thing));
  optional(o, path, 'is_enum', (x, p) => boolean(c, x, p));
  optional(o, path, 'configuration', (x, p) => mapping(c, x, p));
  for (const kind of ['object', 'array'] as const) {
    eachItem(c, o, path, `${kind}_relationships`, (x, p, j) => relationship(c, kind, x, p, j, ownerText));
  }
  eachItem(c, o, path, 'computed_fields', (x, p, j) => computedField(c, x, p, j, ownerText));
  eachItem(c, o, path, 'remote_relationships', (x, p, j) => remoteRelationship(c, x, p, j, ownerText));
  const owner: PermissionOwner = { text: ownerText, named: name !== undefined, computedFields: computedFieldNames(o) };
  for (const kind of PERM_KINDS) {
    eachItem(c, o, path, `${kind}_permissions`, (x, p, j) => checkPermission(c, kind, x, p, j, owner));
  }
  eachItem(c, o, path, 'event_triggers', (x, p, j) => eventTrigger(c, x, p, j, ownerText));
}

function computedFieldNames(o: Obj): Set<string> {
  const list = Array.isArray(o['computed_fields']) ? o['computed_fields'] : [];
  return new Set(list.filter(isObj).map((cf) => cf['name']).filter((n): n is string => typeof n === 'string'));
}

function relationship(c: Ctx, kind: 'object' | 'array', v: unknown, path: Path, i: number, owner: string): void {
  const o = mapping(c, v, path);
  if (!o) return;
  const thing = `${kind} ${named('relationship', o['name'], i)} of ${owner}`;
  checkKeys(c, o, path, thing, ['name', 'using', 'comment'], ['name', 'using']);
  optional(o, path, 'name', (x, p) => graphqlName(c, x, p, 'relationship'));
  comment(c, o, path);
  optional(o, path, 'using', (x, p) => using(c, kind, x, p, `"using" of ${thing}`));
}

function using(c: Ctx, kind: 'object' | 'array', v: unknown, path: Path, thing: string): void {
  const o = mapping(c, v, path);
  if (!o) return;
  checkKeys(c, o, path, thing, ['foreign_key_constraint_on', 'manual_configuration']);
  const which = exactlyOne(c, o, path, thing, 'foreign_key_constraint_on', 'manual_configuration');
  if (which === 'manual_configuration') {
    const p = [...path, which];
    const m = mapping(c, o[which], p);
    if (!m) return;
    const mThing = `"manual_configuration" of ${thing}`;
    checkKeys(c, m, p, mThing, ['remote_table', 'column_mapping'], ['remote_table', 'column_mapping']);
    optional(m, p, 'remote_table', (x, xp) => qname(c, x, xp, mThing));
    optional(m, p, 'column_mapping', (x, xp) => {
      const cm = mapping(c, x, xp);
      if (cm) for (const [k, col] of Object.entries(cm)) string(c, col, [...xp, k]);
    });
  } else if (which === 'foreign_key_constraint_on') {
    const p = [...path, which];
    if (kind === 'object') {
      string(c, o[which], p);
      return;
    }
    const fk = mapping(c, o[which], p);
    if (!fk) return;
    const fkThing = `"foreign_key_constraint_on" of ${thing}`;
    checkKeys(c, fk, p, fkThing, ['table', 'column'], ['table', 'column']);
    optional(fk, p, 'table', (x, xp) => qname(c, x, xp, fkThing));
    optional(fk, p, 'column', (x, xp) => string(c, x, xp));
  }
}

function computedField(c: Ctx, v: unknown, path: Path, i: number, owner: string): void {
  const o = mapping(c, v, path);
  if (!o) return;
  const thing = `${named('computed field', o['name'], i)} of ${owner}`;
  checkKeys(c, o, path, thing, ['name', 'definition', 'comment'], ['name', 'definition']);
  optional(o, path, 'name', (x, p) => graphqlName(c, x, p, 'computed field'));
  comment(c, o, path);
  optional(o, path, 'definition', (x, p) => {
    const d = mapping(c, x, p);
    if (!d) return;
    const dThing = `"definition" of ${thing}`;
    checkKeys(c, d, p, dThing, ['function', 'table_argument', 'session_argument'], ['function']);
    optional(d, p, 'function', (f, fp) => qname(c, f, fp, dThing));
    optional(d, p, 'table_argument', (a, ap) => string(c, a, ap));
    optional(d, p, 'session_argument', (a, ap) => string(c, a, ap));
  });
}

/** engine-api.md §6.5: `{name: R GraphQLName, definition: R mapping, opaque}`. */
function remoteRelationship(c: Ctx, v: unknown, path: Path, i: number, owner: string): void {
  const o = mapping(c, v, path);
  if (!o) return;
  const thing = `${named('remote relationship', o['name'], i)} of ${owner}`;
  checkKeys(c, o, path, thing, ['name', 'definition'], ['name', 'definition']);
  optional(o, path, 'name', (x, p) => graphqlName(c, x, p, 'remote relationship'));
  optional(o, path, 'definition', (x, p) => mapping(c, x, p));
}

const EVENT_TRIGGER_NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;
const EVENT_OPS = ['insert', 'update', 'delete'] as const;

function eventTrigger(c: Ctx, v: unknown, path: Path, i: number, owner: string): void {
  const o = mapping(c, v, path);
  if (!o) return;
  const thing = `${named('event trigger', o['name'], i)} of ${owner}`;
  checkKeys(c, o, path, thing, ['name', 'definition', 'retry_conf', 'webhook', 'webhook_from_env', 'headers'], ['name', 'definition']);
  optional(o, path, 'name', (x, p) => {
    const s = string(c, x, p);
    if (s !== undefined && (!EVENT_TRIGGER_NAME.test(s) || s.length > 42)) {
      c.error('name-invalid', `invalid event trigger name "${s}": use letters, digits, "_" and "-", start with a letter, at most 42 characters`, p);
    }
  });
  optional(o, path, 'definition', (x, p) => {
    const d = mapping(c, x, p);
    if (d) definition(c, d, p, thing, o['name']);
  });
  optional(o, path, 'retry_conf', (x, p) => {
    const r = mapping(c, x, p);
    if (!r) return;
    checkKeys(c, r, p, `"retry_conf" of ${thing}`, ['num_retries', 'interval_sec', 'timeout_sec']);
    optional(r, p, 'num_retries', (n, np) => integer(c, n, np, 0));
    optional(r, p, 'interval_sec', (n, np) => integer(c, n, np, 1));
    optional(r, p, 'timeout_sec', (n, np) => integer(c, n, np, 1));
  });
  const which = exactlyOne(c, o, path, thing, 'webhook', 'webhook_from_env');
  if (which === 'webhook') urlTemplate(c, o[which], [...path, which], 'webhook');
  if (which === 'webhook_from_env') envName(c, o[which], [...path, which], which);
  headers(c, o, path, thing);
}

/** `definition`; the at-least-one rule is checked when the trigger has a name to report (else its absence is). */
function definition(c: Ctx, d: Obj, path: Path, thing: string, triggerName: unknown): void {
  checkKeys(c, d, path, `"definition" of ${thing}`, ['enable_manual', ...EVENT_OPS]);
  optional(d, path, 'enable_manual', (x, p) => boolean(c, x, p));
  for (const op of EVENT_OPS) {
    optional(d, path, op, (x, p) => {
      const spec = mapping(c, x, p);
      if (!spec) return;
      checkKeys(c, spec, p, `"${op}" of ${thing}`, ['columns', 'payload'], ['columns']);
      optional(spec, p, 'columns', (cols, cp) => columns(c, cols, cp));
      optional(spec, p, 'payload', (cols, cp) => columns(c, cols, cp));
    });
  }
  if (typeof triggerName === 'string' && d['enable_manual'] === false && !EVENT_OPS.some((op) => present(d[op]))) {
    c.error('event-trigger-invalid', `event trigger "${triggerName}" must enable at least one of insert, update, delete or enable_manual`, path);
  }
}

/** Event-trigger Columns: `"*"` or a non-empty list of column names. */
function columns(c: Ctx, v: unknown, path: Path): void {
  if (v === '*') return;
  const l = list(c, v, path);
  if (!l) return;
  if (l.length === 0) c.invalid('a non-empty list', v, path);
  l.forEach((col, i) => string(c, col, [...path, i]));
}
