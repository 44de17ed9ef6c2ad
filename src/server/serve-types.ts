import type { GraphQLSchema } from 'graphql';
import type { Database } from '../db/database.js';
import type { PoolSettings } from '../db/postgres-config.js';
import type { Logger } from '../logger.js';
import type { SessionPrefix } from './auth/session-names.js';
import type { Clock } from './clock.js';
import type { Engine } from './engine.js';
import type { CorsSetting } from './http/cors.js';
import type { LogFormat, LogType } from './http/logs.js';
import type { TraceSettings } from './tracing/settings.js';
import type { SubscriptionSettings } from './graphql/subscriptions/index.js';

export type { SubscriptionSettings };

export interface ServeOptions {
  /** External PostgreSQL; when absent, the embedded one in `dataDir`. */
  databaseUrl?: string;
  dataDir?: string;
  port: number;
  host: string;
  adminSecret?: string;
  /** JWT mode: the JSON configuration of issue 17. */
  jwtSecret?: string;
  /** The role of a request without credentials. */
  unauthorizedRole?: string;
  /** Auth hook mode: the hook's URL and GET or POST. */
  authHook?: string;
  authHookMode?: string;
  /** `--session-variable-prefix`: the prefix of session-variable names the engine sends (issue 29.2); default `x-engine-`. */
  sessionVariablePrefix?: SessionPrefix;
  logger?: Logger;
  /** Looks up the variables of webhook and action handler templates and headers at each call; default: the process environment. */
  variable?: (name: string) => string | undefined;
  /** The time scheduled events are judged by; default the system clock (tests move their own). */
  clock?: Clock;
  /** `--enable-allowlist`: non-admin GraphQL requests must send allow-listed documents. */
  enableAllowlist?: boolean;
  /** ENGINE_GRAPHQL_STRINGIFY_NUMERIC_TYPES: bigint, numeric and float8 answered as JSON strings (issue 29.8). */
  stringifyNumericTypes?: boolean;
  /** ENGINE_GRAPHQL_INFER_FUNCTION_PERMISSIONS=false: function root fields only for roles with a function permission (issue 29.6). */
  inferFunctionPermissions?: boolean;
  /** `--node-limit`, `--alias-limit`: fields and aliases of one GraphQL operation, fragments expanded (issue 28). */
  nodeLimit?: number;
  aliasLimit?: number;
  /** `--query-timeout`: a GraphQL request's time limit in ms (default 60 s; 0: none). */
  queryTimeoutMs?: number;
  /** `--live-queries-refetch-interval`: the live queries' fallback refetch in ms (default 1 s; 0: none; issue 32.3). */
  liveQueriesRefetchMs?: number;
  /** The batch size, WebSocket timers and limits of subscriptions (`--websocket-max-connections`, …; issue 32.7). */
  subscriptions?: SubscriptionSettings;
  /** `--graceful-shutdown-timeout`: how long a stop lets requests finish before cancelling them, in ms (default 10 s). */
  shutdownGraceMs?: number;
  /** The pool of an external PostgreSQL, its replicas' too (`--pg-connections`, …); the embedded database has none. */
  pool?: PoolSettings;
  /** `--read-replica-urls`: GraphQL queries go to these in turn, everything else to `databaseUrl`. */
  readReplicaUrls?: string[];
  /** `--cors-domain` / `--disable-cors` (issue 31.1); default any origin. */
  cors?: CorsSetting;
  /** `--enabled-log-types` and `--log-format` (issue 31.2); default the DEFAULT_LOG_TYPES in text. */
  logTypes?: LogType[];
  logFormat?: LogFormat;
  /** Serve the web console at /console (issue 34). */
  enableConsole?: boolean;
  /** `ENGINE_GRAPHQL_METRICS_SECRET`: `GET /v1/metrics` is served to this bearer token (issue 31.3). */
  metricsSecret?: string;
  /** Traces over OTLP/HTTP (issue 31.4); off when absent. */
  traces?: TraceSettings;
}

export interface RunningServer {
  url: string;
  engine: Engine;
  database: 'embedded' | 'external';
  dataDir: string | null;
  /** A role's GraphQL schema at the current metadata, as its requests see it (`engine metadata schema` prints it). */
  schemaFor(role: string): Promise<GraphQLSchema>;
  /** Stops accepting, finishes in-flight requests, closes the database and releases the lock. */
  close(): Promise<void>;
}

/** The database as opened by openDatabase (index.ts), with the release of its data directory's lock. */
export interface OpenedDatabase {
  db: Database;
  /** Where GraphQL queries read: the read replicas, when any. */
  replicas?: Database;
  release: () => void;
  dataDir: string | null;
}

/** A GraphQL request's time limit by default (issue 28). */
export const DEFAULT_QUERY_TIMEOUT_MS = 60_000;
/** How long a stop waits for requests before cancelling their statements, by default. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;
