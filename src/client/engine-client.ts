import { performance } from 'node:perf_hooks';
import { Agent, request } from './http.js';
import { identify, NOT_THIS_ENGINE_HINT, tlsConnect, type TlsOptions } from './identity.js';
import { CliError } from '../errors.js';
import { byteSize, ENGINE_MAX_BODY_BYTES, megabytes } from '../limits.js';
import type { Logger } from '../logger.js';
import { isObject } from '../metadata/json.js';
import {
  asEngineError, EngineRequestError, invalidResponseError, metadataConflictError, networkError, secretMasker, serverError, statusLine,
  timeoutError, unauthorizedError, type EngineErrorBody, type Masker,
} from './errors.js';

export { EngineRequestError, type EngineErrorBody } from './errors.js';
export type {
  BulkOperation, InconsistencyReport, InconsistentObject, QueryResult, ReloadResult, ReplaceMetadataBody, RunSqlResult, SuccessResult,
} from './results.js';
import {
  isReport, isRunSqlResult, isSuccess, type BulkOperation, type InconsistencyReport, type QueryResult, type ReloadResult,
  type ReplaceMetadataBody, type RunSqlResult, type SuccessResult,
} from './results.js';

export interface EngineClientOptions {
  /** The engine's base URL (a trailing `/` is ignored). */
  endpoint: string;
  /** Sent as `X-Engine-Admin-Secret` when set and non-empty. */
  adminSecret?: string;
  /** Per attempt, from connecting to the end of the response body (cli.md §3.6). */
  timeoutSeconds: number;
  logger: Logger;
  /** The CLI version, sent as `User-Agent: engine-cli/<version>`. */
  version: string;
  /** Delays before the retries of a read; default 500, 1000, 2000 ms (at most that many retries). */
  retryDelaysMs?: readonly number[];
  tls?: TlsOptions;
}

const DEFAULT_RETRY_DELAYS_MS = [500, 1000, 2000];
const RETRY_STATUSES = new Set([502, 503, 504]);

interface Call {
  method: 'GET' | 'POST';
  path: string;
  /** The operation named in messages and logs. */
  operation: string;
  body?: unknown;
  /** Reads are retried (cli.md §3.6). */
  read: boolean;
  /** For a bulk: its sub-operations, to name the failing one. */
  ops?: readonly BulkOperation[];
  /** For replace_metadata: the resource version sent, named by `metadata-conflict`. */
  sentResourceVersion?: number | null;
  /** The shape a 2xx body must have; any JSON when absent. */
  shape?: (body: unknown) => boolean;
  /** A 2xx body is text, not JSON (pg_dump). */
  text?: boolean;
}

type Outcome =
  | { kind: 'response'; status: number; text: string; resourceVersion: number | null }
  | { kind: 'failure'; error: Error; retryable: boolean; reason: string };

/** A transport failure: a timeout, or a connection failure with its §6 reason and whether a read may retry it. */
type TransportFailure = { kind: 'timeout' } | { kind: 'connection'; reason: string; retryable: boolean };

const CONNECTION_REASONS: Record<string, [string, boolean]> = {
  // Nothing listens there: waiting will not make it listen (issue 19), so a refused connection fails at once.
  ECONNREFUSED: ['connection refused', false],
  ENOTFOUND: ['host not found', false],
  EAI_AGAIN: ['host not found', true],
  ECONNRESET: ['connection reset', true],
  EPIPE: ['connection reset', true],
  ECONNABORTED: ['connection reset', true],
  UND_ERR_SOCKET: ['connection reset', true],
  EHOSTUNREACH: ['host unreachable', true],
  ENETUNREACH: ['host unreachable', true],
  EHOSTDOWN: ['host unreachable', true],
  ENETDOWN: ['host unreachable', true],
};
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const TLS_CODE = /^(ERR_SSL_|ERR_TLS_)|CERT|^UNABLE_TO_|HOSTNAME_MISMATCH/;

function errorCode(e: unknown): string | undefined {
  if (typeof e !== 'object' || e === null) return undefined;
  const err = e as { code?: unknown; errors?: unknown; cause?: unknown };
  if (typeof err.code === 'string') return err.code;
  if (Array.isArray(err.errors) && err.errors.length > 0) return errorCode(err.errors[0]);
  return err.cause !== undefined ? errorCode(err.cause) : undefined;
}

function classifyTransport(e: unknown): TransportFailure | null {
  const code = errorCode(e);
  if (code === undefined) return null;
  if (TIMEOUT_CODES.has(code)) return { kind: 'timeout' };
  const known = CONNECTION_REASONS[code];
  if (known) return { kind: 'connection', reason: known[0], retryable: known[1] };
  const message = e instanceof Error ? e.message : String(e);
  if (TLS_CODE.test(code)) {
    const reason = (e as { reason?: unknown }).reason;
    return { kind: 'connection', reason: `TLS error: ${typeof reason === 'string' && reason ? reason : message}`, retryable: false };
  }
  // Another system error while connecting or talking (errno-style code): a connection failure, not retried.
  if (/^E[A-Z0-9]+$/.test(code)) return { kind: 'connection', reason: message, retryable: false };
  return null;
}

