import { badRequest, type ApiError } from '../../errors.js';
import { pgErrorInfo } from '../../db/database.js';
import type { Json, JsonObject } from '../../metadata/json.js';
import { arr, at, idx, int, obj, oneOf, opt, qualifiedName, req, str } from '../../metadata/reader.js';
import { qnKey, qnQuoted } from '../../metadata/names.js';
import { compileBoolExp, quoteIdent, quoteTable } from '../bool-exp/compile.js';
import { spatialFromText } from '../bool-exp/operators.js';
import { binaryNumericText, bindParams, isFreeNumeric } from '../graphql/compile/index.js';
import { validateBoolExp } from '../bool-exp/validate.js';
import { boolExpTable } from '../kinds/permissions.js';
import { boolExpSchema, type ResolvedTable } from '../schema-cache.js';
import type { OpContext } from '../context.js';
import { checkSource } from './table-settings.js';
import { op, type Operation } from './operation.js';

/**
 * The incumbent's data queries of `/v2/query` (issue 29 point 6): `select`, `count`, `insert`, `update`, `delete` on
 * tracked tables, as admin, in the request's transaction. Filters are BoolExps (the permission language); values are
 * parameters cast to the column's type; identifiers are always quoted.
 */

interface Sql { text: string; params: (string | null)[] }

const tableOf = (ctx: OpContext, o: JsonObject, path: string): ResolvedTable => {
  checkSource(o, path);
  const t = qualifiedName(req(o, 'table', path), at(path, 'table'));
  const rt = ctx.cache.tables.get(qnKey(t));
  if (!rt) throw badRequest('not-exists', at(path, 'table'), `table ${qnQuoted(t)} does not exist`);
  return rt;
};

function column(rt: ResolvedTable, name: unknown, path: string): string {
  const c = str(name, path);
  if (!rt.db.columns.has(c)) throw badRequest('not-exists', path, `column "${c}" does not exist in table ${qnQuoted(rt.entry.table)}`);
  return c;
}

/** A JSON value as the text PostgreSQL casts to the column's type. */
function valueText(v: Json, typeName: string): string | null {
  if (v === null) return null;
  if (typeName === 'jsonb' || typeName === 'json') return JSON.stringify(v);
  if (typeof v === 'string') return v;
  // The incumbent sends a number in the binary numeric format, whose scale PostgreSQL keeps (numeric-text.ts).
  if (typeof v === 'number' && isFreeNumeric(typeName)) return binaryNumericText(String(v));
  return typeof v === 'boolean' || typeof v === 'number' ? String(v) : JSON.stringify(v);
}

class Params {
  readonly list: (string | null)[] = [];
  add(text: string | null, cast: string): string {
    this.list.push(text);
    // A geometry or geography is given as GeoJSON, a raster as hex WKB (the incumbent's forms, as in GraphQL).
    return spatialFromText(`$${this.list.length}::text`, cast) ?? `$${this.list.length}::${cast}`;
  }
  value(rt: ResolvedTable, col: string, v: Json): string {
    const c = rt.db.columns.get(col);
    return this.add(valueText(v, c?.typeName ?? 'text'), c?.castType ?? 'text');
  }
  /** A BoolExp on `alias`, validated against the schema cache, its parameters appended. */
  where(ctx: OpContext, rt: ResolvedTable, exp: Json, alias: string, path: string): string {
    const schema = boolExpSchema(ctx.cache.tables);
    const v = validateBoolExp(exp, boolExpTable(rt), schema);
    if ('reason' in v) throw badRequest('validation-failed', path, v.reason);
    const c = compileBoolExp(exp, boolExpTable(rt), alias, schema, this.list.length);
    this.list.push(...bindParams(c.params, ctx.sessionVariables));
    return c.sql;
  }
}

