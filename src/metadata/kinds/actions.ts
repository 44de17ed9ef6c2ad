import { badRequest, parseFailed } from '../../errors.js';
import { sortKeysDeep, compareCodePoints, type Json, type JsonObject } from '../json.js';
import { arr, at, bool, comment, graphqlName, idx, int, obj, oneOf, opt, qualifiedName, req, roleName, str } from '../reader.js';
import { qnJson } from '../names.js';
import type { Action, ActionArgument, CustomTypes } from '../types.js';
import { headerJson, headers, urlTemplate } from './common.js';

/** `T`, `T!`, `[T]` nested to any depth, no whitespace (engine-api.md §4.0). */
export function isGraphqlType(s: string): boolean {
  let t = s.endsWith('!') ? s.slice(0, -1) : s;
  if (t.startsWith('[') && t.endsWith(']')) t = t.slice(1, -1);
  else return /^[_A-Za-z][_0-9A-Za-z]*$/.test(t);
  return t.length > 0 && isGraphqlType(t);
}

export function graphqlType(v: unknown, path: string): string {
  const s = str(v, path);
  if (!isGraphqlType(s)) throw parseFailed(path, `invalid GraphQL type "${s}"`);
  return s;
}

/** The named type inside a type expression: `[User!]!` → `User`. */
export const namedType = (t: string): string => t.replace(/[[\]!]/g, '');

function optDescription(o: JsonObject, path: string, out: JsonObject): void {
  const d = opt(o, 'description');
  if (d !== undefined) out['description'] = str(d, at(path, 'description'));
}

function argument(v: unknown, path: string): ActionArgument {
  const o = obj(v, path);
  const a: ActionArgument = { name: graphqlName(req(o, 'name', path), at(path, 'name')), type: graphqlType(req(o, 'type', path), at(path, 'type')) };
  const d = opt(o, 'description');
  if (d !== undefined) a.description = str(d, at(path, 'description'));
  return a;
}

export function parseActionDefinition(v: unknown, path: string): Action['definition'] {
  const o = obj(v, path);
  const handler = urlTemplate(req(o, 'handler', path), at(path, 'handler'), 'handler', path);
  const output_type = graphqlType(req(o, 'output_type', path), at(path, 'output_type'));
  const argsV = opt(o, 'arguments');
  const argsPath = at(path, 'arguments');
  const args = argsV === undefined ? [] : arr(argsV, argsPath).map((a, i) => argument(a, idx(argsPath, i)));
  const kindV = opt(o, 'kind');
  // The incumbent writes `kind: ""` for query actions, which have no kind of their own: they are synchronous.
  const kind = kindV === undefined || kindV === '' ? 'synchronous' : oneOf(kindV, at(path, 'kind'), ['synchronous', 'asynchronous'] as const);
  const typeV = opt(o, 'type');
  const type = typeV === undefined ? 'mutation' : oneOf(typeV, at(path, 'type'), ['mutation', 'query'] as const);
  if (type === 'query' && kind === 'asynchronous') throw parseFailed(at(path, 'kind'), 'a query action must be synchronous');
  const hs = headers(o, path);
  const fch = opt(o, 'forward_client_headers');
  const timeoutV = opt(o, 'timeout');
  return {
    handler, output_type, arguments: args, kind, type, headers: hs,
    forward_client_headers: fch === undefined ? false : bool(fch, at(path, 'forward_client_headers')),
    timeout: timeoutV === undefined ? 30 : int(timeoutV, at(path, 'timeout'), 1),
  };
}

/** An action entry of the metadata document (§6.1). */
export function parseAction(v: unknown, path: string): Action {
  const o = obj(v, path);
  const permsV = opt(o, 'permissions');
  const permsPath = at(path, 'permissions');
  return {
    name: graphqlName(req(o, 'name', path), at(path, 'name')),
    definition: parseActionDefinition(req(o, 'definition', path), at(path, 'definition')),
    comment: comment(o, path),
    permissions: permsV === undefined ? [] : arr(permsV, permsPath).map((p, i) => {
      const pp = idx(permsPath, i);
      const po = obj(p, pp);
      return { role: roleName(req(po, 'role', pp), at(pp, 'role')), comment: comment(po, pp) };
    }),
  };
}

export function actionDefinitionJson(d: Action['definition']): JsonObject {
  const out: JsonObject = { handler: d.handler, output_type: d.output_type };
  if (d.arguments.length > 0) {
    out['arguments'] = d.arguments.map((a): JsonObject => (a.description !== undefined ? { name: a.name, type: a.type, description: a.description } : { name: a.name, type: a.type }));
  }
  out['kind'] = d.kind;
  if (d.type === 'query') out['type'] = 'query';
  if (d.forward_client_headers) out['forward_client_headers'] = true;
  if (d.headers.length > 0) out['headers'] = d.headers.map(headerJson);
  if (d.timeout !== 30) out['timeout'] = d.timeout;
  return out;
}

export function actionJson(a: Action): JsonObject {
  const out: JsonObject = { name: a.name, definition: actionDefinitionJson(a.definition) };
  if (a.comment !== null) out['comment'] = a.comment;
  if (a.permissions.length > 0) {
    out['permissions'] = [...a.permissions].sort((x, y) => compareCodePoints(x.role, y.role))
      .map((p): JsonObject => (p.comment !== null ? { role: p.role, comment: p.comment } : { role: p.role }));
  }
  return out;
}

