import { CliError } from '../../errors.js';
import type { ServeOptions } from '../../server/index.js';
import { maskUrl } from '../../db/database.js';
import { DEFAULT_DATA_DIR } from '../../db/pglite-prestart.js';
import type { PoolSettings } from '../../db/postgres-config.js';
import { setting, type Environment } from './environment.js';
import { parseSessionPrefix, type SessionPrefix } from '../../server/auth/session-names.js';
import { consoleEnabled, resolveHttpSettings, type HttpFlags, type HttpSettings } from './serve-http-settings.js';
import { resolveSubscriptionSettings, type SubscriptionFlags } from './serve-subscription-settings.js';
import { positiveSetting, seconds } from './setting-values.js';

export interface ServeFlags extends HttpFlags, SubscriptionFlags {
  port?: string;
  host?: string;
  databaseUrl?: string;
  dataDir?: string;
  adminSecret?: string;
  jwtSecret?: string;
  unauthorizedRole?: string;
  authHook?: string;
  authHookMode?: string;
  enableAllowlist?: boolean;
  nodeLimit?: string;
  aliasLimit?: string;
  queryTimeout?: string;
  gracefulShutdownTimeout?: string;
  sessionVariablePrefix?: string;
  pgConnections?: string;
  pgTimeout?: string;
  pgConnLifetime?: string;
  pgPoolTimeout?: string;
  /** False with `--no-prepared-statements` (commander's default for a negated flag is true). */
  preparedStatements?: boolean;
  readReplicaUrls?: string;
}

const PORT_REASON = 'expected an integer from 0 to 65535';

function parsePort(v: string): number | null {
  if (!/^\d+$/.test(v.trim())) return null;
  const n = Number(v.trim());
  return n <= 65535 ? n : null;
}

/** `--session-variable-prefix` or ENGINE_GRAPHQL_SESSION_VARIABLE_PREFIX (issue 29.2): `x-engine-` or `x-hasura-`. */
function sessionPrefix(env: Environment, flag: string | undefined): SessionPrefix | undefined {
  const reason = 'expected x-engine- or x-hasura-';
  if (flag !== undefined) {
    const p = parseSessionPrefix(flag);
    if (p === undefined) throw new CliError('invalid-flag-value', `invalid value "${flag}" for --session-variable-prefix: ${reason}`, 64);
    return p;
  }
  const v = env.variable('ENGINE_GRAPHQL_SESSION_VARIABLE_PREFIX');
  if (v === undefined || v === '') return undefined;
  const p = parseSessionPrefix(v);
  if (p === undefined) throw new CliError('config-invalid', `invalid value for "session_variable_prefix" from ENGINE_GRAPHQL_SESSION_VARIABLE_PREFIX: ${reason}`, 1);
  return p;
}

/** `--no-prepared-statements`, else ENGINE_GRAPHQL_USE_PREPARED_STATEMENTS (the incumbent's name), else true. */
function preparedStatements(flag: boolean | undefined, env: Environment): boolean {
  if (flag === false) return false;
  const v = env.variable('ENGINE_GRAPHQL_USE_PREPARED_STATEMENTS');
  if (v === undefined || v === '') return true;
  const t = v.trim().toLowerCase();
  if (t !== 'true' && t !== 'false') {
    throw new CliError('config-invalid', 'invalid value for "use_prepared_statements" from ENGINE_GRAPHQL_USE_PREPARED_STATEMENTS: expected true or false', 1);
  }
  return t === 'true';
}

/** A true/false variable (any case); undefined when unset or empty. */
function booleanVariable(env: Environment, variable: string, key: string): boolean | undefined {
  const v = env.variable(variable)?.trim().toLowerCase();
  if (v === undefined || v === '') return undefined;
  if (v !== 'true' && v !== 'false') throw new CliError('config-invalid', `invalid value for "${key}" from ${variable}: expected true or false`, 1);
  return v === 'true';
}

