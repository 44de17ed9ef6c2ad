import { CliError } from '../../errors.js';
import { parseCorsDomain, type CorsSetting } from '../../server/http/cors.js';
import type { LogFormat, LogType } from '../../server/http/logs.js';
import { resolveTraceSettings, type TraceSettings } from '../../server/tracing/settings.js';
import { VERSION } from '../../version.js';
import { setting, type Environment } from './environment.js';

/** The HTTP-layer settings of `engine serve` (issue 31): CORS and structured logs. */
export interface HttpFlags {
  corsDomain?: string;
  disableCors?: boolean;
  enabledLogTypes?: string;
  logFormat?: string;
  enableConsole?: boolean;
}

export interface HttpSettings {
  cors?: CorsSetting;
  logTypes?: LogType[];
  logFormat?: LogFormat;
  /** The web console at /console (issue 34); resolved against the database by `consoleEnabled`. */
  enableConsole?: boolean;
  /** `ENGINE_GRAPHQL_METRICS_SECRET`: the bearer token of `GET /v1/metrics` (issue 31.3); off when unset. */
  metricsSecret?: string;
  /** Traces over OTLP/HTTP (issue 31.4): on when an endpoint is set (ENGINE_GRAPHQL_OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_…). */
  traces?: TraceSettings;
}

// Listed here rather than imported from the server's logs module, which loads pino: settings are read before it.
const TYPES: readonly LogType[] = ['startup', 'http-log', 'query-log', 'webhook-log', 'websocket-log', 'event-trigger', 'health-check'];

/** A bad value: exit 64 from a flag, config-invalid from the environment (cli.md §2.2). */
function bad(fromFlag: boolean, flag: string, variable: string, key: string, value: string, reason: string): CliError {
  return fromFlag
    ? new CliError('invalid-flag-value', `invalid value "${value}" for ${flag}: ${reason}`, 64)
    : new CliError('config-invalid', `invalid value for "${key}" from ${variable}: ${reason}`, 1);
}

function flagOrEnv(env: Environment, flag: string | undefined, variable: string): { value: string; fromFlag: boolean } | undefined {
  if (flag !== undefined) return { value: flag, fromFlag: true };
  const v = setting(env, undefined, variable);
  return v === undefined ? undefined : { value: v, fromFlag: false };
}

function truthy(env: Environment, flag: boolean | undefined, variable: string, key: string): boolean {
  if (flag === true) return true;
  const v = env.variable(variable);
  if (v === undefined || v === '') return false;
  const t = v.trim().toLowerCase();
  if (t !== 'true' && t !== 'false') throw bad(false, '', variable, key, v, 'expected true or false');
  return t === 'true';
}

export function resolveHttpSettings(flags: HttpFlags, env: Environment): HttpSettings {
  const out: HttpSettings = {};
  if (truthy(env, flags.disableCors, 'ENGINE_GRAPHQL_DISABLE_CORS', 'disable_cors')) out.cors = { disabled: true };
  else {
    const domain = flagOrEnv(env, flags.corsDomain, 'ENGINE_GRAPHQL_CORS_DOMAIN');
    if (domain) {
      const parsed = parseCorsDomain(domain.value);
      if ('bad' in parsed) {
        throw bad(domain.fromFlag, '--cors-domain', 'ENGINE_GRAPHQL_CORS_DOMAIN', 'cors_domain', domain.value,
          `"${parsed.bad}" is not an origin (expected * or scheme://host[:port], host may start with *.)`);
      }
      out.cors = { origins: parsed.origins };
    }
  }
  const types = flagOrEnv(env, flags.enabledLogTypes, 'ENGINE_GRAPHQL_ENABLED_LOG_TYPES');
  if (types) {
    const list = types.value.split(',').map((s) => s.trim()).filter((s) => s !== '');
    const unknown = list.find((s) => !(TYPES as string[]).includes(s));
    if (unknown !== undefined) {
      throw bad(types.fromFlag, '--enabled-log-types', 'ENGINE_GRAPHQL_ENABLED_LOG_TYPES', 'enabled_log_types', types.value,
        `unknown log type "${unknown}" (expected a comma list of ${TYPES.join(', ')})`);
    }
    out.logTypes = list as LogType[];
  }
  const format = flagOrEnv(env, flags.logFormat, 'ENGINE_GRAPHQL_LOG_FORMAT');
  if (format) {
    const f = format.value.trim().toLowerCase();
    if (f !== 'json' && f !== 'text') throw bad(format.fromFlag, '--log-format', 'ENGINE_GRAPHQL_LOG_FORMAT', 'log_format', format.value, 'expected json or text');
    out.logFormat = f;
  }
  // Unset: decided by the database (consoleEnabled), so only an explicit choice is carried.
  if (flags.enableConsole === true) out.enableConsole = true;
  else {
    const v = env.variable('ENGINE_GRAPHQL_ENABLE_CONSOLE');
    if (v !== undefined && v !== '') out.enableConsole = truthy(env, undefined, 'ENGINE_GRAPHQL_ENABLE_CONSOLE', 'enable_console');
  }
  // Environment only, as the admin secret: a secret on the command line shows in `ps`.
  const metrics = setting(env, undefined, 'ENGINE_GRAPHQL_METRICS_SECRET');
  if (metrics !== undefined && metrics !== '') out.metricsSecret = metrics;
  // Environment only, as the SDK's own variables are: the headers may carry a backend's API key.
  const traces = resolveTraceSettings((name) => env.variable(name), VERSION);
  if (traces) out.traces = traces;
  return out;
}

/**
 * The console is on by default for the embedded engine (a developer's machine) and off for an external database (a
 * deployment) unless asked for (issue 34; the incumbent's console is off by default in its server as well).
 */
export const consoleEnabled = (s: HttpSettings, external: boolean): boolean => s.enableConsole ?? !external;