function fields(o: JsonObject, path: string, withArguments?: (field: string) => void): JsonObject[] {
  const p = at(path, 'fields');
  return arr(req(o, 'fields', path), p).map((f, i) => {
    const fp = idx(p, i);
    const fo = obj(f, fp);
    const out: JsonObject = { name: graphqlName(req(fo, 'name', fp), at(fp, 'name')), type: graphqlType(req(fo, 'type', fp), at(fp, 'type')) };
    optDescription(fo, fp, out);
    // Object-field arguments must be absent, null or empty; validation reports them, the format never stores them.
    const args = fo['arguments'];
    if (withArguments && args !== undefined && args !== null && !(Array.isArray(args) && args.length === 0) &&
        !(typeof args === 'object' && !Array.isArray(args) && Object.keys(args).length === 0)) {
      withArguments(out['name'] as string);
    }
    return out;
  });
}

function named(o: JsonObject, path: string): JsonObject {
  const out: JsonObject = { name: graphqlName(req(o, 'name', path), at(path, 'name')) };
  optDescription(o, path, out);
  return out;
}

/** set_custom_types args / the `custom_types` section: parse-time checks only (names, types, enum values). */
export function parseCustomTypes(v: unknown, path: string): CustomTypes {
  const o = obj(v, path);
  const argumentFields: [string, string][] = [];
  const section = (key: string, f: (x: JsonObject, p: string) => JsonObject): Json[] => {
    const sv = opt(o, key);
    if (sv === undefined) return [];
    const sp = at(path, key);
    return arr(sv, sp).map((x, i) => f(obj(x, idx(sp, i)), idx(sp, i)));
  };
  return {
    scalars: section('scalars', named),
    enums: section('enums', (x, p) => {
      const out = named(x, p);
      const vp = at(p, 'values');
      out['values'] = arr(req(x, 'values', p), vp).map((ev, i) => {
        const ep = idx(vp, i);
        const eo = obj(ev, ep);
        const value = graphqlName(req(eo, 'value', ep), at(ep, 'value'));
        if (value === 'true' || value === 'false' || value === 'null') throw parseFailed(at(ep, 'value'), `"${value}" is not a valid enum value`);
        const e: JsonObject = { value };
        optDescription(eo, ep, e);
        const dep = opt(eo, 'is_deprecated');
        if (dep !== undefined && bool(dep, at(ep, 'is_deprecated'))) e['is_deprecated'] = true;
        return e;
      });
      return out;
    }),
    input_objects: section('input_objects', (x, p) => ({ ...named(x, p), fields: fields(x, p) })),
    objects: section('objects', (x, p) => {
      const n = named(x, p);
      const out: JsonObject = { ...n, fields: fields(x, p, (f) => argumentFields.push([n['name'] as string, f])) };
      const rv = opt(x, 'relationships');
      if (rv !== undefined) {
        const rp = at(p, 'relationships');
        out['relationships'] = arr(rv, rp).map((r, i) => {
          const pp = idx(rp, i);
          const ro = obj(r, pp);
          // The incumbent joins an action's output to tables only ("An Action cannot be joined to a Remote Schema").
          for (const k of ['to_remote_schema', 'remote_schema']) {
            if (opt(ro, k) !== undefined) throw badRequest('not-supported', at(pp, k), 'an action\'s output type cannot be joined to a remote schema: its relationships lead to tables (remote_table)');
          }
          const mp = at(pp, 'field_mapping');
          const mapping = obj(req(ro, 'field_mapping', pp), mp);
          for (const [k, c] of Object.entries(mapping)) str(c, at(mp, k));
          const source = opt(ro, 'source');
          return {
            name: graphqlName(req(ro, 'name', pp), at(pp, 'name')),
            type: oneOf(req(ro, 'type', pp), at(pp, 'type'), ['object', 'array']),
            // One database: "default" is the only source there is; it is kept so exports round-trip.
            ...(source === undefined ? {} : { source: oneOf(source, at(pp, 'source'), ['default']) }),
            remote_table: qnJson(qualifiedName(req(ro, 'remote_table', pp), at(pp, 'remote_table'))),
            field_mapping: sortKeysDeep(mapping),
          };
        });
      }
      return out;
    }),
    argumentFields,
  };
}

const byName = (a: Json, b: Json) => compareCodePoints(String((a as JsonObject)['name']), String((b as JsonObject)['name']));

/** The canonical `custom_types` value, or null when every section is empty (§6.2). */
export function customTypesJson(ct: CustomTypes): JsonObject | null {
  const out: JsonObject = {};
  if (ct.input_objects.length > 0) out['input_objects'] = [...ct.input_objects].sort(byName);
  if (ct.objects.length > 0) {
    out['objects'] = [...ct.objects].sort(byName).map((x) => {
      const o = x as JsonObject;
      const rels = (o['relationships'] as Json[] | undefined) ?? [];
      const res: JsonObject = { ...o };
      delete res['relationships'];
      if (rels.length > 0) res['relationships'] = [...rels].sort(byName);
      return res;
    });
  }
  if (ct.scalars.length > 0) out['scalars'] = [...ct.scalars].sort(byName);
  if (ct.enums.length > 0) out['enums'] = [...ct.enums].sort(byName);
  return Object.keys(out).length > 0 ? out : null;
}

export const emptyCustomTypes = (): CustomTypes => ({ input_objects: [], objects: [], scalars: [], enums: [], argumentFields: [] });
