import { badRequest, parseFailed } from '../../errors.js';
import type { Json, JsonObject } from '../json.js';
import { arr, at, graphqlName, idx, obj, opt, req, str } from '../reader.js';

/**
 * A table's remote relationship to a remote schema's field (issue 35 point 3), in the incumbent's two forms: the
 * older `{remote_schema, hasura_fields, remote_field}` and the newer `{to_remote_schema: {remote_schema, lhs_fields,
 * remote_field}}`. The definition is kept as written (export gives it back); this is its reading. A relationship to a
 * table of another source (`to_source`) is out of scope: the engine has one database.
 */

/** One level of `remote_field`: `{<field>: {arguments: {…}, field: {<next level>}}}`. */
export interface RemoteFieldStep {
  field: string;
  /** The arguments as written; a string `$c` stands for the value of the table's column `c`. */
  args: JsonObject;
}

export interface RemoteRelDefinition {
  remoteSchema: string;
  /** The table's columns the join reads. */
  lhsFields: string[];
  /** The remote field, from the query root down. */
  path: RemoteFieldStep[];
}

function remoteField(v: unknown, path: string): RemoteFieldStep[] {
  const steps: RemoteFieldStep[] = [];
  let cur: unknown = v;
  let p = path;
  while (cur !== undefined) {
    const o = obj(cur, p);
    const keys = Object.keys(o);
    if (keys.length !== 1) throw parseFailed(p, 'a remote field names exactly one field per level');
    const field = keys[0] as string;
    const fp = at(p, field);
    const spec = obj(o[field], fp);
    const a = opt(spec, 'arguments');
    steps.push({ field: graphqlName(field, fp), args: a === undefined || a === null ? {} : obj(a, at(fp, 'arguments')) });
    cur = opt(spec, 'field') ?? undefined;
    p = at(fp, 'field');
  }
  if (steps.length === 0) throw parseFailed(path, 'the remote field is empty');
  return steps;
}

/** The columns named as `$column` in the arguments, in order of appearance. */
export function argumentColumns(v: Json, out: string[] = []): string[] {
  if (typeof v === 'string' && v.startsWith('$') && v.length > 1) {
    if (!out.includes(v.slice(1))) out.push(v.slice(1));
  } else if (Array.isArray(v)) for (const x of v) argumentColumns(x, out);
  else if (typeof v === 'object' && v !== null) for (const x of Object.values(v)) argumentColumns(x, out);
  return out;
}

/** Reads a definition in either form; `to_source` and unknown shapes are refused at their path. */
export function parseRemoteRelDefinition(v: unknown, path: string): RemoteRelDefinition {
  const o = obj(v, path);
  if (opt(o, 'to_source') !== undefined) {
    throw badRequest('not-supported', at(path, 'to_source'), 'remote relationships to a table of another source are not supported: engine has one database');
  }
  const inner = opt(o, 'to_remote_schema');
  const d = inner === undefined ? o : obj(inner, at(path, 'to_remote_schema'));
  const dp = inner === undefined ? path : at(path, 'to_remote_schema');
  const lhsKey = inner === undefined ? 'hasura_fields' : 'lhs_fields';
  const remoteSchema = str(req(d, 'remote_schema', dp), at(dp, 'remote_schema'));
  const lp = at(dp, lhsKey);
  const lhsFields = arr(req(d, lhsKey, dp), lp).map((c, i) => str(c, idx(lp, i)));
  const steps = remoteField(req(d, 'remote_field', dp), at(dp, 'remote_field'));
  for (const c of argumentColumns(steps.map((s) => s.args) as Json)) {
    if (!lhsFields.includes(c)) throw parseFailed(at(dp, 'remote_field'), `the argument variable "$${c}" is not one of the ${lhsKey} (${lhsFields.join(', ')})`);
  }
  return { remoteSchema, lhsFields, path: steps };
}

/** The newer form of a definition, for a relationship given by the older operation's flat arguments. */
export function remoteRelDefinitionJson(o: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const k of ['remote_schema', 'hasura_fields', 'remote_field']) if (o[k] !== undefined) out[k] = o[k] as Json;
  return out;
}