function orderBy(rt: ResolvedTable, v: Json | undefined, alias: string, path: string): string {
  if (v === undefined || v === null) return '';
  const items = Array.isArray(v) ? v : [v];
  const parts = items.map((item, i) => {
    const p = Array.isArray(v) ? idx(path, i) : path;
    // "+col" / "-col" or {column, type: asc|desc, nulls: first|last}.
    if (typeof item === 'string') {
      const desc = item.startsWith('-');
      const name = item.replace(/^[+-]/, '');
      return `${alias}.${quoteIdent(column(rt, name, p))} ${desc ? 'DESC' : 'ASC'}`;
    }
    const o = obj(item, p);
    const dir = opt(o, 'type') === undefined ? 'asc' : oneOf(o['type'], at(p, 'type'), ['asc', 'desc']);
    const nulls = opt(o, 'nulls') === undefined ? '' : ` NULLS ${oneOf(o['nulls'], at(p, 'nulls'), ['first', 'last']).toUpperCase()}`;
    return `${alias}.${quoteIdent(column(rt, req(o, 'column', p), at(p, 'column')))} ${dir.toUpperCase()}${nulls}`;
  });
  return parts.length > 0 ? ` ORDER BY ${parts.join(', ')}` : '';
}

const limitOffset = (o: JsonObject, path: string): string => {
  const l = opt(o, 'limit');
  const f = opt(o, 'offset');
  return `${l === undefined || l === null ? '' : ` LIMIT ${int(l, at(path, 'limit'), 0)}`}${f === undefined || f === null ? '' : ` OFFSET ${int(f, at(path, 'offset'), 0)}`}`;
};

/**
 * The select list of `columns`: names, "*", and `{name, columns, where?, order_by?, limit?, offset?}` for a
 * relationship (an object for an object relationship, a list for an array one).
 */
function selectList(ctx: OpContext, rt: ResolvedTable, columns: Json, alias: string, ps: Params, path: string, depth: number): string {
  const list = columns === '*' ? ['*'] : arr(columns, path);
  const out: string[] = [];
  list.forEach((c, i) => {
    const p = idx(path, i);
    if (c === '*') {
      for (const name of rt.db.columns.keys()) out.push(`${alias}.${quoteIdent(name)}`);
      return;
    }
    if (typeof c === 'string') {
      out.push(`${alias}.${quoteIdent(column(rt, c, p))}`);
      return;
    }
    const o = obj(c, p);
    const name = str(req(o, 'name', p), at(p, 'name'));
    const rel = rt.relationships.get(name);
    if (!rel) throw badRequest('not-exists', at(p, 'name'), `relationship "${name}" does not exist in table ${qnQuoted(rt.entry.table)}`);
    const remote = ctx.cache.tables.get(qnKey(rel.remote)) as ResolvedTable;
    const r = `r${depth}`;
    const inner = selectList(ctx, remote, req(o, 'columns', p), r, ps, at(p, 'columns'), depth + 1);
    const join = rel.mapping.map(([l, rc]) => `${r}.${quoteIdent(rc)} = ${alias}.${quoteIdent(l)}`);
    const w = opt(o, 'where');
    if (w !== undefined && w !== null) join.push(ps.where(ctx, remote, w, r, at(p, 'where')));
    const from = `SELECT ${inner} FROM ${quoteTable(remote.entry.table)} AS ${r} WHERE ${join.join(' AND ')}`;
    const sub = rel.kind === 'object'
      ? `(SELECT row_to_json(x) FROM (${from} LIMIT 1) x)`
      : `(SELECT coalesce(json_agg(row_to_json(x)), '[]') FROM (${from}${orderBy(remote, opt(o, 'order_by'), r, at(p, 'order_by'))}${limitOffset(o, p)}) x)`;
    out.push(`${sub} AS ${quoteIdent(name)}`);
  });
  return out.length > 0 ? out.join(', ') : 'NULL';
}

