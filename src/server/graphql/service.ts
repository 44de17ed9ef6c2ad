import type { GraphQLSchema, OperationDefinitionNode } from 'graphql';
import { ApiError } from '../../errors.js';
import { probes } from '../../probes.js';
import type { Database } from '../../db/database.js';
import { Canceller, InFlight, type CancelSignal } from '../../db/cancel.js';
import type { Caller } from '../auth/index.js';
import type { SchemaCache } from '../schema-cache.js';
import type { Env } from '../outbound/index.js';
import { VERSION_SQL } from '../catalog.js';
import { DEFAULT_QUERY_TIMEOUT_MS } from '../serve-types.js';
import { errorsBody, gqlError } from './errors.js';
import { enumTypes, liveSchemaOf, RoleView, SchemaStore } from './schema/index.js';
import { bindAll, SelectionContext } from './compile/index.js';
import { forwardedHeaders, joinRemoteTables, requestHeadersJson, runActions as runActionsOf, type ActionRoot } from './actions/index.js';
import { runJoins as runJoinsOf, runRemotes as runRemotesOf, type ForwardRequest, type JoinedStatement, type RemoteRootPlan } from '../remote-schemas/index.js';
import { planOperation, type RootPlan } from './plan/index.js';
import {
  astBytes, batchElements, checkAllowlist, checkOperationLimits, checkRequestLimits, timeLimitMs, DEFAULT_DOCUMENT_LIMITS, parseQuery, parseRequest, PlanCache, planBytes, prepare,
  operationInfo, prepareDocument, selectionOf,
  type CachedOperation, type DocumentLimits, type GraphqlRequest, type OperationInfo, type PlanCacheLimits,
} from './request/index.js';
import { confirmVersion, executeQuery, StaleSchema, type VersionGuard } from './execute/index.js';
import type { LivePlan } from './subscriptions/index.js';

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

/** The Relay API's schema and planner, loaded with its first request (issue 28: not at every engine's start). */
type RelayKit = typeof import('./relay/index.js');

/** The HTTP request around the body: its raw headers (forwarded to action handlers) and the cookies to answer with. */
export interface GraphqlHttpContext {
  rawHeaders: string[];
  /** Filled with the `Set-Cookie` values of synchronous action handlers' answers (§1.4). */
  setCookies: string[];
  /** A stored query (a REST endpoint's): the allow list does not apply to it. */
  stored?: boolean;
  /** Aborts when the client went away: the request's statement is cancelled. */
  signal?: CancelSignal;
  /**
   * `signal` is a Canceller made for this request alone (aborted with CANCEL_DISCONNECTED when the client goes): the
   * service aborts it for the time limit and a stop too instead of making its own.
   */
  ownSignal?: boolean;
  /** The client's address (API limits' rate limit by IP): read only when a rule needs it. */
  ip?: () => string | undefined;
  /** This request's time limit in ms (the role's API time limit or the engine's): set by handleOne. */
  timeoutMs?: number;
  /** Told the request's (a batch's first) operation, so that the HTTP log and metrics need not parse the body again. */
  seen?: { graphqlOperation: OperationInfo | undefined };
  /** A subscription's query (subscriptions/): run on the role's live schema, whose root is its subscription root. */
  live?: boolean;
}

export type { OperationInfo };

/** Why a request's statement was cancelled (its signal's reason). */
export const CANCEL_TIMEOUT = 'timeout';
export const CANCEL_SHUTDOWN = 'shutdown';
export const CANCEL_DISCONNECTED = 'client-disconnected';

/**
 * A request's values for `request` parameters, the headers serialised only when a statement binds them (an
 * asynchronous action's). A class, not an object literal with a getter: such a literal gave every request a hidden class
 * of its own, whose getter held the request's whole scope; V8's young-generation collections keep what such a class
 * reaches until a full collection, so about a tenth of every request's memory was promoted (issue 28: the collector's
 * work per request ×4–10, bench/gc-promotion.mjs).
 */
