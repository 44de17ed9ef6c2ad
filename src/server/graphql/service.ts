import { getVariableValues, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { ApiError } from '../../errors.js';
import type { Database } from '../../db/database.js';
import type { Caller } from '../auth/index.js';
import type { SchemaCache } from '../schema-cache.js';
import type { Env } from '../outbound/index.js';
import { VERSION_SQL } from '../catalog.js';
import { DEFAULT_QUERY_TIMEOUT_MS } from '../serve-types.js';
import { errorsBody, gqlError } from './errors.js';
import { enumTypes, RoleView, SchemaStore } from './schema/index.js';
import { bindAll, SelectionContext } from './compile/index.js';
import { requestHeadersJson, runActions as runActionsOf, type ActionRoot } from './actions/index.js';
import { planOperation, type RootPlan } from './plan/index.js';
import {
  astBytes, batchElements, checkAllowlist, checkVariables, DEFAULT_DOCUMENT_LIMITS, parseRequest, PlanCache, planBytes, prepare, variablesShape,
  type CachedOperation, type DocumentLimits, type GraphqlRequest, type PlanCacheLimits,
} from './request/index.js';
import { confirmVersion, executeQuery, StaleSchema, type VersionGuard } from './execute/index.js';

/** Where the service gets the schema cache: the engine (§2.1). */
export interface SchemaSource {
  readonly db: Database;
  /** Where GraphQL queries read (read replicas, issue 31): `db` when absent; mutations always write to `db`. */
  readonly queryDb?: Database;
  /** The cache after comparing resource_version with the stored one (a round trip). */
  freshCache(): Promise<{ cache: SchemaCache; version: number }>;
  /** The cache as held; a request planned on it confirms the version in its transaction's first round trip. */
  heldCache(): { cache: SchemaCache; version: number };
}

/**
 * A request is planned again, on the new schema, whenever the metadata changed under it: at least MAX_REPLANS times
 * and for REPLAN_WINDOW_MS, then it answers the retryable `metadata-changed` error (issue 28: never a 500).
 */
const MAX_REPLANS = 5;
const REPLAN_WINDOW_MS = 10_000;

export type GraphqlInput = { text: string } | { error: string };

/** The HTTP request around the body: its raw headers (forwarded to action handlers) and the cookies to answer with. */
export interface GraphqlHttpContext {
  rawHeaders: string[];
  /** Filled with the `Set-Cookie` values of synchronous action handlers' answers (§1.4). */
  setCookies: string[];
  /** A stored query (a REST endpoint's): the allow list does not apply to it. */
  stored?: boolean;
  /** Aborts when the client went away: the request's statement is cancelled. */
  signal?: AbortSignal;
}

/** Why a request's statement was cancelled (its signal's reason). */
export const CANCEL_TIMEOUT = 'timeout';
export const CANCEL_SHUTDOWN = 'shutdown';
export const CANCEL_DISCONNECTED = 'client-disconnected';

/**
 * `POST /v1/graphql` (graphql-api.md §1.3): returns the response body; throws only on internal failures. One attempt
 * (`runOn`) goes request/ (body, allow list, prepared document) → plan/ (compiled with compile/, cached with the
 * document) → compile/bind.ts (parameters) → execute/ (handlers through actions/, then one transaction) → the body.
 */
export class GraphqlService {
  private readonly schemas = new SchemaStore();
  readonly plans: PlanCache;
  /** How often documents were prepared (parsed, validated) and operations compiled: the plan cache's effect. */
  readonly stats = { prepared: 0, compiled: 0 };
  /** Operations run with a plan already compiled (the metrics' plan-cache hits). */
  planHits = 0;
  /** ENGINE_GRAPHQL_STRINGIFY_NUMERIC_TYPES (issue 29.8): bigint, numeric and float8 as strings; numbers by default. */
  stringifyNumeric = false;
  /**
   * Whole response bodies of operations that read neither the database nor a handler nor a variable (introspection,
   * `__typename`), as bytes: the standard introspection query's answer is megabytes at a thousand tables, built once
   * per schema and sent as is. Keyed by the cached plans, so they go with the plan cache (any new schema cache).
   */
  private readonly bodies = new WeakMap<RootPlan[], Buffer>();

  /** `env`: where action handler URL templates and `value_from_env` headers are looked up, at each call. */
  /** `allowlist`: non-admin requests must send an allow-listed document (issue 20). */
  /** `limits`: the node and alias limits of issue 28 (`--node-limit`, `--alias-limit`). */
  constructor(
    private readonly source: SchemaSource, private readonly env: Env = process.env, private readonly allowlist = false,
    private readonly limits: DocumentLimits = DEFAULT_DOCUMENT_LIMITS, cacheLimits?: PlanCacheLimits,
    private readonly timeoutMs = DEFAULT_QUERY_TIMEOUT_MS,
  ) {
    this.plans = new PlanCache(cacheLimits);
  }

  /** The cancellers of the requests in flight (a stop cancels them once its grace period is over). */
  private readonly inflight = new Set<AbortController>();

  async handle(input: GraphqlInput, caller: Caller, http: GraphqlHttpContext = { rawHeaders: [], setCookies: [] }): Promise<string | Buffer> {
    const batch = 'text' in input ? batchElements(input.text) : null;
    if (batch === null) return this.handleOne(input, caller, http);
    // A batch (as the incumbent): each element its own request and transaction, in order; a failure stays in its slot.
    const bodies: string[] = [];
    for (const text of batch) bodies.push(String(await this.handleOne({ text }, caller, http)));
    return `[${bodies.join(',')}]`;
  }

  private async handleOne(input: GraphqlInput, caller: Caller, http: GraphqlHttpContext): Promise<string | Buffer> {
    const cancel = new AbortController();
    const timer = this.timeoutMs > 0 ? setTimeout(() => cancel.abort(CANCEL_TIMEOUT), this.timeoutMs) : undefined;
    const gone = (): void => cancel.abort(CANCEL_DISCONNECTED);
    http.signal?.addEventListener('abort', gone, { once: true });
    this.inflight.add(cancel);
    try {
      return await this.run(input, caller, { ...http, signal: cancel.signal });
    } catch (e) {
      // Errors shared with the metadata API (missing session variable) carry its status: here every one is a GraphQL error.
      if (e instanceof ApiError && (e.status < 500 || e.code === 'database-busy')) return errorsBody(e, caller.role === 'admin');
      throw e;
    } finally {
      clearTimeout(timer);
      http.signal?.removeEventListener('abort', gone);
      this.inflight.delete(cancel);
    }
  }

  /** Cancels the statements of every request in flight (after a stop's grace period); they answer a `timeout` error. */
  cancelAll(): void {
    for (const c of this.inflight) c.abort(CANCEL_SHUTDOWN);
  }

  /** The role's schema at the current resource_version (introspection tooling and tests use it too). */
  async schemaFor(role: string): Promise<GraphQLSchema> {
    const { cache } = await this.source.freshCache();
    return this.schemas.get(cache, role, false, await enumTypes(cache, this.source.db));
  }

  /**
   * Plans on the held schema cache and confirms its version with the stored one in the same round trip as BEGIN (§2.1,
   * §7.1); when another instance changed the metadata meanwhile, nothing has run: refresh and plan again. An error
   * found before the version was read (validation, a missing session variable) is confirmed the same way.
   */
  private async run(input: GraphqlInput, caller: Caller, http: GraphqlHttpContext): Promise<string | Buffer> {
    if ('error' in input) throw gqlError('parse-failed', '$', input.error);
    const req = parseRequest(input.text);
    let held = this.source.heldCache();
    const started = Date.now();
    // A read replica behind the metadata (an older resource_version) leaves the request to the primary.
    let onPrimary = false;
    for (let replans = 0; ; replans++) {
      const version: VersionGuard = { planned: held.version, sql: VERSION_SQL, stored: null };
      try {
        return await this.runOn(held.cache, version, req, caller, http, onPrimary);
      } catch (e) {
        if (e instanceof ApiError && e.code === 'timeout') throw e;
        if (e instanceof StaleSchema && !onPrimary && this.source.queryDb && e.stored !== null && e.stored < held.version) {
          onPrimary = true;
          continue;
        }
        if (replans >= MAX_REPLANS && Date.now() - started >= REPLAN_WINDOW_MS) {
          if (e instanceof StaleSchema) throw gqlError('metadata-changed', '$', 'the metadata kept changing while the request was planned; send it again');
          throw e;
        }
        if (e instanceof StaleSchema) {
          held = await this.source.freshCache();
          continue;
        }
        if (version.stored !== null) throw e;
        const fresh = await this.source.freshCache();
        if (fresh.version === held.version && fresh.cache === held.cache) throw e;
        held = fresh;
      }
    }
  }

  /** One attempt on one schema cache: request → plan (cached) → execute → response. */
  private async runOn(cache: SchemaCache, version: VersionGuard, req: GraphqlRequest, caller: Caller, http: GraphqlHttpContext, onPrimary = false): Promise<string | Buffer> {
    const { schema, entry, sel, varsKey } = await this.request(cache, req, caller, http);
    const role = new RoleView(cache, caller.role, caller.backendOnly === true);
    const { plans, counted } = this.plan(entry, varsKey, schema, role, sel);
    const known = this.bodies.get(plans);
    if (known) {
      await confirmVersion(this.source.db, version);
      return known;
    }
    // The headers are serialised only for an asynchronous action's statement, which binds them.
    const request = { get headers() { return requestHeadersJson(http.rawHeaders); }, query: req.query, version: version.planned };
    const args = bindAll(plans, caller.sessionVariables, req.variables, request);
    const action = { env: this.env, query: req.query, rawHeaders: http.rawHeaders, sessionVariables: caller.sessionVariables, setCookies: [] as string[] };
    const limit = { signal: http.signal, seconds: this.timeoutMs / 1000 };
    const runActions = (roots: ActionRoot[]): Promise<Map<string, string>> => runActionsOf(roots, { db: this.source.db, role, sel, request: action });
    // Queries may go to a read replica (issue 31.7); mutations, actions' statements and a lagging replica's retry stay on the primary.
    const db = entry.op.operation === 'query' && !onPrimary ? this.source.queryDb ?? this.source.db : this.source.db;
    const body = await executeQuery({ db, version, schema, doc: entry.doc, sel, plans, args, runActions, limit });
    // Cookies only with a successful answer: a failed operation's body carries nothing of the handlers' answers.
    http.setCookies.push(...action.setCookies);
    return this.response(entry, plans, counted, body);
  }

  /** The request's side: the allow list, the role's schema, the prepared document (cached), the variables. */
  private async request(cache: SchemaCache, req: GraphqlRequest, caller: Caller, http: GraphqlHttpContext) {
    if (this.allowlist && caller.role !== 'admin' && !http.stored) checkAllowlist(cache.metadata, req.query);
    const backendOnly = caller.backendOnly === true;
    const schema = this.schemas.get(cache, caller.role, backendOnly, await enumTypes(cache, this.source.db));
    // Plans are cached per schema: a backend caller's role key differs from the role's.
    const planRole = backendOnly ? `${caller.role}\u0001` : caller.role;
    let entry = this.plans.get(cache, planRole, req.query, req.operationName);
    if (!entry) {
      entry = prepare(schema, req.query, req.operationName, this.limits);
      this.stats.prepared++;
      if (this.plans.accepts(req.query)) {
        entry.bytes = astBytes(entry.doc);
        this.plans.set(cache, planRole, req.query, req.operationName, entry);
      }
    }
    const { doc, op } = entry;
    const bad = checkVariables(schema, op, req.variables);
    if (bad) throw bad;
    const coerced = getVariableValues(schema, op.variableDefinitions ?? [], req.variables);
    const { key: varsKey, bound } = variablesShape(schema, op, req.variables);
    const sel = new SelectionContext(doc, op, req.variables, 'coerced' in coerced ? (coerced.coerced ?? {}) : {}, bound, this.stringifyNumeric);
    return { schema, entry, sel, varsKey };
  }

  /** The operation's plan for this shape of variables: cached with the document, compiled on a miss. */
  private plan(entry: CachedOperation, varsKey: string, schema: GraphQLSchema, role: RoleView, sel: SelectionContext): { plans: RootPlan[]; counted: number | null } {
    const cached = entry.plans.get(varsKey);
    if (cached) {
      this.planHits++;
      return { plans: cached, counted: null };
    }
    const plans = planOperation(schema, role, sel);
    this.stats.compiled++;
    this.plans.remember(entry, varsKey, plans);
    // Plans compiled now are counted again once run: introspection answers are kept with them.
    return { plans, counted: planBytes(plans) };
  }

  /** The response body; a constant answer is kept, as bytes, with its plans. */
  private response(entry: CachedOperation, plans: RootPlan[], counted: number | null, body: string): string | Buffer {
    if (counted !== null) this.plans.grow(entry, planBytes(plans) - counted, plans);
    if (constantAnswer(entry.op, plans)) {
      const bytes = Buffer.from(body);
      this.bodies.set(plans, bytes);
      this.plans.grow(entry, bytes.length, plans);
      return bytes;
    }
    return body;
  }
}

/** The answer depends only on the schema and the document: a query of introspection and constants, without variables. */
function constantAnswer(op: OperationDefinitionNode, plans: RootPlan[]): boolean {
  return op.operation === 'query' && (op.variableDefinitions ?? []).length === 0 && plans.every((p) => p.kind === 'json' || p.kind === 'introspection');
}