function select(ctx: OpContext, o: JsonObject, path: string): Sql {
  const rt = tableOf(ctx, o, path);
  const ps = new Params();
  const cols = selectList(ctx, rt, req(o, 'columns', path), 't', ps, at(path, 'columns'), 1);
  const w = opt(o, 'where');
  const where = w === undefined || w === null ? '' : ` WHERE ${ps.where(ctx, rt, w, 't', at(path, 'where'))}`;
  const inner = `SELECT ${cols} FROM ${quoteTable(rt.entry.table)} AS t${where}${orderBy(rt, opt(o, 'order_by'), 't', at(path, 'order_by'))}${limitOffset(o, path)}`;
  return { text: `SELECT coalesce(json_agg(row_to_json(x)), '[]')::text AS out FROM (${inner}) x`, params: ps.list };
}

function count(ctx: OpContext, o: JsonObject, path: string): Sql {
  const rt = tableOf(ctx, o, path);
  const ps = new Params();
  const w = opt(o, 'where');
  const where = w === undefined || w === null ? '' : ` WHERE ${ps.where(ctx, rt, w, 't', at(path, 'where'))}`;
  const d = opt(o, 'distinct');
  const distinct = d === undefined || d === null ? [] : arr(d, at(path, 'distinct')).map((c, i) => `t.${quoteIdent(column(rt, c, idx(at(path, 'distinct'), i)))}`);
  const what = distinct.length === 0 ? '*' : `DISTINCT (${distinct.join(', ')})`;
  return { text: `SELECT json_build_object('count', count(${what}))::text AS out FROM ${quoteTable(rt.entry.table)} AS t${where}`, params: ps.list };
}

/** `{affected_rows, returning?}` from the rows a data-changing statement returned. */
function mutationResult(rt: ResolvedTable, o: JsonObject, path: string, statement: string): string {
  const r = opt(o, 'returning');
  const cols = r === undefined || r === null ? null : arr(r, at(path, 'returning')).map((c, i) => quoteIdent(column(rt, c, idx(at(path, 'returning'), i))));
  const returning = cols === null ? '' : `, 'returning', (SELECT coalesce(json_agg(row_to_json(x)), '[]') FROM (SELECT ${cols.length > 0 ? cols.join(', ') : 'NULL'} FROM m) x)`;
  return `WITH m AS (${statement} RETURNING *) SELECT json_build_object('affected_rows', (SELECT count(*) FROM m)${returning})::text AS out`;
}

function insert(ctx: OpContext, o: JsonObject, path: string): Sql {
  const rt = tableOf(ctx, o, path);
  const objectsPath = at(path, 'objects');
  const objects = arr(req(o, 'objects', path), objectsPath).map((x, i) => obj(x, idx(objectsPath, i)));
  if (objects.length === 0) throw badRequest('validation-failed', objectsPath, 'expected at least one object');
  const cols: string[] = [];
  objects.forEach((x, i) => {
    for (const k of Object.keys(x)) if (!cols.includes(k)) cols.push(column(rt, k, at(idx(objectsPath, i), k)));
  });
  const ps = new Params();
  const rows = objects.map((x) => `(${cols.map((c) => (Object.hasOwn(x, c) ? ps.value(rt, c, x[c] as Json) : 'DEFAULT')).join(', ')})`);
  const head = cols.length > 0 ? `(${cols.map(quoteIdent).join(', ')}) VALUES ${rows.join(', ')}` : 'DEFAULT VALUES';
  let conflict = '';
  const oc = opt(o, 'on_conflict');
  if (oc !== undefined && oc !== null) {
    const cp = at(path, 'on_conflict');
    const co = obj(oc, cp);
    const name = str(req(co, 'constraint', cp), at(cp, 'constraint'));
    if (!rt.db.uniques.some((u) => u.name === name)) throw badRequest('not-exists', at(cp, 'constraint'), `constraint "${name}" does not exist on table ${qnQuoted(rt.entry.table)}`);
    const action = opt(co, 'action') === undefined ? 'ignore' : oneOf(co['action'], at(cp, 'action'), ['ignore', 'update']);
    conflict = action === 'ignore' || cols.length === 0
      ? ` ON CONFLICT ON CONSTRAINT ${quoteIdent(name)} DO NOTHING`
      : ` ON CONFLICT ON CONSTRAINT ${quoteIdent(name)} DO UPDATE SET ${cols.map((c) => `${quoteIdent(c)} = EXCLUDED.${quoteIdent(c)}`).join(', ')}`;
  }
  return { text: mutationResult(rt, o, path, `INSERT INTO ${quoteTable(rt.entry.table)} AS t ${head}${conflict}`), params: ps.list };
}