/** The pool of an external PostgreSQL (issue 31 point 7): only what was given; the pool's defaults fill the rest. */
function poolSettings(flags: ServeFlags, env: Environment): PoolSettings {
  const max = positiveSetting(env, flags.pgConnections, '--pg-connections', 'pg_connections', 'ENGINE_GRAPHQL_PG_CONNECTIONS');
  const idleTimeoutMs = seconds(flags.pgTimeout, '--pg-timeout', env, 'ENGINE_GRAPHQL_PG_TIMEOUT', 'pg_timeout');
  const lifetimeMs = seconds(flags.pgConnLifetime, '--pg-conn-lifetime', env, 'ENGINE_GRAPHQL_PG_CONN_LIFETIME', 'pg_conn_lifetime');
  const acquireTimeoutMs = seconds(flags.pgPoolTimeout, '--pg-pool-timeout', env, 'ENGINE_GRAPHQL_PG_POOL_TIMEOUT', 'pg_pool_timeout');
  return {
    ...(max !== undefined ? { max } : {}),
    ...(idleTimeoutMs !== undefined ? { idleTimeoutMs } : {}),
    ...(lifetimeMs !== undefined ? { lifetimeMs } : {}),
    ...(acquireTimeoutMs !== undefined ? { acquireTimeoutMs } : {}),
    ...(preparedStatements(flags.preparedStatements, env) ? {} : { preparedStatements: false }),
  };
}

