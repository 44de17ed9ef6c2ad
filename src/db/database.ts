import type { CancelSignal } from './cancel.js';
/** The result of a script run through the simple-query protocol: the last statement's, values as PostgreSQL text. */
export interface ScriptResult {
  /** True when the last statement had a row description (SELECT, … RETURNING, SHOW). */
  hasRows: boolean;
  fields: string[];
  rows: (string | null)[][];
}

export type Row = Record<string, unknown>;

/** Command tags of statements that describe rows: such a statement is TuplesOk even with zero columns. */
export const ROW_COMMANDS = new Set(['SELECT', 'SHOW', 'FETCH', 'EXPLAIN']);

export interface QueryOptions {
  /**
   * Run as a named prepared statement (PostgreSQL keeps its plan per connection). The name must always denote the
   * same text, e.g. a hash of it. Embedded PGlite has one session and ignores it.
   */
  name?: string;
}

export interface Queryable {
  /** One parameterised statement (extended protocol); values parsed to JS types. */
  query<T extends Row = Row>(sql: string, params?: unknown[], opts?: QueryOptions): Promise<T[]>;
  /** One or more `;`-separated statements without parameters; results as text, for `run_sql`. */
  runScript(sql: string): Promise<ScriptResult>;
}

/**
 * One long-lived database session, for what belongs to a connection rather than a statement: LISTEN and
 * session advisory locks. On PostgreSQL it is a dedicated connection (never a pooled one); on PGlite, the one
 * connection there is.
 */
export interface Session extends Queryable {
  /** Calls `onNotify` for each notification on `channel`. */
  listen(channel: string, onNotify: () => void): Promise<void>;
  /** Called once when the connection is lost (its session state, advisory locks included, is gone). */
  onLost(cb: (err: Error) => void): void;
  /** Ends the session: stops listening; on PostgreSQL closes the connection (releasing its locks). */
  close(): Promise<void>;
}

export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

/**
 * How a transaction starts. `readOnlySnapshot`: REPEATABLE READ READ ONLY (GraphQL queries, graphql-api.md §4.1).
 * `utc`: TimeZone is UTC for the transaction. Both are set in the round trip that begins it.
 */
export interface TransactionOptions {
  readOnlySnapshot?: boolean;
  utc?: boolean;
  /**
   * A fixed statement (no parameters, never request data) sent in the round trip that begins the transaction, after
   * the options. GraphQL requests read resource_version this way (graphql-api.md §7.1).
   */
  first?: string;
}

/** One statement of a batch: parameterised; `name` as in QueryOptions. */
export interface BatchStatement {
  sql: string;
  params: unknown[];
  name?: string;
}

/** How a batch's transaction is set up and ended. */
export interface BatchOptions extends TransactionOptions {
  /** Sees the rows of `first`; throwing fails the batch (a stale plan), rolled back unless it committed already. */
  begun?(first: Row[]): void;
  /**
   * COMMIT is sent with the statements (one round trip on PostgreSQL): the statements abort the transaction
   * themselves when it must not commit. A read-only snapshot always commits so.
   */
  commitWith?: boolean;
  /**
   * Cancels the batch when aborted (the request's time limit passed, its client went away): a batch still waiting for
   * the database fails at once, a running statement is cancelled (PostgreSQL: pg_cancel_backend; the embedded worker:
   * terminated and reopened). The batch then fails with StatementCancelled.
   */
  signal?: CancelSignal;
}

/** A batch was cancelled through its signal (`reason`: the signal's) before it finished; nothing of it was committed. */
export class StatementCancelled extends Error {
  constructor(readonly reason: unknown) {
    super('the statement was cancelled');
  }
}

