import {
  getNamedType, isObjectType, Kind, valueFromASTUntyped, type ArgumentNode, type FieldNode, type GraphQLField,
  type GraphQLInputType, type SelectionNode, type SelectionSetNode,
} from 'graphql';
import type { Json, JsonObject } from '../../metadata/json.js';
import { gqlError, RemoteSchemaErrors } from '../graphql/errors.js';
import { callRemote } from './call.js';
import { answerTables, inline, remoteBody, remoteHeaders, typenamesForward, type ForwardRequest } from './forward.js';
import { literal, parseKeepingDigits, stringifyKeepingDigits } from './literals.js';
import { JOIN_MARK, type RemoteJoinSpec } from './relationships.js';
import { rootType } from './role-schema.js';

/**
 * Remote relationships joined (issue 35.3): the statements' answers hold a marker per row where a remote
 * relationship's value goes. All the markers of an operation are found, each distinct (field, join values) becomes
 * one aliased field of one document per remote schema, sent in one call, and each marker is replaced by its alias's
 * answer. A list of a thousand rows is one call, not a thousand. The answers' text is spliced, not parsed and
 * printed again: the database's numbers keep their digits.
 */

/** A statement's answer with joins, by root field key. */
export interface JoinedStatement {
  key: string;
  joins: RemoteJoinSpec[];
}

interface Marker {
  start: number;
  end: number;
  alias: string;
}

interface AliasUse {
  spec: RemoteJoinSpec;
  values: Json[];
}

/** The end (exclusive) of the JSON object starting at `start` (a `{`). */
function objectEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return text.length;
}

/** The markers of one answer; `aliases` gathers the distinct (field, join values) across the operation. */
function markers(text: string, joins: RemoteJoinSpec[], key: string, aliases: Map<string, AliasUse & { alias: string }>): Marker[] {
  const out: Marker[] = [];
  const needle = `"${JOIN_MARK}"`;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) {
    let start = at - 1;
    while (start >= 0 && text[start] === ' ') start--;
    // A marker is an object's first key, outside any string (a quote inside a string is escaped).
    if (start < 0 || text[start] !== '{' || text[at - 1] === '\\') continue;
    const end = objectEnd(text, start);
    // Join values keep their digits (a bigint above 2^53 is sent as the database printed it).
    const m = parseKeepingDigits(text.slice(start, end)) as Record<string, Json>;
    const spec = joins[Number(m[JOIN_MARK])];
    if (!spec) continue;
    const values = (m['v'] ?? []) as Json[];
    const id = `${spec.remote.remote.name}\u0000${key}\u0000${spec.id}\u0000${JSON.stringify(values)}`;
    let use = aliases.get(id);
    if (!use) {
      use = { spec, values, alias: `_r${aliases.size}` };
      aliases.set(id, use);
    }
    out.push({ start, end, alias: use.alias });
    at = end - needle.length;
  }
  return out;
}

/** The join's arguments as written, each `$column` replaced by the row's value. */
function substitute(v: Json, row: Map<string, Json>): Json {
  if (typeof v === 'string' && v.startsWith('$') && row.has(v.slice(1))) return row.get(v.slice(1)) ?? null;
  if (Array.isArray(v)) return v.map((x) => substitute(x, row));
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, substitute(x, row)]));
  return v;
}

/** The client's value and the join's merged: the join's parts win. */
function merge(client: unknown, join: Json): unknown {
  if (typeof join !== 'object' || join === null || Array.isArray(join) || typeof client !== 'object' || client === null || Array.isArray(client)) return join;
  const out: Record<string, unknown> = { ...(client as Record<string, unknown>) };
  for (const [k, v] of Object.entries(join)) out[k] = merge(out[k], v);
  return out;
}

function args(field: GraphQLField<unknown, unknown>, values: Record<string, unknown>): ArgumentNode[] {
  return Object.entries(values).map(([name, v]) => ({
    kind: Kind.ARGUMENT, name: { kind: Kind.NAME, value: name },
    value: literal(v, field.args.find((a) => a.name === name)?.type as GraphQLInputType | undefined),
  }));
}