/** A comma list of PostgreSQL URLs; each must be one (postgres:// or postgresql://). */
function replicaUrls(flags: ServeFlags, env: Environment): string[] {
  const v = setting(env, flags.readReplicaUrls, 'ENGINE_GRAPHQL_READ_REPLICA_URLS');
  if (v === undefined) return [];
  const urls = v.split(',').map((u) => u.trim()).filter((u) => u !== '');
  for (const u of urls) {
    if (/^postgres(ql)?:\/\//i.test(u)) continue;
    const reason = `expected a comma-separated list of postgres:// URLs, got "${maskUrl(u)}"`;
    if (flags.readReplicaUrls !== undefined) throw new CliError('invalid-flag-value', `invalid value for --read-replica-urls: ${reason}`, 64);
    throw new CliError('config-invalid', `invalid value for "read_replica_urls" from ENGINE_GRAPHQL_READ_REPLICA_URLS: ${reason}`, 1);
  }
  return urls;
}

/** `engine serve` settings (cli.md §5.17): flags, then environment, `.env`, config.yaml (admin secret, JWT secret, unauthorized role, auth hook), defaults. */
export function resolveServeSettings(flags: ServeFlags, env: Environment): Omit<ServeOptions, 'logger'> {
  let port = 8080;
  if (flags.port !== undefined) {
    const p = parsePort(flags.port);
    if (p === null) throw new CliError('invalid-flag-value', `invalid value "${flags.port}" for --port: ${PORT_REASON}`, 64);
    port = p;
  } else {
    const v = env.variable('ENGINE_GRAPHQL_SERVER_PORT');
    if (v !== undefined && v !== '') {
      const p = parsePort(v);
      if (p === null) {
        throw new CliError('config-invalid', `invalid value for "port" from ENGINE_GRAPHQL_SERVER_PORT: ${PORT_REASON}`, 1);
      }
      port = p;
    }
  }
  const host = setting(env, flags.host, 'ENGINE_GRAPHQL_SERVER_HOST') ?? '127.0.0.1';
  const databaseUrl = setting(env, flags.databaseUrl, 'ENGINE_GRAPHQL_DATABASE_URL');
  const dataDir = setting(env, flags.dataDir, 'ENGINE_GRAPHQL_DATA_DIR') ?? DEFAULT_DATA_DIR;
  const adminSecret = setting(env, flags.adminSecret, 'ENGINE_GRAPHQL_ADMIN_SECRET', 'admin_secret');
  const jwtSecret = setting(env, flags.jwtSecret, 'ENGINE_GRAPHQL_JWT_SECRET', 'jwt_secret');
  const unauthorizedRole = setting(env, flags.unauthorizedRole, 'ENGINE_GRAPHQL_UNAUTHORIZED_ROLE', 'unauthorized_role');
  const authHook = setting(env, flags.authHook, 'ENGINE_GRAPHQL_AUTH_HOOK', 'auth_hook');
  const authHookMode = setting(env, flags.authHookMode, 'ENGINE_GRAPHQL_AUTH_HOOK_MODE', 'auth_hook_mode');
  let enableAllowlist = flags.enableAllowlist === true;
  if (!enableAllowlist) {
    const v = env.variable('ENGINE_GRAPHQL_ENABLE_ALLOWLIST');
    if (v !== undefined && v !== '') {
      if (!['true', 'false'].includes(v.trim().toLowerCase())) {
        throw new CliError('config-invalid', `invalid value for "enable_allowlist" from ENGINE_GRAPHQL_ENABLE_ALLOWLIST: expected true or false`, 1);
      }
      enableAllowlist = v.trim().toLowerCase() === 'true';
    }
  }
  // True (the incumbent's default): function root fields follow the select permission of the table they return;
  // false: they also need a function permission.
  const infer = booleanVariable(env, 'ENGINE_GRAPHQL_INFER_FUNCTION_PERMISSIONS', 'infer_function_permissions');
  const nodeLimit = positiveSetting(env, flags.nodeLimit, '--node-limit', 'node_limit', 'ENGINE_GRAPHQL_NODE_LIMIT');
  const aliasLimit = positiveSetting(env, flags.aliasLimit, '--alias-limit', 'alias_limit', 'ENGINE_GRAPHQL_ALIAS_LIMIT');
  const queryTimeoutMs = seconds(flags.queryTimeout, '--query-timeout', env, 'ENGINE_GRAPHQL_QUERY_TIMEOUT', 'query_timeout');
  const subscriptions = resolveSubscriptionSettings(flags, env);
  const pool = poolSettings(flags, env);
  const readReplicaUrls = replicaUrls(flags, env);
  const shutdownGraceMs = seconds(flags.gracefulShutdownTimeout, '--graceful-shutdown-timeout', env, 'ENGINE_GRAPHQL_GRACEFUL_SHUTDOWN_TIMEOUT', 'graceful_shutdown_timeout');
  const sessionVariablePrefix = sessionPrefix(env, flags.sessionVariablePrefix);
  const stringify = booleanVariable(env, 'ENGINE_GRAPHQL_STRINGIFY_NUMERIC_TYPES', 'stringify_numeric_types');
  return {
    port, host, dataDir,
    ...(stringify === true ? { stringifyNumericTypes: true } : {}),
    ...(infer === false ? { inferFunctionPermissions: false } : {}),
    ...(sessionVariablePrefix !== undefined ? { sessionVariablePrefix } : {}),
    ...withConsole(resolveHttpSettings(flags, env), databaseUrl !== undefined && databaseUrl !== ''),
    ...(nodeLimit !== undefined ? { nodeLimit } : {}),
    ...(aliasLimit !== undefined ? { aliasLimit } : {}),
    ...(queryTimeoutMs !== undefined ? { queryTimeoutMs } : {}),
    ...subscriptions,
    ...(shutdownGraceMs !== undefined ? { shutdownGraceMs } : {}),
    ...(enableAllowlist ? { enableAllowlist } : {}),
    ...(Object.keys(pool).length > 0 ? { pool } : {}),
    ...(readReplicaUrls.length > 0 ? { readReplicaUrls } : {}),
    ...(authHook ? { authHook } : {}),
    ...(authHookMode ? { authHookMode } : {}),
    ...(databaseUrl ? { databaseUrl } : {}),
    ...(adminSecret ? { adminSecret } : {}),
    ...(jwtSecret ? { jwtSecret } : {}),
    ...(unauthorizedRole ? { unauthorizedRole } : {}),
  };
}

const withConsole = (s: HttpSettings, external: boolean): HttpSettings => ({ ...s, enableConsole: consoleEnabled(s, external) });
