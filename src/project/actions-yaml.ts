import { compareCodePoints, sortKeysDeep, type Json, type JsonObject } from '../metadata/json.js';
import type { Group } from './actions-sdl.js';
import type { Position, Problems } from './problems.js';
import {
  boolean, checkKeys, comment, Ctx, eachItem, graphqlName, headers, integer, isObj, mapping, named, optional, present, qname, qnameText,
  string, urlTemplate, type Obj, type Path,
} from './validate-core.js';
import type { YamlSource } from './yaml-source.js';

/**
 * The actions.yaml half of the actions merge (cli.md §4.4, §4.6): the shape checks of the file and its entries in
 * canonical form, for `mergeActions` (actions-sdl.ts) to join with the SDL.
 */

export const where = (p: Position): string => `${p.file}:${p.line}:${p.column}`;
export const absent = (v: unknown): v is null | undefined => v === undefined || v === null;

interface YamlPermission { role: string; pos: Position; json: JsonObject }
export interface YamlAction { name: string; pos: Position; definitionPos: Position; definition: JsonObject; comment: unknown; permissions: YamlPermission[] }
/** A `field_mapping` key of a relationship, checked against the object's SDL fields. */
interface MappedField { relationship: string; field: string; pos: Position }
export interface YamlType { name: string; group: Group; pos: Position; description: unknown; relationships: Json[]; mapped: MappedField[] }

/** Only the keys of `order` that are set, in that order (the canonical one). */
const pick = (o: Obj, order: readonly string[]): JsonObject =>
  Object.fromEntries(order.filter((k) => o[k] !== undefined).map((k) => [k, o[k] as Json]));

/**
 * Reads and validates actions.yaml (§4.4, §4.13; message conventions of validate-core.ts): the entries by name, with
 * the non-SDL keys in canonical form. SDL-owned keys warn `sdl-key-ignored`, unknown keys `metadata-unknown-key`.
 */
