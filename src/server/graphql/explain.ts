import { Kind, parse as parseDoc, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { ApiError } from '../../errors.js';
import { isObject } from '../../metadata/json.js';
import { collectSession, sessionValue } from '../auth/session-names.js';
import type { SchemaCache } from '../schema-cache.js';
import type { Database } from '../../db/database.js';
import { bindAll } from './compile/index.js';
import { planOperation } from './plan/index.js';
import { parseRequest, prepare, selectionOf, type DocumentLimits } from './request/index.js';
import { RoleView } from './schema/index.js';
import { explainedSubscription, multiplexSql, type ExplainedRequest } from './subscriptions/index.js';

/**
 * `POST /v1/graphql/explain` (issue 30.7, the incumbent's explain API, admin only): a query planned as the role and
 * session variables of `user` (admin without them), answered per root field with the SQL (parameters written in as
 * quoted literals, as the incumbent shows them) and PostgreSQL's plan of it; a subscription as one plan of what it
 * runs: on the role's subscription root (its `_stream` fields, its `subscription_root_fields`), a live query as the
 * multiplexed statement of its cohort (as the incumbent shows its multiplexed query), a stream as its first batch.
 */

export interface ExplainContext {
  db: Database;
  cache: SchemaCache;
  schemaFor(role: string): Promise<GraphQLSchema>;
  limits: DocumentLimits;
}

const badRequest = (code: string, path: string, message: string) => new ApiError(400, code, path, message);

/** A parameter's value as a SQL literal: the shown text only (the plan is computed with the parameters bound). */
const literal = (v: string | null): string => (v === null ? 'NULL' : `'${v.replace(/'/g, "''")}'`);

export function inlineParameters(sql: string, args: (string | null)[]): string {
  return sql.replace(/\$(\d+)/g, (m, n: string) => {
    const i = Number(n) - 1;
    return i < args.length ? literal(args[i] ?? null) : m;
  });
}

interface Explained {
  field: string;
  sql: string | null;
  plan: string[] | null;
}

export async function explainQuery(x: ExplainContext, body: unknown): Promise<string> {
  if (!isObject(body)) throw badRequest('parse-failed', '$', 'expected an object with "query" and optionally "user"');
  const { query, user } = body as Record<string, unknown>;
  if (!isObject(query)) throw badRequest('parse-failed', '$.query', 'expected an object with the GraphQL request ("query", "variables", "operationName")');
  if (user !== undefined && user !== null && !isObject(user)) throw badRequest('parse-failed', '$.user', 'expected an object of session variables');
  const entries = Object.entries((user ?? {}) as Record<string, unknown>).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)] as const);
  const session = collectSession(entries, 'x-engine-');
  const role = sessionValue(session, 'x-engine-role') ?? 'admin';
  try {
    const req = parseRequest(JSON.stringify(query));
    const schema = await x.schemaFor(role);
    // A subscription is explained as what a cohort of it runs at each refetch, on the role's live schema.
    let text = req.query;
    let variables = req.variables;
    let operationName = req.operationName;
    let planSchema = schema;
    const subscription = /\bsubscription\b/.test(text) && isSubscription(text, req.operationName);
    if (subscription) {
      const s = explainedSubscription(schema, req);
      if (s.kind === 'error') throw badRequest(s.code, s.path, s.message);
      ({ query: text, variables, operationName } = s.request satisfies ExplainedRequest);
      planSchema = s.live;
    }
    const entry = prepare(planSchema, text, operationName, x.limits);
    if (entry.op.operation === 'mutation') throw badRequest('invalid-params', '$', 'only queries can be explained');
    const { sel } = selectionOf(planSchema, entry, variables);
    const plans = planOperation(planSchema, new RoleView(x.cache, role, false), sel);
    if (plans.some((p) => p.kind === 'action')) throw badRequest('invalid-params', '$', 'query actions cannot be explained');
    const args = bindAll(plans, session, variables);
    const out: Explained[] = [];
    for (const p of plans) {
      if (p.kind !== 'sql') {
        out.push({ field: p.key, sql: null, plan: null });
        continue;
      }
      let sql = p.sql;
      let params = args.get(p.key) ?? [];
      // The cohort's statement: one cohort's parameters as the batch's JSON array, as runBatch sends them.
      const multiplexed = subscription ? multiplexSql(p.sql) : null;
      if (multiplexed !== null) [sql, params] = [multiplexed, [JSON.stringify([params])]];
      const rows = await x.db.query<Record<string, string>>(`EXPLAIN ${sql}`, params);
      out.push({ field: p.key, sql: inlineParameters(sql, params), plan: rows.map((r) => String(Object.values(r)[0])) });
    }
    if (subscription) {
      const first = out[0];
      return JSON.stringify({ sql: first?.sql ?? null, plan: first?.plan ?? null });
    }
    return JSON.stringify(out);
  } catch (e) {
    // GraphQL errors (HTTP 200 on /v1/graphql) are this API's 400s, as the incumbent's.
    if (e instanceof ApiError && e.status < 500 && e.status !== 400) throw new ApiError(400, e.code, e.path, e.message);
    throw e;
  }
}

function selected(text: string, operationName: string | null): OperationDefinitionNode | undefined {
  const ops = parseOps(text);
  return operationName === null ? (ops.length === 1 ? ops[0] : undefined) : ops.find((o) => o.name?.value === operationName);
}

function parseOps(text: string): OperationDefinitionNode[] {
  try {
    return parseDoc(text).definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  } catch {
    return [];
  }
}

const isSubscription = (text: string, operationName: string | null): boolean => selected(text, operationName)?.operation === 'subscription';