function update(ctx: OpContext, o: JsonObject, path: string): Sql {
  const rt = tableOf(ctx, o, path);
  const ps = new Params();
  const sets: string[] = [];
  const each = (key: string, f: (c: string, v: Json) => string) => {
    const v = opt(o, key);
    if (v === undefined || v === null) return;
    const p = at(path, key);
    if (key === '$default') {
      arr(v, p).forEach((c, i) => sets.push(`${quoteIdent(column(rt, c, idx(p, i)))} = DEFAULT`));
      return;
    }
    for (const [c, x] of Object.entries(obj(v, p))) sets.push(`${quoteIdent(column(rt, c, at(p, c)))} = ${f(c, x as Json)}`);
  };
  each('$set', (c, v) => ps.value(rt, c, v));
  each('$inc', (c, v) => `t.${quoteIdent(c)} + ${ps.value(rt, c, v)}`);
  each('$mul', (c, v) => `t.${quoteIdent(c)} * ${ps.value(rt, c, v)}`);
  each('$default', () => 'DEFAULT');
  if (sets.length === 0) throw badRequest('validation-failed', path, 'at least one of $set, $inc, $mul or $default is required');
  const where = ps.where(ctx, rt, req(o, 'where', path), 't', at(path, 'where'));
  return { text: mutationResult(rt, o, path, `UPDATE ${quoteTable(rt.entry.table)} AS t SET ${sets.join(', ')} WHERE ${where}`), params: ps.list };
}

function del(ctx: OpContext, o: JsonObject, path: string): Sql {
  const rt = tableOf(ctx, o, path);
  const ps = new Params();
  const where = ps.where(ctx, rt, req(o, 'where', path), 't', at(path, 'where'));
  return { text: mutationResult(rt, o, path, `DELETE FROM ${quoteTable(rt.entry.table)} AS t WHERE ${where}`), params: ps.list };
}

const CONSTRAINT: Record<string, string> = {
  '23505': 'Uniqueness violation. ', '23503': 'Foreign key violation. ', '23502': 'Not-NULL violation. ', '23514': 'Check constraint violation. ',
};

function databaseError(e: unknown, sql: Sql): ApiError | null {
  const info = pgErrorInfo(e);
  if (!info) return null;
  const internal: Json = {
    statement: sql.text, prepared: true, arguments: sql.params,
    error: { exec_status: 'FatalError', message: info.message, status_code: info.code, description: info.detail, hint: info.hint },
  };
  if (info.code.startsWith('23')) return badRequest('constraint-violation', '$.args', (CONSTRAINT[info.code] ?? '') + info.message, internal);
  if (info.code.startsWith('22')) return badRequest('data-exception', '$.args', info.message, internal);
  return badRequest('postgres-error', '$.args', info.message, internal);
}

/** A data query: its SQL is built at run time (the schema cache of that moment), run, and its JSON answer returned. */
function dataOperation(build: (ctx: OpContext, o: JsonObject, path: string) => Sql): Operation<JsonObject> {
  return {
    write: false,
    parse: (args, path) => obj(args, path),
    async run(ctx, o) {
      const sql = build(ctx, o, '$.args');
      let rows: { out: string }[];
      try {
        rows = await ctx.tx.query<{ out: string }>(sql.text, sql.params);
      } catch (e) {
        throw databaseError(e, sql) ?? e;
      }
      return JSON.parse((rows[0] as { out: string }).out) as Json;
    },
  };
}

export const dataOperations: Record<string, Operation<unknown>> = {
  select: op(dataOperation(select)),
  count: op(dataOperation(count)),
  insert: op(dataOperation(insert)),
  update: op(dataOperation(update)),
  delete: op(dataOperation(del)),
};