export function readActionsYaml(src: YamlSource | null, problems: Problems, tables?: ReadonlySet<string>): { actions: YamlAction[]; types: YamlType[] } {
  const res: { actions: YamlAction[]; types: YamlType[] } = { actions: [], types: [] };
  if (!src || absent(src.value)) return res;
  const c = new Ctx(src, problems, 'actions.yaml');
  /** Unknown keys warn; SDL-owned ones (`sdl`: the keys, how the message names them and their owner) warn `sdl-key-ignored`. */
  const keys = (o: Obj, path: Path, thing: string, known: readonly string[], sdl: [string[], string, string] | null, required: string[] = []): void => {
    const [owned, prefix, owner] = sdl ?? [[], '', ''];
    for (const k of owned.filter((x) => o[x] !== undefined)) {
      c.warn('sdl-key-ignored', `key "${prefix}${k}" of ${owner} is ignored: it is defined by actions.graphql`, [...path, k], true);
    }
    checkKeys(c, Object.fromEntries(Object.entries(o).filter(([k]) => !owned.includes(k))), path, thing, known, required);
  };
  const dup = (kind: string, name: string, firsts: Map<string, Position>, pos: Position): boolean => {
    const first = firsts.get(name);
    if (first) problems.error('duplicate-object', `duplicate ${kind} ${name} (first defined at ${where(first)})`, pos);
    else firsts.set(name, pos);
    return first !== undefined;
  };
  const top = mapping(c, src.value, []);
  if (!top) return res;
  checkKeys(c, top, [], 'actions.yaml', ['actions', 'custom_types']);
  const seenActions = new Map<string, Position>();
  eachItem(c, top, [], 'actions', (item, p, i) => {
    const o = mapping(c, item, p);
    if (!o) return;
    const thing = named('action', o['name'], i);
    keys(o, p, thing, ['name', 'definition', 'permissions', 'comment'], null, ['name']);
    const name = present(o['name']) ? string(c, o['name'], [...p, 'name']) : undefined;
    comment(c, o, p);
    const dp = [...p, 'definition'];
    const d = present(o['definition']) ? (mapping(c, o['definition'], dp) ?? {}) : {};
    keys(d, dp, `"definition" of ${thing}`, ['kind', 'handler', 'forward_client_headers', 'headers', 'timeout'],
      [['arguments', 'output_type', 'type'], 'definition.', thing]);
    const kind = d['kind'];
    if (present(kind) && kind !== 'synchronous' && kind !== 'asynchronous') {
      c.error('action-kind-invalid', `invalid kind "${String(kind)}" for ${thing}: expected "synchronous" or "asynchronous"`, [...dp, 'kind']);
    }
    optional(d, dp, 'handler', (v, hp) => urlTemplate(c, v, hp, 'handler'));
    optional(d, dp, 'forward_client_headers', (v, hp) => boolean(c, v, hp));
    optional(d, dp, 'timeout', (v, hp) => integer(c, v, hp, 1));
    headers(c, d, dp, thing);
    const definition = pick(d, ['kind', 'handler', 'forward_client_headers', 'headers', 'timeout']);
    if (Array.isArray(definition['headers'])) {
      definition['headers'] = definition['headers'].map((h) => (isObj(h) ? pick(h, ['name', 'value', 'value_from_env']) : h));
    }
    const roles = new Map<string, Position>();
    const permissions: YamlPermission[] = [];
    eachItem(c, o, p, 'permissions', (pv, pp, j) => {
      const po = mapping(c, pv, pp);
      if (!po) return;
      const role = po['role'];
      checkKeys(c, po, pp, typeof role === 'string' ? `permission for role "${role}" of ${thing}` : `permission #${j + 1} of ${thing}`,
        ['role', 'comment'], ['role']);
      comment(c, po, pp);
      if (!present(role) || string(c, role, [...pp, 'role'], true) === undefined) return;
      if (role === 'admin') c.error('permission-invalid', 'cannot define a permission for the admin role', [...pp, 'role']);
      if (dup('action_permission', `${String(o['name'])}.${String(role)}`, roles, c.pos(pp))) return;
      permissions.push({ role: role as string, pos: c.pos(pp), json: pick(po, ['role', ...(present(po['comment']) ? ['comment'] : [])]) });
    });
    if (name === undefined || dup('action', name, seenActions, c.pos([...p, 'name']))) return;
    res.actions.push({ name, pos: c.pos([...p, 'name']), definitionPos: c.pos(dp), definition, comment: o['comment'], permissions });
  });

  const ct = present(top['custom_types']) ? mapping(c, top['custom_types'], ['custom_types']) : undefined;
  if (!ct) return res;
  const groups = ['enums', 'input_objects', 'objects', 'scalars'] as const;
  checkKeys(c, ct, ['custom_types'], 'custom_types', groups);
  const seenTypes = new Map<string, Position>();
  for (const group of groups) {
    eachItem(c, ct, ['custom_types'], group, (item, p, i) => {
      const o = mapping(c, item, p);
      if (!o) return;
      const thing = named('custom type', o['name'], i);
      const known = group === 'objects' ? ['name', 'description', 'relationships'] : ['name', 'description'];
      keys(o, p, thing, known, [['fields', 'values'], '', thing], ['name']);
      optional(o, p, 'description', (v, dp) => string(c, v, dp));
      const name = present(o['name']) ? string(c, o['name'], [...p, 'name']) : undefined;
      const mapped: MappedField[] = [];
      const relationships: Json[] = [];
      if (group === 'objects') {
        eachItem(c, o, p, 'relationships', (rv, rp, j) => {
          const r = mapping(c, rv, rp);
          if (!r) return relationships.push(rv as Json);
          const rel = typeof r['name'] === 'string' ? r['name'] : '';
          const rthing = `${named('relationship', r['name'], j)} of ${thing}`;
          checkKeys(c, r, rp, rthing, ['name', 'type', 'remote_table', 'field_mapping'], ['name', 'type', 'remote_table', 'field_mapping']);
          optional(r, rp, 'name', (v, np) => graphqlName(c, v, np, 'relationship'));
          optional(r, rp, 'type', (v, tp) => (v === 'object' || v === 'array' ? undefined : c.invalid('"object" or "array"', v, tp)));
          optional(r, rp, 'remote_table', (v, tp) => {
            qname(c, v, tp, rthing);
            const t = qnameText(v);
            if (tables && t !== undefined && !tables.has(t)) {
              c.error('reference-invalid', `relationship "${rel}" of type "${name ?? ''}" refers to table ${t}, which is not in tables.yaml`, tp);
            }
          });
          const fm = present(r['field_mapping']) ? mapping(c, r['field_mapping'], [...rp, 'field_mapping']) : undefined;
          for (const [f, col] of Object.entries(fm ?? {})) {
            string(c, col, [...rp, 'field_mapping', f]);
            mapped.push({ relationship: rel, field: f, pos: c.pos([...rp, 'field_mapping', f], true) });
          }
          const out = pick(r, ['name', 'type', 'remote_table', 'field_mapping']);
          const t = out['remote_table'];
          if (typeof t === 'string') out['remote_table'] = { schema: 'public', name: t };
          else if (isObj(t) && typeof t['name'] === 'string') out['remote_table'] = { schema: (t['schema'] ?? 'public') as Json, name: t['name'] };
          if (fm) out['field_mapping'] = sortKeysDeep(fm as JsonObject);
          return relationships.push(out);
        });
        relationships.sort((a, b) => compareCodePoints(String(isObj(a) ? a['name'] : ''), String(isObj(b) ? b['name'] : '')));
      }
      if (name === undefined || dup('custom_type', name, seenTypes, c.pos([...p, 'name']))) return;
      res.types.push({ name, group, pos: c.pos([...p, 'name']), description: o['description'], relationships, mapped });
    });
  }
  return res;
}
