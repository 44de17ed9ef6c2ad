import type { FieldNode, GraphQLField } from 'graphql';
import type { Database } from '../../../db/database.js';
import type { Json } from '../../../metadata/json.js';
import { jsonObject, SelectionCompiler } from '../compile/index.js';
import { shaped } from './async.js';
import type { ApiError } from '../../../errors.js';
import type { FieldInfo } from '../schema/index.js';
import { fieldInfo } from '../schema/index.js';
import type { SelectionContext } from '../compile/index.js';
import { bindStatement, StatementBuilder } from '../compile/index.js';
import type { GValue } from '../compile/index.js';
import type { RoleView } from '../schema/index.js';
import type { RemoteJoinSpec } from '../compile/index.js';

/**
 * Relationships of an action's output type to tables (graphql-api.md §5.1 step 4): after the handler answered, one
 * statement receives its objects as one jsonb parameter and joins each to the remote table on `field_mapping`
 * (the field's value cast to the column's type), filtered by the role's select permission on that table.
 */

type Field = GraphQLField<unknown, unknown>;

export interface RelationshipCall {
  db: Database;
  role: RoleView;
  sel: SelectionContext;
  session: Record<string, string>;
  /** The root field's response key (error paths). */
  key: string;
  rels: [string, FieldNode[], Field][];
  /** A PostgreSQL error as the GraphQL error of root field `key` (errors.ts databaseError). */
  dbError: (e: unknown, key: string, sql: string, args: (string | null)[]) => ApiError | null;
  /** Replaces remote relationships' markers (issue 35.3) in statements' answers, by key: a table reached from the output may have them. */
  joins?: JoinRunner;
}

export type JoinRunner = (statements: { key: string; joins: RemoteJoinSpec[] }[], values: Map<string, string>) => Promise<void>;

/** The statement's answer with its remote relationships joined (one call per remote schema). */
async function joined(x: RelationshipCall, joins: RemoteJoinSpec[], text: string): Promise<string> {
  if (joins.length === 0 || !x.joins) return text;
  const values = new Map([[x.key, text]]);
  await x.joins([{ key: x.key, joins }], values);
  return values.get(x.key) ?? text;
}

const isObject = (v: unknown): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The statement over `objects`; binding its parameters fails on a missing session variable (§1.3 step 9). */
function statement(x: RelationshipCall, objects: Json[]): { sql: string; args: (string | null)[]; joins: RemoteJoinSpec[] } {
  const b = new StatementBuilder(x.role.cache);
  const c = new SelectionCompiler(b, x.role, x.sel);
  const param = b.param(objects as unknown as GValue, 'jsonb');
  const row = '"o"."v"';
  const exprs: [string, string][] = x.rels.map(([key, fns, f]) => {
    const i = fieldInfo(f) as Extract<FieldInfo, { kind: 'action_rel' }>;
    const path = `$.selectionSet.${x.key}.selectionSet.${key}`;
    return [key, i.array ? c.rowsJson(f, i.view, i.source, fns, row, path) : c.objectRow(f, i.view, i.source, fns, row, path)];
  });
  const sql = `SELECT coalesce(json_agg(${jsonObject(exprs)} ORDER BY "o"."n"), '[]'::json)::text AS "root" ` +
    `FROM jsonb_array_elements(${param}) WITH ORDINALITY AS "o"("v", "n")`;
  return { sql, args: bindStatement(b.params, x.session, x.sel.variables), joins: b.remoteJoins };
}

/**
 * A selection with relationships inside nested object types of the output: the whole answer is shaped in one
 * statement (as an asynchronous action's stored answer is), the answer bound as the jsonb parameter `answer`.
 */
function nestedStatement(x: RelationshipCall, field: Field, nodes: FieldNode[]): { sql: string; args: (string | null)[]; answer: number; joins: RemoteJoinSpec[] } {
  const b = new StatementBuilder(x.role.cache);
  const c = new SelectionCompiler(b, x.role, x.sel);
  const param = b.value(null, 'jsonb');
  const answer = b.params.length - 1;
  const sql = `SELECT (${shaped(c, field.type, nodes, param, `$.selectionSet.${x.key}`)})::text AS "root"`;
  return { sql, args: bindStatement(b.params, x.session, x.sel.variables), answer, joins: b.remoteJoins };
}

/** Before the handler is called: the nested statement's parameters (a missing session variable calls no handler). */
export function checkNested(x: RelationshipCall, field: Field, nodes: FieldNode[]): void {
  nestedStatement(x, field, nodes);
}

/** The checked answer shaped by the selection with every relationship, at any depth, as JSON text. */
export async function shapeInDatabase(x: RelationshipCall, field: Field, nodes: FieldNode[], value: Json): Promise<string> {
  const st = nestedStatement(x, field, nodes);
  st.args[st.answer] = JSON.stringify(value);
  const rows = await x.db.transaction(async (tx) => {
    try {
      return await tx.query<{ root: string | null }>(st.sql, st.args);
    } catch (e) {
      throw x.dbError(e, x.key, st.sql, st.args) ?? e;
    }
  }, { readOnlySnapshot: true, utc: true });
  return joined(x, st.joins, rows[0]?.root ?? 'null');
}

/** Before the handler is called: the checks of §1.3 steps 8–9 that the statement's parameters need. */
export function checkRelationships(x: RelationshipCall): void {
  statement(x, []);
}

/** Adds the selected relationships to the shaped output (an object, a list of objects, or null) in place. */
export async function addRelationships(x: RelationshipCall, answer: Json, shaped: Json): Promise<void> {
  const pairs = (Array.isArray(answer) ? answer.map((a, i) => [a, (shaped as Json[])[i]]) : [[answer, shaped]])
    .filter((p): p is [Record<string, Json>, Record<string, Json>] => isObject(p[0]) && isObject(p[1]));
  if (pairs.length === 0) return;
  const { sql, args, joins } = statement(x, pairs.map((p) => p[0]));
  const rows = await x.db.transaction(async (tx) => {
    try {
      return await tx.query<{ root: string }>(sql, args);
    } catch (e) {
      throw x.dbError(e, x.key, sql, args) ?? e;
    }
  }, { readOnlySnapshot: true, utc: true });
  const values = JSON.parse(await joined(x, joins, rows[0]?.root ?? '[]')) as Record<string, Json>[];
  pairs.forEach(([, out], i) => {
    for (const [key] of x.rels) out[key] = values[i]?.[key] ?? null;
  });
}