/** One alias's field: the relationship's path from the query root, the join's arguments, the client's selection. */
function aliasField(use: AliasUse & { alias: string }, req: ForwardRequest): { node: FieldNode; set: SelectionSetNode; leaf: GraphQLField<unknown, unknown> } {
  const { spec, values } = use;
  const row = new Map<string, Json>(spec.rel.lhs.map((c, i) => [c, values[i] ?? null]));
  const fields: GraphQLField<unknown, unknown>[] = [];
  let type = rootType(spec.remote, 'query');
  for (const step of spec.rel.path) {
    const f = type?.getFields()[step.field];
    if (!f) throw gqlError('remote-schema-error', spec.path, `the remote field "${step.field}" of remote relationship "${spec.rel.name}" no longer exists`);
    fields.push(f);
    const next = getNamedType(f.type);
    type = isObjectType(next) ? next : null;
  }
  const clientArgs: Record<string, unknown> = {};
  for (const n of spec.nodes) {
    for (const a of n.arguments ?? []) {
      const v: unknown = valueFromASTUntyped(a.value, req.variables);
      if (v !== undefined) clientArgs[a.name.value] = v;
    }
  }
  const set: SelectionSetNode = {
    kind: Kind.SELECTION_SET,
    selections: spec.nodes.flatMap((n) => (n.selectionSet ? inline(n.selectionSet, req.fragments).selections : [])),
  };
  let node: FieldNode | undefined;
  for (let i = spec.rel.path.length - 1; i >= 0; i--) {
    const step = spec.rel.path[i] as (typeof spec.rel.path)[number];
    const joined = substitute(step.args, row) as JsonObject;
    const given: Record<string, unknown> = i === spec.rel.path.length - 1 ? { ...clientArgs } : {};
    for (const [k, v] of Object.entries(joined)) given[k] = merge(given[k], v);
    const selectionSet: SelectionSetNode | undefined = node ? { kind: Kind.SELECTION_SET, selections: [node] } : set.selections.length > 0 ? set : undefined;
    node = {
      kind: Kind.FIELD, name: { kind: Kind.NAME, value: step.field },
      arguments: args(fields[i] as GraphQLField<unknown, unknown>, given),
      ...(selectionSet ? { selectionSet } : {}),
    };
  }
  return { node: { ...(node as FieldNode), alias: { kind: Kind.NAME, value: use.alias } }, set, leaf: fields[fields.length - 1] as GraphQLField<unknown, unknown> };
}

/** The response keys of a relationship's path (`$.selectionSet.a.selectionSet.b` → a, b), for errors. */
const responseKeys = (path: string): string[] => path.split('.selectionSet.').slice(1);

async function callOne(uses: (AliasUse & { alias: string })[], defs: ReadonlyMap<string, { definition: JsonObject }>, req: ForwardRequest): Promise<Map<string, string>> {
  const first = uses[0] as AliasUse & { alias: string };
  const rr = first.spec.remote;
  const def = defs.get(rr.remote.name)?.definition ?? {};
  const built = uses.map((u) => ({ use: u, ...aliasField(u, req) }));
  const selections: SelectionNode[] = built.map((b) => b.node);
  const view = rr.extended ? rr.schema : null;
  const body = remoteBody(rr.remote, 'query', selections, rr.presets, req, view);
  const answer = await callRemote(rr.remote.name, def, body, req.env, remoteHeaders(def, req), req.signal);
  if (!answer.ok) throw gqlError('remote-schema-error', first.spec.path, answer.message, answer.internal);
  const errors = answer.body['errors'];
  if (Array.isArray(errors) && errors.length > 0) {
    const byAlias = new Map(uses.map((u) => [u.alias, u.spec]));
    throw new RemoteSchemaErrors(errors.map((e) => {
      const o: JsonObject = typeof e === 'object' && e !== null && !Array.isArray(e) ? { ...e } : { message: String(e) };
      // The remote's path starts at an alias of the engine's: the client sees the relationship's field instead.
      const p = o['path'];
      const spec = Array.isArray(p) && typeof p[0] === 'string' ? byAlias.get(p[0]) : undefined;
      if (spec && Array.isArray(p)) o['path'] = [...responseKeys(spec.path), ...p.slice(spec.rel.path.length)];
      return o;
    }));
  }
  const data = answer.body['data'];
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw gqlError('remote-schema-error', first.spec.path, `remote schema "${rr.remote.name}" answered no "data" object`);
  const values = built.map((b) => {
    let v: Json | undefined = data[b.use.alias];
    for (const step of b.use.spec.rel.path.slice(1)) v = typeof v === 'object' && v !== null && !Array.isArray(v) ? v[step.field] : null;
    return v ?? null;
  });
  // The remote's types' relationships to tables, inside the joined values: the next level, one statement per field.
  if (view) await answerTables(built.map((b, i) => ({ value: values[i], set: b.set, type: getNamedType(b.leaf.type), path: b.use.spec.path })), view, req);
  const out = new Map<string, string>();
  built.forEach((b, i) => out.set(b.use.alias, stringifyKeepingDigits(typenamesForward(values[i], b.set, rr.remote) ?? null)));
  return out;
}

/** Replaces every marker in the statements' answers (`values`, by root field key) with the remotes' answers. */
export async function runJoins(statements: JoinedStatement[], values: Map<string, string>, defs: ReadonlyMap<string, { definition: JsonObject }>, req: ForwardRequest): Promise<void> {
  const aliases = new Map<string, AliasUse & { alias: string }>();
  const found = statements.map((s) => {
    const text = values.get(s.key) ?? 'null';
    return { key: s.key, text, markers: markers(text, s.joins, s.key, aliases) };
  });
  if (aliases.size === 0) return;
  const byRemote = new Map<string, (AliasUse & { alias: string })[]>();
  for (const u of aliases.values()) {
    const list = byRemote.get(u.spec.remote.remote.name) ?? [];
    list.push(u);
    byRemote.set(u.spec.remote.remote.name, list);
  }
  const answers = new Map<string, string>();
  for (const m of await Promise.all([...byRemote.values()].map((uses) => callOne(uses, defs, req)))) for (const [k, v] of m) answers.set(k, v);
  for (const f of found) {
    if (f.markers.length === 0) continue;
    let out = '';
    let last = 0;
    for (const m of f.markers) {
      out += f.text.slice(last, m.start) + (answers.get(m.alias) ?? 'null');
      last = m.end;
    }
    values.set(f.key, out + f.text.slice(last));
  }
}