class RequestValuesOf {
  constructor(private readonly rawHeaders: string[], readonly query: string, readonly version: number) {}
  get headers(): string {
    return requestHeadersJson(this.rawHeaders);
  }
}

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

  /** ENGINE_GRAPHQL_INFER_FUNCTION_PERMISSIONS (issue 29.6): false grants function root fields by function permission only. */
  setInferFunctionPermissions(infer: boolean): void {
    this.schemas.functions = { inferFunctionPermissions: infer };
    if (this.relaySchemas) this.relaySchemas.functions = { inferFunctionPermissions: infer };
    void this.relayService?.then((s) => s.setInferFunctionPermissions(infer));
  }
  /**
   * Whole response bodies of operations that read neither the database nor a handler nor a variable (introspection,
   * `__typename`), as bytes: the standard introspection query's answer is megabytes at a thousand tables, built once
   * per schema and sent as is. Keyed by the cached plans, so they go with the plan cache (any new schema cache).
   */
  private readonly bodies = new WeakMap<RootPlan[], Buffer>();

  /** `env`: where action handler URL templates and `value_from_env` headers are looked up, at each call. */
  /** `allowlist`: non-admin requests must send an allow-listed document (issue 20). */
  /** `limits`: the node and alias limits of issue 28 (`--node-limit`, `--alias-limit`). */
  /** `relayKit`: given, the service answers `/v1beta1/relay` (issue 30.6) with the Relay schema and plans. */
  constructor(
    private readonly source: SchemaSource, private readonly env: Env = process.env, private readonly allowlist = false,
    private readonly limits: DocumentLimits = DEFAULT_DOCUMENT_LIMITS, cacheLimits?: PlanCacheLimits,
    private readonly timeoutMs = DEFAULT_QUERY_TIMEOUT_MS, private readonly relayKit: RelayKit | null = null,
  ) {
    this.plans = new PlanCache(cacheLimits);
    this.relaySchemas = relayKit ? new relayKit.RelaySchemaStore() : null;
  }

  private readonly relaySchemas: InstanceType<RelayKit['RelaySchemaStore']> | null;
  private relayService: Promise<GraphqlService> | null = null;

  /** The `/v1beta1/relay` service: the same settings, the Relay schema; made at its first request. */
  relay(): Promise<GraphqlService> {
    return (this.relayService ??= import('./relay/index.js').then((kit) => {
      const s = new GraphqlService(this.source, this.env, this.allowlist, this.limits, this.plans.limits, this.timeoutMs, kit);
      s.setInferFunctionPermissions(this.schemas.functions.inferFunctionPermissions);
      return s;
    }));
  }

  /** `POST /v1/graphql/explain` (explain.ts): the caller is the admin; the body names the role explained. */
  async explain(body: unknown): Promise<string> {
    const { cache } = await this.source.freshCache();
    const enums = await enumTypes(cache, this.source.db);
    // Loaded when first asked (with the subscriptions' planner it uses), not at every engine's start (issue 28).
    const { explainQuery } = await import('./explain.js');
    return explainQuery({ db: this.source.queryDb ?? this.source.db, cache, limits: this.limits, schemaFor: async (role) => Promise.resolve(this.schemas.get(cache, role, false, enums)) }, body);
  }

  private roleSchema(cache: SchemaCache, role: string, backendOnly: boolean, enums: Awaited<ReturnType<typeof enumTypes>>): GraphQLSchema {
    return this.relaySchemas ? this.relaySchemas.get(cache, role, enums) : this.schemas.get(cache, role, backendOnly, enums);
  }

  /** The cancellers of the requests in flight (a stop cancels them once its grace period is over). */
  private readonly inflight = new InFlight(CANCEL_TIMEOUT);

  async handle(input: GraphqlInput, caller: Caller, http: GraphqlHttpContext = { rawHeaders: [], setCookies: [] }): Promise<string | Buffer> {
    const batch = 'text' in input ? batchElements(input.text) : null;
    const limits = this.source.heldCache().cache.metadata.api_limits;
    if (limits) {
      const over = await checkRequestLimits(this.source.db, limits, { ...caller, ...(http.ip ? { ip: http.ip } : {}) }, batch?.length ?? 1, batch !== null);
      if (over) return errorsBody(over, false);
    }
    const client = http.signal;
    // A single request may cancel the route's own canceller (made for it alone) for its time limit too: one
    // canceller and no listener between two per request. A batch's elements each need their own.
    if (batch === null) return this.handleOne(input, caller, http, client, http.ownSignal === true);
    // A batch (as the incumbent): each element its own request and transaction, in order; a failure stays in its slot.
    const bodies: string[] = [];
    for (const text of batch) bodies.push(String(await this.handleOne({ text }, caller, http, client, false)));
    return `[${bodies.join(',')}]`;
  }

  /** `http` is this request's own (made by its caller for it): its signal and time limit are set here, not copied. */
  private async handleOne(input: GraphqlInput, caller: Caller, http: GraphqlHttpContext, client: CancelSignal | undefined, own: boolean): Promise<string | Buffer> {
    const cancel = own && client instanceof Canceller ? client : new Canceller();
    const limits = this.source.heldCache().cache.metadata.api_limits;
    const timeoutMs = limits ? timeLimitMs(limits, caller.role, this.timeoutMs) : this.timeoutMs;
    const gone = cancel === client || !client ? null : (): void => cancel.abort(CANCEL_DISCONNECTED);
    if (gone) client?.addEventListener('abort', gone, { once: true });
    this.inflight.add(cancel, timeoutMs);
    http.signal = cancel;
    http.timeoutMs = timeoutMs;
    try {
      return await this.run(input, caller, http);
    } catch (e) {
      // Errors shared with the metadata API (missing session variable) carry its status: here every one is a GraphQL error.
      if (e instanceof ApiError && (e.status < 500 || e.code === 'database-busy')) return errorsBody(e, caller.role === 'admin');
      throw e;
    } finally {
      if (gone) client?.removeEventListener('abort', gone);
      this.inflight.delete(cancel);
    }
  }

  /** Cancels the statements of every request in flight (after a stop's grace period); they answer a `timeout` error. */
  cancelAll(): void {
    this.inflight.abortAll(CANCEL_SHUTDOWN);
  }

  /** The role's schema at the current resource_version (introspection tooling and tests use it too). */
  async schemaFor(role: string): Promise<GraphQLSchema> {
    const { cache } = await this.source.freshCache();
    return this.roleSchema(cache, role, false, await enumTypes(cache, this.source.db));
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
    const tracer = probes.tracer;
    const { plans, counted } = tracer ? this.tracedPlan(entry, varsKey, schema, role, sel) : this.plan(entry, varsKey, schema, role, sel);
    const known = this.bodies.get(plans);
    if (known) {
      await confirmVersion(this.source.db, version);
      return known;
    }
    // The headers are serialised only for an asynchronous action's statement, which binds them.
    const request = new RequestValuesOf(http.rawHeaders, req.query, version.planned);
    const args = bindAll(plans, caller.sessionVariables, req.variables, request);
    const limit = { signal: http.signal, seconds: (http.timeoutMs ?? this.timeoutMs) / 1000 };
    // Made only when a handler is called (most requests call none): its answers' cookies go to the response.
    let setCookies: string[] | undefined;
    // Queries may go to a read replica (issue 31.7); mutations, actions' statements and a lagging replica's retry stay on the primary.
    const db = entry.op.operation === 'query' && !onPrimary ? this.source.queryDb ?? this.source.db : this.source.db;
    // Made only when a remote is called: most requests call none, and the client's headers cost a pass to collect.
    let forwarding: ForwardRequest | undefined;
    const forward = (): ForwardRequest => (forwarding ??= {
      env: this.env, op: entry.op, fragments: sel.fragments, variables: req.variables ?? {}, clientHeaders: forwardedHeaders(http.rawHeaders),
      sessionVariables: caller.sessionVariables, ...(http.signal ? { signal: http.signal } : {}),
      joinTables: (joins) => joinRemoteTables({ db, role, sel, session: caller.sessionVariables, joins: runJoins }, joins),
    });
    const runRemotes = (roots: RemoteRootPlan[]): Promise<Map<string, string>> => runRemotesOf(roots, cache.metadata.remote_schemas, forward());
    const runJoins = (joined: JoinedStatement[], values: Map<string, string>): Promise<void> => runJoinsOf(joined, values, cache.metadata.remote_schemas, forward());
    const runActions = (roots: ActionRoot[]): Promise<Map<string, string>> => runActionsOf(roots, {
      db: this.source.db, role, sel, joins: runJoins,
      request: { env: this.env, query: req.query, rawHeaders: http.rawHeaders, sessionVariables: caller.sessionVariables, setCookies: (setCookies = []) },
    });
    const x = { db, version, schema, doc: entry.doc, sel, plans, args, runActions, runRemotes, runJoins, limit };
    const body = tracer ? await tracer.span('graphql.execute', 'internal', {}, () => executeQuery(x), 'child') : await executeQuery(x);
    // Cookies only with a successful answer: a failed operation's body carries nothing of the handlers' answers.
    if (setCookies) http.setCookies.push(...setCookies);
    return this.response(entry, plans, counted, body);
  }

  /**
   * A live query's statements for multiplexing (subscriptions/, issue 32.2): its plans on the held schema (cached as
   * any request's) and its bound parameters, with the database it reads and the version planned at. Null when it is
   * not only SQL statements of a query, or fails before running: the caller then runs it through `handle`.
   */
  async livePlan(text: string, caller: Caller): Promise<LivePlan | null> {
    try {
      const req = parseRequest(text);
      const held = this.source.heldCache();
      const { schema, entry, sel, varsKey } = await this.request(held.cache, req, caller, { rawHeaders: [], setCookies: [], live: true });
      if (entry.op.operation !== 'query') return null;
      const { plans } = this.plan(entry, varsKey, schema, new RoleView(held.cache, caller.role, caller.backendOnly === true), sel);
      // Remote relationships' joins (issue 35.3) run through `handle`: a multiplexed batch answers SQL only.
      if (plans.length === 0 || !plans.every((p) => p.kind === 'sql' && !p.joins)) return null;
      const args = bindAll(plans, caller.sessionVariables, req.variables, { headers: '[]', query: req.query, version: held.version });
      return { db: this.source.queryDb ?? this.source.db, version: held.version, plans: plans as LivePlan['plans'], args };
    } catch {
      return null;
    }
  }

  /** The request's side: the allow list, the role's schema, the prepared document (cached), the variables. */
  private async request(cache: SchemaCache, req: GraphqlRequest, caller: Caller, http: GraphqlHttpContext) {
    if (this.allowlist && caller.role !== 'admin' && !http.stored) checkAllowlist(cache.metadata, req.query);
    const backendOnly = caller.backendOnly === true;
    const shown = this.roleSchema(cache, caller.role, backendOnly, await enumTypes(cache, this.source.db));
    const live = http.live === true ? liveSchemaOf(shown) : null;
    const schema = live ?? shown;
    // Plans are cached per schema: a backend caller's and a live query's role keys differ from the role's.
    const planRole = backendOnly || live ? `${caller.role}${backendOnly ? '\u0001' : ''}${live ? '\u0002' : ''}` : caller.role;
    let entry = this.plans.get(cache, planRole, req.query, req.operationName);
    const tracer = probes.tracer;
    if (!entry) {
      if (tracer) {
        const parsed = tracer.sync('graphql.parse', {}, () => parseQuery(req.query));
        entry = tracer.sync('graphql.validate', {}, () => prepareDocument(schema, parsed, req.operationName, this.limits));
      } else entry = prepare(schema, req.query, req.operationName, this.limits);
      this.stats.prepared++;
      if (this.plans.accepts(req.query)) {
        entry.bytes = astBytes(entry.doc);
        this.plans.set(cache, planRole, req.query, req.operationName, entry);
      }
    }
    const { op } = entry;
    if (http.seen && http.seen.graphqlOperation === undefined) http.seen.graphqlOperation = operationInfo(entry, req.query);
    tracer?.annotate({ 'graphql.operation.type': op.operation, 'graphql.operation.name': op.name?.value });
    const over = checkOperationLimits(cache.metadata.api_limits, caller.role, entry);
    if (over) throw over;
    const { sel, varsKey } = selectionOf(schema, entry, req.variables, this.stringifyNumeric);
    return { schema, entry, sel, varsKey };
  }

  /** The operation's plan for this shape of variables: cached with the document, compiled on a miss. */
  private plan(entry: CachedOperation, varsKey: string, schema: GraphQLSchema, role: RoleView, sel: SelectionContext): { plans: RootPlan[]; counted: number | null } {
    const cached = entry.plans.get(varsKey);
    if (cached) {
      this.planHits++;
      return { plans: cached, counted: null };
    }
    const { plans, cacheable } = this.relayKit ? this.relayKit.planRelayOperation(schema, role, sel) : { plans: planOperation(schema, role, sel), cacheable: true };
    this.stats.compiled++;
    if (!cacheable) return { plans, counted: null };
    this.plans.remember(entry, varsKey, plans);
    // Plans compiled now are counted again once run: introspection answers are kept with them.
    return { plans, counted: planBytes(plans) };
  }

  /** plan() as a span of the request's trace, which says whether the plan cache had it. */
  private tracedPlan(...args: Parameters<GraphqlService['plan']>): ReturnType<GraphqlService['plan']> {
    return (probes.tracer as NonNullable<typeof probes.tracer>).sync('graphql.plan', {}, (span) => {
      const hits = this.planHits;
      const planned = this.plan(...args);
      span.set({ 'engine.plan_cache.hit': this.planHits > hits });
      return planned;
    });
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