function parseResourceVersion(value: string | string[] | undefined): number | null {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined || !/^\s*\d+\s*$/.test(v)) return null;
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : null;
}

/** The `type` of the sub-operation a bulk error path (`$.args[<i>]…`, nested bulks too) points at. */
export function bulkOperationFor(ops: readonly BulkOperation[], path: string): string | null {
  const m = /^\$\.args\[(\d+)\](.*)$/.exec(path);
  if (!m) return null;
  const op = ops[Number(m[1])];
  if (!op || typeof op.type !== 'string') return null;
  if (op.type === 'bulk' && Array.isArray(op.args)) {
    const inner = bulkOperationFor(op.args as BulkOperation[], `$${m[2] ?? ''}`);
    if (inner !== null) return inner;
  }
  return op.type;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The CLI's client of the engine's HTTP API (cli.md §1.5, §3.6): one attempt per write, up to 1 + retries per read,
 * every failure classified as a CliError (§6) carrying the engine's error body when there is one.
 */
export class EngineClient {
  readonly endpoint: string;
  private readonly adminSecret: string | undefined;
  private readonly timeoutSeconds: number;
  private readonly logger: Logger;
  private readonly userAgent: string;
  private readonly retryDelaysMs: readonly number[];
  private readonly mask: Masker;
  private readonly agent: Agent;

  constructor(opts: EngineClientOptions) {
    this.endpoint = opts.endpoint.replace(/\/+$/, '');
    this.adminSecret = opts.adminSecret ? opts.adminSecret : undefined;
    this.timeoutSeconds = opts.timeoutSeconds;
    this.logger = opts.logger;
    this.userAgent = `engine-cli/${opts.version}`;
    this.retryDelaysMs = opts.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    this.mask = secretMasker(this.adminSecret);
    const ms = this.timeoutSeconds * 1000;
    this.agent = new Agent({ connect: { timeout: ms, ...tlsConnect(opts.tls) }, headersTimeout: ms, bodyTimeout: ms });
  }

  /** Releases the connections kept alive between requests. */
  async close(): Promise<void> {
    await this.agent.close();
  }

  async exportMetadata(): Promise<{ metadata: unknown; resourceVersion: number | null }> {
    const r = await this.send(this.queryCall('export_metadata', {}, true, isObject));
    return { metadata: r.body, resourceVersion: r.resourceVersion };
  }

  /** `resource_version` is omitted when null (no header on the export, cli.md §1.5). */
  /** With `dryRun` the engine rebuilds everything and rolls back (engine-api.md §4.8.2): a check, never a change. */
  async replaceMetadata(metadata: unknown, resourceVersion: number | null,
    allowInconsistent: boolean, dryRun = false): Promise<{ body: ReplaceMetadataBody; resourceVersion: number | null }> {
    const args: Record<string, unknown> = { metadata };
    if (resourceVersion !== null) args['resource_version'] = resourceVersion;
    args['allow_inconsistent_metadata'] = allowInconsistent;
    if (dryRun) args['dry_run'] = true;
    const call = this.queryCall('replace_metadata', args, false, allowInconsistent ? isReport : isSuccess);
    call.sentResourceVersion = resourceVersion;
    const r = await this.send(call);
    return { body: r.body as ReplaceMetadataBody, resourceVersion: r.resourceVersion };
  }

  async clearMetadata(): Promise<SuccessResult> {
    return (await this.send(this.queryCall('clear_metadata', {}, false, isSuccess))).body as SuccessResult;
  }

  async reloadMetadata(): Promise<ReloadResult> {
    const shape = (b: unknown) => isObject(b) && typeof b['message'] === 'string' && typeof b['is_consistent'] === 'boolean';
    return (await this.send(this.queryCall('reload_metadata', {}, false, shape))).body as ReloadResult;
  }

  async getInconsistentMetadata(): Promise<InconsistencyReport> {
    return (await this.send(this.queryCall('get_inconsistent_metadata', {}, true, isReport))).body as InconsistencyReport;
  }

  async dropInconsistentMetadata(): Promise<SuccessResult> {
    return (await this.send(this.queryCall('drop_inconsistent_metadata', {}, false, isSuccess))).body as SuccessResult;
  }

  /** A write (never retried); a failure names the failing sub-operation's type. */
  async bulk(ops: readonly BulkOperation[]): Promise<unknown[]> {
    const shape = (b: unknown) => Array.isArray(b) && b.length === ops.length;
    const call = this.queryCall('bulk', ops, false, shape);
    call.ops = ops;
    return (await this.send(call)).body as unknown[];
  }

  /** With `readOnly` the statement runs in a READ ONLY transaction and is retried like a read. */
  async runSql(sql: string, opts: { readOnly?: boolean } = {}): Promise<RunSqlResult> {
    const args: Record<string, unknown> = { sql };
    if (opts.readOnly) args['read_only'] = true;
    return (await this.send(this.queryCall('run_sql', args, opts.readOnly === true, isRunSqlResult))).body as RunSqlResult;
  }

  /** `GET /v1/version` (a read). */
  async version(): Promise<string> {
    const shape = (b: unknown) => isObject(b) && typeof b['version'] === 'string';
    const r = await this.send({ method: 'GET', path: '/v1/version', operation: 'version', read: true, shape });
    return (r.body as { version: string }).version;
  }

  /** The introspection query on `POST /v1/graphql` (a read); answers the GraphQL response object. */
  async introspect(query: string): Promise<Record<string, unknown>> {
    const r = await this.send({ method: 'POST', path: '/v1/graphql', operation: 'introspection', body: { query },
      read: true, shape: isObject });
    const body = r.body as Record<string, unknown>;
    const first = (Array.isArray(body['errors']) ? body['errors'][0] : undefined) as { extensions?: { code?: unknown } } | undefined;
    if (body['data'] === undefined && first?.extensions?.code === 'access-denied') throw unauthorizedError(this.endpoint, this.adminSecret !== undefined, 'introspection', body, this.mask, r.status);
    return body;
  }

  /** `POST /v1alpha1/pg_dump` (a read): the database's schema as SQL, made by pg_dump on the engine's side. */
  async pgDump(opts: string[]): Promise<string> {
    const r = await this.send({ method: 'POST', path: '/v1alpha1/pg_dump', operation: 'pg_dump', body: { opts, clean_output: true }, read: true, text: true });
    return r.body as string;
  }

  /**
   * Any operation on `POST /v1/query`; `read` decides whether it is retried. A 2xx body may be any JSON. With
   * `resourceVersion`, the engine runs it only at that version (409 `conflict` at `$.resource_version` otherwise).
   */
  async query(type: string, args: unknown, opts: { read: boolean; resourceVersion?: number }): Promise<QueryResult> {
    const call = this.queryCall(type, args, opts.read);
    if (opts.resourceVersion !== undefined) call.body = { type, args, resource_version: opts.resourceVersion };
    if (type === 'bulk' && Array.isArray(args)) call.ops = args as BulkOperation[];
    if (type === 'replace_metadata' && isObject(args)) {
      const v = args['resource_version'];
      call.sentResourceVersion = typeof v === 'number' ? v : null;
    }
    return this.send(call);
  }

  private queryCall(type: string, args: unknown, read: boolean, shape?: (b: unknown) => boolean): Call {
    return { method: 'POST', path: '/v1/query', operation: type, body: { type, args }, read, shape };
  }

  /** The same headers on every request, GET included (cli.md §1.5). */
  private headers(): Record<string, string> {
    const h: Record<string, string> = { 'Content-Type': 'application/json', 'X-Engine-Role': 'admin' };
    h['User-Agent'] = this.userAgent;
    if (this.adminSecret !== undefined) h['X-Engine-Admin-Secret'] = this.adminSecret;
    return h;
  }

  private debug(message: string): void {
    this.logger.debug(this.mask(message));
  }

  private async send(call: Call): Promise<QueryResult> {
    const attempts = call.read ? this.retryDelaysMs.length + 1 : 1;
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.attempt(call, attempt, attempts);
      const retryable = outcome.kind === 'failure' ? outcome.retryable : call.read && RETRY_STATUSES.has(outcome.status);
      if (retryable && attempt < attempts) {
        const delay = this.retryDelaysMs[attempt - 1] ?? 0;
        const why = outcome.kind === 'failure' ? outcome.reason : statusLine(outcome.status);
        this.debug(`retrying ${call.operation} in ${delay} ms after ${why} (attempt ${attempt + 1}/${attempts})`);
        // Said at the default level too: a command that waits should say why it waits.
        this.logger.info(`retrying in ${Number((delay / 1000).toFixed(3))} s (attempt ${attempt + 1} of ${attempts})`);
        await sleep(delay);
        continue;
      }
      if (outcome.kind === 'failure') throw outcome.error;
      try {
        return this.interpret(call, outcome.status, outcome.text, outcome.resourceVersion);
      } catch (e) {
        throw await this.named(call, e);
      }
    }
  }

  /** An invalid response from an endpoint that is not this engine says so (issue 19): the usual cause is a wrong URL. */
  private async named(call: Call, e: unknown): Promise<unknown> {
    if (!(e instanceof EngineRequestError) || e.code !== 'invalid-response' || call.path === '/v1/version') return e;
    const why = await identify(this.endpoint, this.agent, this.timeoutSeconds * 1000);
    if (why === null) return e;
    return new EngineRequestError('invalid-response', `${e.message}; ${this.mask(this.endpoint)} is not this engine (${why})`,
      { ...e.location, hint: NOT_THIS_ENGINE_HINT }, { operation: e.operation, status: e.status, engineError: e.engineError });
  }

  private async attempt(call: Call, attempt: number, attempts: number): Promise<Outcome> {
    const url = `${this.endpoint}${call.path}`;
    const payload = call.body === undefined ? undefined : JSON.stringify(call.body);
    const bytes = payload === undefined ? 0 : Buffer.byteLength(payload);
    if (bytes > ENGINE_MAX_BODY_BYTES) {
      // The engine would answer 413 after receiving it all; say so before sending.
      throw new CliError('request-too-large',
        `the ${call.operation} request is ${byteSize(bytes)}, more than the engine's request limit of ${megabytes(ENGINE_MAX_BODY_BYTES)}; nothing was sent`, 1);
    }
    const headers = this.headers();
    const label = `${call.method} ${url} (${call.operation}, attempt ${attempt}/${attempts})`;
    const shown = Object.entries(headers)
      .map(([k, v]) => `${k}: ${k === 'X-Engine-Admin-Secret' ? '***' : v}`)
      .join(', ');
    this.debug(`http request: ${label}; headers: ${shown}${payload !== undefined ? `; body ${Buffer.byteLength(payload)} bytes` : ''}`);
    const started = performance.now();
    const elapsed = () => `${Math.round(performance.now() - started)} ms`;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.timeoutSeconds * 1000);
    try {
      const res = await request(url, {
        method: call.method, headers, body: payload, signal: controller.signal, dispatcher: this.agent,
      });
      const text = await res.body.text();
      const rv = parseResourceVersion(res.headers['x-engine-resource-version']);
      this.debug(`http response: ${label}: ${statusLine(res.statusCode)} in ${elapsed()}, ${Buffer.byteLength(text)} bytes` +
        (rv !== null ? `, resource version ${rv}` : ''));
      return { kind: 'response', status: res.statusCode, text, resourceVersion: rv };
    } catch (e) {
      const failure: TransportFailure | null = timedOut ? { kind: 'timeout' } : classifyTransport(e);
      const detail = e instanceof Error ? e.message : String(e);
      this.debug(`http failure: ${label}: ${timedOut ? 'timed out' : detail} after ${elapsed()}`);
      if (failure === null) throw e;
      if (failure.kind === 'timeout') {
        return { kind: 'failure', error: timeoutError(this.endpoint, this.timeoutSeconds, call.operation, this.mask),
          retryable: false, reason: 'a timeout' };
      }
      return { kind: 'failure', error: networkError(this.endpoint, failure.reason, call.operation, this.mask),
        retryable: failure.retryable, reason: failure.reason };
    } finally {
      clearTimeout(timer);
    }
  }

  /** Classifies a response (cli.md §3.6): 401, 404, not JSON, engine error (≥ 400), wrong shape; else the result. */
  private interpret(call: Call, status: number, text: string, resourceVersion: number | null): QueryResult {
    const url = `${this.endpoint}${call.path}`;
    let body: unknown;
    let json = true;
    try {
      body = JSON.parse(text);
    } catch {
      json = false;
    }
    if (status === 401) throw unauthorizedError(this.endpoint, this.adminSecret !== undefined, call.operation, body, this.mask);
    const invalid = () => invalidResponseError(url, status, text, call.operation, this.mask, body);
    if (call.text && status >= 200 && status < 300) return { status, body: text, resourceVersion };
    if (status === 404 || !json) throw invalid();
    if (status >= 400) {
      const engineError = asEngineError(body);
      if (!engineError) throw invalid();
      if (status === 409 && engineError.code === 'conflict' && call.operation === 'replace_metadata') {
        throw metadataConflictError(this.conflictVersion(call, engineError), engineError, this.mask);
      }
      const operation = (call.ops && bulkOperationFor(call.ops, engineError.path)) ?? call.operation;
      throw serverError(operation, status, engineError, this.mask, call.operation);
    }
    if (status < 200 || status >= 300 || (call.shape && !call.shape(body))) throw invalid();
    return { status, body, resourceVersion };
  }

  private conflictVersion(call: Call, engineError: EngineErrorBody): string {
    if (typeof call.sentResourceVersion === 'number') return String(call.sentResourceVersion);
    const requested = isObject(engineError.internal) ? engineError.internal['requested'] : undefined;
    return typeof requested === 'number' ? String(requested) : 'unknown';
  }
}
