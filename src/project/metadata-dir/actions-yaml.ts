import { compareCodePoints, sortKeysDeep, type Json, type JsonObject } from '../../metadata/json.js';
import type { Position, Problems } from '../problems.js';
import { ACTIONS_YAML } from '../validate/shapes-others.js';
import { Ctx, isObj, present, qnameText, type Obj } from '../validate/core.js';
import { STATIC_HOOKS } from '../validate/hooks.js';
import { Walker } from '../validate/walk.js';
import type { YamlSource } from '../yaml-source.js';

/**
 * The actions.yaml half of the actions merge (cli.md §4.4, §4.6): the file walked along its shape definition
 * (validate/shapes-others.ts), and its entries in canonical form for `mergeActions` (actions-sdl.ts) to join with the SDL.
 */

/** The groups of custom types in actions.graphql, named as in actions.yaml's custom_types. */
export type Group = 'input_objects' | 'objects' | 'scalars' | 'enums';

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

/** The non-SDL keys of an action's definition in canonical order (cli.md §4.9). */
const DEFINITION_KEYS = ['kind', 'handler', 'forward_client_headers', 'headers', 'timeout'];

function getOr<K, V>(m: Map<K, V>, k: K, init: () => V): V {
  let v = m.get(k);
  if (v === undefined) m.set(k, (v = init()));
  return v;
}

/**
 * Reads and validates actions.yaml (§4.4, §4.13; message conventions of validate/core.ts): the entries by name, with
 * the non-SDL keys in canonical form. SDL-owned keys warn `sdl-key-ignored`, unknown keys `metadata-unknown-key`.
 * The entries are collected by the hooks the shape names, as the walk reaches the end of each entry, so that their
 * duplicates are reported in file order among the shape problems.
 */
export function readActionsYaml(src: YamlSource | null, problems: Problems, tables?: ReadonlySet<string>): { actions: YamlAction[]; types: YamlType[] } {
  const res: { actions: YamlAction[]; types: YamlType[] } = { actions: [], types: [] };
  if (!src || absent(src.value)) return res;
  const c = new Ctx(src, problems, 'actions.yaml');
  const dup = (kind: string, name: string, firsts: Map<string, Position>, pos: Position): boolean => {
    const first = firsts.get(name);
    if (first) problems.error('duplicate-object', `duplicate ${kind} ${name} (first defined at ${where(first)})`, pos);
    else firsts.set(name, pos);
    return first !== undefined;
  };
  const seenActions = new Map<string, Position>();
  const seenTypes = new Map<string, Position>();
  /** Per action (its mapping): the roles seen and the permissions kept. */
  const roles = new Map<Obj, Map<string, Position>>();
  const permissions = new Map<Obj, YamlPermission[]>();
  /** Per custom-type relationship (its mapping): its canonical form and the `field_mapping` keys. */
  const relationships = new Map<Obj, { json: JsonObject; mapped: MappedField[] }>();

  new Walker(c, {
    ...STATIC_HOOKS,
    actionPermission: (_w, v, pp, scope) => {
      const po = v as Obj;
      const role = po['role'];
      const action = scope.entity?.value ?? {};
      if (typeof role !== 'string' || role === '') return;
      if (dup('action_permission', `${String(action['name'])}.${role}`, getOr(roles, action, () => new Map()), c.pos(pp))) return;
      getOr(permissions, action, () => []).push({ role, pos: c.pos(pp), json: pick(po, ['role', ...(present(po['comment']) ? ['comment'] : [])]) });
    },
    action: (_w, v, p) => {
      const o = v as Obj;
      const name = typeof o['name'] === 'string' ? o['name'] : undefined;
      if (name === undefined || dup('action', name, seenActions, c.pos([...p, 'name']))) return;
      const definition = pick(isObj(o['definition']) ? o['definition'] : {}, DEFINITION_KEYS);
      if (Array.isArray(definition['headers'])) {
        definition['headers'] = definition['headers'].map((h) => (isObj(h) ? pick(h, ['name', 'value', 'value_from_env']) : h));
      }
      res.actions.push({
        name, pos: c.pos([...p, 'name']), definitionPos: c.pos([...p, 'definition']), definition, comment: o['comment'],
        permissions: permissions.get(o) ?? [],
      });
    },
    tableRef: (_w, v, tp, scope) => {
      const t = qnameText(v);
      if (!tables || t === undefined || tables.has(t)) return;
      const rel = scope.entity?.value['name'];
      const type = scope.entity?.parent?.value['name'];
      c.error('reference-invalid', `relationship "${typeof rel === 'string' ? rel : ''}" of type "${typeof type === 'string' ? type : ''}" ` +
        `refers to table ${t}, which is not in tables.yaml`, tp);
    },
    customTypeRelationship: (_w, v, rp) => {
      const r = v as Obj;
      const rel = typeof r['name'] === 'string' ? r['name'] : '';
      const fm = isObj(r['field_mapping']) ? r['field_mapping'] : undefined;
      const mapped = Object.keys(fm ?? {}).map((f) => ({ relationship: rel, field: f, pos: c.pos([...rp, 'field_mapping', f], true) }));
      const json = pick(r, ['name', 'type', 'source', 'remote_table', 'field_mapping']);
      const t = json['remote_table'];
      if (typeof t === 'string') json['remote_table'] = { schema: 'public', name: t };
      else if (isObj(t) && typeof t['name'] === 'string') json['remote_table'] = { schema: (t['schema'] ?? 'public') as Json, name: t['name'] };
      if (fm) json['field_mapping'] = sortKeysDeep(fm as JsonObject);
      relationships.set(r, { json, mapped });
    },
    customType: (_w, v, p) => {
      const o = v as Obj;
      const items = Array.isArray(o['relationships']) ? (o['relationships'] as unknown[]) : [];
      // A relationship that is not a mapping was reported; it is kept as written, like the rest of a failing file.
      const rels = items.map((r) => (isObj(r) ? relationships.get(r) : undefined) ?? { json: r as Json, mapped: [] });
      const json = rels.map((r) => r.json)
        .sort((a, b) => compareCodePoints(String(isObj(a) ? a['name'] : ''), String(isObj(b) ? b['name'] : '')));
      const name = typeof o['name'] === 'string' ? o['name'] : undefined;
      if (name === undefined || dup('custom_type', name, seenTypes, c.pos([...p, 'name']))) return;
      res.types.push({
        name, group: p[1] as Group, pos: c.pos([...p, 'name']), description: o['description'], relationships: json,
        mapped: rels.flatMap((r) => r.mapped),
      });
    },
  }).root(ACTIONS_YAML, src.value);
  return res;
}
