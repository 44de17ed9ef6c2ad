import {
  getNullableType, getVariableValues, GraphQLError, GraphQLScalarType, Kind, parse, typeFromAST,
  type DocumentNode, type GraphQLSchema, type OperationDefinitionNode,
} from 'graphql';
import { ApiError } from '../../errors.js';
import type { Database } from '../../db/database.js';
import type { Caller } from '../auth/index.js';
import type { SchemaCache } from '../schema-cache.js';
import type { Env } from '../outbound/index.js';
import { checkActionCombination } from './action-output.js';
import { checkAllowlist } from './allowlist.js';
import { requestHeadersJson } from './async-action.js';
import { fragmentMap } from './paths.js';
import { errorsBody, gqlError, validationFailed } from './errors.js';
import { bindAll, confirmVersion, executeQuery, StaleSchema, type VersionGuard } from './execute.js';
import { VERSION_SQL } from '../catalog.js';
import { DEFAULT_QUERY_TIMEOUT_MS } from '../serve-types.js';
import { selectionDepth } from './paths.js';
import { checkDocumentLimits, DEFAULT_DOCUMENT_LIMITS, withoutRepeatedFields, type DocumentLimits } from './doc-limits.js';
import { planOperation, type RootPlan } from './plan.js';
import { astBytes, PlanCache, planBytes, type CachedOperation, type PlanCacheLimits } from './plan-cache.js';
import { parseRequest } from './request.js';
import { SchemaStore } from './schema.js';
import { enumTypes } from './enum-values.js';
import { SelectionContext } from './selection.js';
import { checkVariables, validateDocument } from './validate.js';
import { RoleView } from './visibility.js';

/** Limits on hostile documents (decisions: a clear error instead of unbounded work). */
export const MAX_QUERY_TOKENS = 100_000;
export const MAX_QUERY_DEPTH = 32;


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

/** `POST /v1/graphql` (graphql-api.md §1.3): returns the response body; throws only on internal failures. */
export class GraphqlService {
  private readonly schemas = new SchemaStore();
  readonly plans: PlanCache;
  /** How often documents were prepared (parsed, validated) and operations compiled: the plan cache's effect. */
  readonly stats = { prepared: 0, compiled: 0 };
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

  private async runOn(cache: SchemaCache, version: VersionGuard, req: ReturnType<typeof parseRequest>, caller: Caller, http: GraphqlHttpContext, onPrimary = false): Promise<string | Buffer> {
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
    const sel = new SelectionContext(doc, op, req.variables, 'coerced' in coerced ? (coerced.coerced ?? {}) : {}, bound);
    const role = new RoleView(cache, caller.role, backendOnly);
    let plans = entry.plans.get(varsKey);
    // Plans compiled now are counted again once run: introspection answers are kept with them.
    let counted: number | null = null;
    if (!plans) {
      plans = planOperation(schema, role, sel);
      this.stats.compiled++;
      this.plans.remember(entry, varsKey, plans);
      counted = planBytes(plans);
    }
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
    const db = op.operation === 'query' && !onPrimary ? this.source.queryDb ?? this.source.db : this.source.db;
    const body = await executeQuery({ db, version, schema, doc, sel, plans, args, action, role, limit });
    // Cookies only with a successful answer: a failed operation's body carries nothing of the handlers' answers.
    http.setCookies.push(...action.setCookies);
    if (counted !== null) this.plans.grow(entry, planBytes(plans) - counted, plans);
    if (constantAnswer(op, plans)) {
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

/**
 * Which variables are bound as parameters (non-null, non-boolean values of scalar types) and the key of the compiled
 * plans: the other variables' values (objects, lists, enums, booleans, nulls) can change the SQL text (§7.4).
 */
function variablesShape(schema: GraphQLSchema, op: OperationDefinitionNode, vars: Record<string, unknown>): { key: string; bound: Set<string> } {
  const bound = new Set<string>();
  const shape: Record<string, unknown> = {};
  for (const def of op.variableDefinitions ?? []) {
    const name = def.variable.name.value;
    const v = vars[name];
    const type = typeFromAST(schema, def.type as never);
    if (v !== undefined && v !== null && typeof v !== 'boolean' && type && getNullableType(type) instanceof GraphQLScalarType) {
      bound.add(name);
      shape[name] = { bound: true };
    } else shape[name] = v === undefined ? { absent: true } : { value: v };
  }
  return { key: JSON.stringify(shape), bound };
}

/** Steps 3–6 of §1.3: parse, select the operation, check its kind and depth, validate. */
function prepare(schema: GraphQLSchema, query: string, operationName: string | null, limits: DocumentLimits): CachedOperation {
  let doc: DocumentNode;
  try {
    // Without locations: they keep every token of the document alive (tens of bytes each) for as long as it is cached.
    doc = parse(query, { maxTokens: MAX_QUERY_TOKENS, noLocation: true });
  } catch (e) {
    if (!(e instanceof GraphQLError)) throw e;
    const loc = e.locations?.[0];
    const description = e.message.replace(/^Syntax Error: /, '').replace(/\.$/, '');
    throw gqlError('parse-failed', '$.query', `not a valid graphql query: ${description}${loc ? ` (line ${loc.line}, column ${loc.column})` : ''}`);
  }
  const ops = doc.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  let op: OperationDefinitionNode | undefined;
  if (operationName !== null) {
    op = ops.find((o) => o.name?.value === operationName);
    if (!op) {
      if (ops.length === 0) throw validationFailed('$.query', 'the document contains no operation');
      throw validationFailed('$.operationName', `no operation named "${operationName}" in the document`);
    }
  } else {
    if (ops.length === 0) throw validationFailed('$.query', 'the document contains no operation');
    if (ops.length > 1) throw validationFailed('$', 'operationName is required when the document contains several operations');
    op = ops[0] as OperationDefinitionNode;
  }
  if (op.operation === 'subscription') throw gqlError('not-supported', '$', 'subscriptions are not supported');
  if (op.operation === 'mutation' && !schema.getMutationType()) throw validationFailed('$', 'no mutations exist');
  if (selectionDepth(doc, op) > MAX_QUERY_DEPTH) throw validationFailed('$', `the query is nested more than ${MAX_QUERY_DEPTH} levels deep`);
  const over = checkDocumentLimits(doc, op, limits);
  if (over) throw over;
  // Within the depth limit, printing the repeated fields costs at most that many times the document.
  const index = doc.definitions.indexOf(op);
  doc = withoutRepeatedFields(doc);
  op = doc.definitions[index] as OperationDefinitionNode;
  const invalid = validateDocument(schema, doc, op) ?? checkActionCombination(schema, op, fragmentMap(doc));
  if (invalid) throw invalid;
  return { doc, op, plans: new Map(), bytes: 0 };
}
