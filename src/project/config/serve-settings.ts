import { CliError } from '../../errors.js';
import type { ServeOptions } from '../../server/index.js';
import { setting, type Environment } from './environment.js';
import { resolveHttpSettings, type HttpFlags } from './serve-http-settings.js';

export interface ServeFlags extends HttpFlags {
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
}

const PORT_REASON = 'expected an integer from 0 to 65535';

function parsePort(v: string): number | null {
  if (!/^\d+$/.test(v.trim())) return null;
  const n = Number(v.trim());
  return n <= 65535 ? n : null;
}

/** A positive integer from a flag (exit 64 when bad) or else the environment (config-invalid). */
function positiveSetting(env: Environment, flag: string | undefined, flagName: string, key: string, variable: string): number | undefined {
  const parse = (v: string): number | null => (/^\d+$/.test(v.trim()) && Number(v.trim()) >= 1 && Number.isSafeInteger(Number(v.trim())) ? Number(v.trim()) : null);
  if (flag !== undefined) {
    const n = parse(flag);
    if (n === null) throw new CliError('invalid-flag-value', `invalid value "${flag}" for ${flagName}: expected a positive integer`, 64);
    return n;
  }
  const v = env.variable(variable);
  if (v === undefined || v === '') return undefined;
  const n = parse(v);
  if (n === null) throw new CliError('config-invalid', `invalid value for "${key}" from ${variable}: expected a positive integer`, 1);
  return n;
}

const SECONDS_REASON = 'expected a number of seconds ≥ 0';

/** A duration in seconds (decimals allowed) as ms, or null when it is not one. */
function parseSeconds(v: string): number | null {
  if (!/^\d+(\.\d+)?$/.test(v.trim())) return null;
  const ms = Math.round(Number(v.trim()) * 1000);
  return ms <= 2_147_483_647 ? ms : null;
}

/** A duration setting from its flag, else its variable; undefined when neither is given. */
function seconds(flag: string | undefined, flagName: string, env: Environment, variable: string, key: string): number | undefined {
  if (flag !== undefined) {
    const ms = parseSeconds(flag);
    if (ms === null) throw new CliError('invalid-flag-value', `invalid value "${flag}" for ${flagName}: ${SECONDS_REASON}`, 64);
    return ms;
  }
  const v = env.variable(variable);
  if (v === undefined || v === '') return undefined;
  const ms = parseSeconds(v);
  if (ms === null) throw new CliError('config-invalid', `invalid value for "${key}" from ${variable}: ${SECONDS_REASON}`, 1);
  return ms;
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
  const dataDir = setting(env, flags.dataDir, 'ENGINE_GRAPHQL_DATA_DIR') ?? '.engine/data';
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
  const nodeLimit = positiveSetting(env, flags.nodeLimit, '--node-limit', 'node_limit', 'ENGINE_GRAPHQL_NODE_LIMIT');
  const aliasLimit = positiveSetting(env, flags.aliasLimit, '--alias-limit', 'alias_limit', 'ENGINE_GRAPHQL_ALIAS_LIMIT');
  const queryTimeoutMs = seconds(flags.queryTimeout, '--query-timeout', env, 'ENGINE_GRAPHQL_QUERY_TIMEOUT', 'query_timeout');
  const shutdownGraceMs = seconds(flags.gracefulShutdownTimeout, '--graceful-shutdown-timeout', env, 'ENGINE_GRAPHQL_GRACEFUL_SHUTDOWN_TIMEOUT', 'graceful_shutdown_timeout');
  return {
    port, host, dataDir,
    ...resolveHttpSettings(flags, env),
    ...(nodeLimit !== undefined ? { nodeLimit } : {}),
    ...(aliasLimit !== undefined ? { aliasLimit } : {}),
    ...(queryTimeoutMs !== undefined ? { queryTimeoutMs } : {}),
    ...(shutdownGraceMs !== undefined ? { shutdownGraceMs } : {}),
    ...(enableAllowlist ? { enableAllowlist } : {}),
    ...(authHook ? { authHook } : {}),
    ...(authHookMode ? { authHookMode } : {}),
    ...(databaseUrl ? { databaseUrl } : {}),
    ...(adminSecret ? { adminSecret } : {}),
    ...(jwtSecret ? { jwtSecret } : {}),
    ...(unauthorizedRole ? { unauthorizedRole } : {}),
  };
}