/** Statement `index` of a batch failed; the transaction was rolled back. */
export class BatchError extends Error {
  constructor(readonly index: number, override readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

/** The first round trip of a transaction on PostgreSQL: BEGIN with its isolation (one command), then the rest. */
export function beginTransaction(opts: TransactionOptions, zone: string | null): string {
  const begin = opts.readOnlySnapshot ? 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' : 'BEGIN';
  return [begin, ...transactionSetup({ ...opts, readOnlySnapshot: false }, zone)].join('; ');
}

/**
 * The statements that set up a transaction's options, after BEGIN; fixed text, never request data. `zone` gives the
 * transaction its time zone; PostgreSQL's pool passes its own (a connection keeps its zone: src/db/postgres.ts).
 */
export function transactionSetup(opts: TransactionOptions, zone: string | null = opts.utc ? "SET LOCAL TIME ZONE 'UTC'" : null): string[] {
  const out: string[] = [];
  if (opts.readOnlySnapshot) out.push('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
  if (zone) out.push(zone);
  if (opts.first) out.push(opts.first);
  return out;
}

/** One Database interface, two implementations: embedded PGlite and an external PostgreSQL. */
export interface Database extends Queryable {
  readonly kind: 'embedded' | 'external';
  /** Runs `fn` in a transaction on one connection; commits when it resolves, rolls back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>, opts?: TransactionOptions): Promise<T>;
  /**
   * Runs `statements` in order in one transaction and returns their rows. On PostgreSQL they are pipelined: BEGIN
   * (with `first`), every statement and, with `commitWith`, COMMIT go out together in one round trip. Rolls back on
   * any failure (BatchError names the statement) or when `begun` throws.
   */
  batch(statements: BatchStatement[], opts: BatchOptions): Promise<Row[][]>;
  openSession(): Promise<Session>;
  /**
   * Whether the database can answer; a database busy with a statement is alive without answering a query of its own
   * now (the embedded worker runs one statement at a time). Default, when absent: `SELECT 1`.
   */
  ping?(): Promise<void>;
  /** Cancels every statement running now (a stop after its grace period); their work fails and is rolled back. */
  cancelRunning?(): Promise<void>;
  close(): Promise<void>;
  /** The connection pool now (metrics, issue 31.3); absent for the embedded database, which has none. */
  poolStats?(): PoolStats;
}

/** PostgreSQL's error fields, whichever driver raised the error. */
export interface PgErrorInfo {
  message: string;
  code: string;
  detail: string | null;
  hint: string | null;
  /** PostgreSQL's error cursor: 1-based, in characters of the statement text as sent; null when it gave none. */
  position: number | null;
}

export function pgErrorInfo(e: unknown): PgErrorInfo | null {
  if (typeof e !== 'object' || e === null) return null;
  const err = e as { code?: unknown; message?: unknown; detail?: unknown; hint?: unknown; position?: unknown };
  if (typeof err.code !== 'string' || !/^[0-9A-Z]{5}$/.test(err.code)) return null;
  return {
    message: String(err.message ?? ''),
    code: err.code,
    detail: typeof err.detail === 'string' ? err.detail : null,
    hint: typeof err.hint === 'string' ? err.hint : null,
    // pg and PGlite both pass the protocol's P field on as a string.
    position: /^[1-9][0-9]*$/.test(String(err.position ?? '')) ? Number(err.position) : null,
  };
}

/** Names of connection parameters whose value is a secret (`password`, `sslpassword`, and any *secret*, *token*). */
const SECRET_PARAM = /pass|secret|token/i;

const decodeName = (name: string): string => {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
};

/** `?a=1&password=x#f` with every secret parameter's value replaced by `***`, the rest kept as written. */
function maskQuery(query: string): string {
  return query.replace(/([?&])([^=&#]*)=([^&#]*)/g, (m, sep: string, name: string) =>
    (SECRET_PARAM.test(decodeName(name)) ? `${sep}${name}=***` : m));
}

/**
 * A connection string fit for messages and logs, with every credential form that pg-connection-string accepts masked
 * as `***`: the password of `postgres://user:password@host/db` (the userinfo ends at the last `@` of the authority, as
 * the URL parser reads it, so an unencoded `@` in a password is masked too), query parameters such as `?password=…`
 * and `?sslpassword=…` (names percent-decoded as the parser decodes them), and libpq keyword/value strings
 * (`host=h password='p w'`). A string that is not a URL has everything up to its last `@` masked.
 */
export function maskUrl(url: string): string {
  const [, scheme = '', slashes = '', rest = ''] = /^((?:[A-Za-z][A-Za-z0-9+.-]*:)?)(\/\/)?([^]*)$/.exec(url) ?? [];
  if (!scheme && !slashes && /^\s*\w+\s*=/.test(url)) {
    // libpq keyword/value form: `password=secret`, `password = 'with spaces'`.
    return url.replace(/(\b\w*(?:pass|secret|token)\w*\s*=\s*)('(?:[^'\\]|\\.)*'?|\S*)/gi, '$1***');
  }
  const queryAt = rest.search(/[?#]/);
  const head = queryAt < 0 ? rest : rest.slice(0, queryAt);
  const tail = queryAt < 0 ? '' : rest.slice(queryAt);
  const authority = slashes ? head.slice(0, head.indexOf('/') < 0 ? head.length : head.indexOf('/')) : '';
  const at = authority.lastIndexOf('@');
  const colon = authority.indexOf(':');
  if (at >= 0 && parses(url)) {
    return `${scheme}${slashes}${colon >= 0 && colon < at ? `${authority.slice(0, colon + 1)}***` : authority.slice(0, at)}${head.slice(at)}${maskQuery(tail)}`;
  }
  const last = rest.lastIndexOf('@');
  if (last >= 0 && (at >= 0 || !parses(url) || !slashes)) {
    // Not read as userinfo by the URL parser (an unencoded `/`, `?` or `#` in a password, no `//`): mask every candidate.
    const user = slashes ? `${rest.slice(0, last).split(/[:/?#]/)[0] ?? ''}:` : '';
    return `${scheme}${slashes}${user}***${rest.slice(last).replace(/[?#][^]*$/, (q) => maskQuery(q))}`;
  }
  return `${scheme}${slashes}${head}${maskQuery(tail)}`;
}

/** Whether pg-connection-string's parser reads the string as a URL (it resolves it against `postgres://base`). */
function parses(url: string): boolean {
  try {
    new URL(url, 'postgres://base');
    return true;
  } catch {
    return false;
  }
}
