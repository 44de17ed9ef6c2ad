import { join, resolve } from 'node:path';
import { isScalar, type Node } from 'yaml';
import { CliError } from '../../errors.js';
import {
  checkEndpoint, checkHandlerBaseUrl, checkKind, checkLogLevel, checkNonEmpty, checkTimeout, checkVersion, mappingAt,
  unknownKeys, type ActionKind, type Check, type LogLevel,
} from './config-validate.js';
import {
  configNode, interpolate, openProject, readConfigDocument, scalarText, shownPath, type ConfigDocument, type IncumbentFallback,
} from './environment.js';
import type { Position, Problem } from '../problems.js';
import { statProjectPath } from '../project-file.js';

export type { ActionKind, LogLevel } from './config-validate.js';

/** Every setting of cli.md §2.1, plus the global `timeout` and `log_level` of §2.6/§3.1. */
export type ConfigKey =
  | 'version' | 'endpoint' | 'admin_secret' | 'metadata_directory' | 'migrations_directory'
  | 'actions.kind' | 'actions.handler_webhook_baseurl' | 'actions.codegen.framework' | 'actions.codegen.output_dir'
  | 'timeout' | 'log_level';

/** Where a setting's value came from (cli.md §2.2). `envfile` is `.env`. */
export type ValueOrigin = 'flag' | 'env' | 'envfile' | 'file' | 'default';

export interface ProjectConfig {
  /** The directory holding config.yaml, or null without a project. */
  projectDir: string | null;
  /** Absolute path of config.yaml, or null. */
  configFile: string | null;
  /** Relative paths resolve against it: the project directory, else the current directory. */
  baseDir: string;
  /** Absolute path of the `.env` file that was read, or null. */
  envFile: string | null;
  /** 3: the metadata directory is in the incumbent's `databases/` layout (metadata-dir/layout-v3/). */
  version: 1 | 2 | 3;
  /** The engine base URL, without a trailing `/`. */
  endpoint: string;
  /** Absent when none is configured (or it is empty). */
  adminSecret?: string;
  /** Absolute. */
  metadataDirectory: string;
  /** Absolute. */
  migrationsDirectory: string;
  actions: {
    kind: ActionKind;
    /** A URL or a `{{NAME}}` template, verbatim. */
    handlerWebhookBaseurl: string;
    /** `outputDir` is absolute (relative to the project directory). */
    codegen: { framework?: string; outputDir?: string };
  };
  timeoutSeconds: number;
  logLevel: LogLevel;
  /** `envfile-invalid-line` then `config-unknown-key`. */
  warnings: Problem[];
  /** Where each setting came from. */
  sources: Record<ConfigKey, ValueOrigin>;
  /** Any variable: the process environment, else `.env` (for settings outside config.yaml, e.g. `serve`'s). */
  variable(name: string): string | undefined;
  /** The incumbent's variables read so far in place of the engine's. */
  fallbacks(): IncumbentFallback[];
}

export interface LoadConfigOptions {
  project?: string;
  envfile?: string;
  endpoint?: string;
  adminSecret?: string;
  timeout?: string;
  logLevel?: string;
  /** `config-not-found` without a project. */
  requireProject: boolean;
  /** `config-version-unsupported` for a version-1 project (cli.md §1.4); versions 2 and 3 pass. */
  requireVersion2?: boolean;
  /**
   * The command does not talk to the engine: `endpoint` and `admin_secret` are not used, so an unset `${VAR}` or an
   * invalid value there does not fail it (the keys keep their defaults). Invalid flags still do.
   */
  offline?: boolean;
  /** Default `process.cwd()`. */
  cwd?: string;
  /** Default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

export const DEFAULTS = {
  version: 1,
  endpoint: 'http://localhost:8080',
  metadataDirectory: 'metadata',
  migrationsDirectory: 'migrations',
  actionsKind: 'synchronous',
  handlerWebhookBaseurl: 'http://localhost:3000',
  timeoutSeconds: 30,
  logLevel: 'info',
} as const;

/** A key's variable: `ENGINE_GRAPHQL_` + the key upper-cased, `.` → `_` (cli.md §2.1). */
export function variableFor(key: ConfigKey): string {
  return `ENGINE_GRAPHQL_${key.toUpperCase().replace(/\./g, '_')}`;
}

/** The global flags that set a key (command flags for nested keys act only on their command). */
const FLAG_NAMES: Partial<Record<ConfigKey, string>> = {
  endpoint: 'endpoint', admin_secret: 'admin-secret', timeout: 'timeout', log_level: 'log-level',
};

/** Keys that config.yaml cannot set. */
const NOT_IN_FILE: readonly ConfigKey[] = ['timeout', 'log_level'];

/** Keys only commands that talk to the engine use. */
const ONLINE_KEYS: readonly ConfigKey[] = ['endpoint', 'admin_secret'];

/** One value with its origin, before validation. */
interface Raw {
  text: string;
  origin: ValueOrigin;
  /** The variable it came from (env/envfile). */
  variable?: string;
  /** Its position (file). */
  at?: Position;
  /** A file value that is a list or mapping, not a scalar. */
  collection?: boolean;
}

function invalidFlag(flag: string, value: string, reason: string, hint?: string): CliError {
  return new CliError('invalid-flag-value', `invalid value "${value}" for --${flag}: ${reason}`, 64, hint ? { hint } : {});
}

/** The error for an invalid value, by origin (cli.md §2.5, §6). */
function invalidValue(key: ConfigKey, raw: Raw, reason: string, hint?: string): CliError {
  const h = hint ? { hint } : {};
  if (raw.origin === 'flag') return invalidFlag(FLAG_NAMES[key] ?? key, raw.text, reason, hint);
  if (raw.origin === 'env' || raw.origin === 'envfile') {
    return new CliError('config-invalid', `invalid value for "${key}" from ${raw.variable ?? variableFor(key)}: ${reason}`, 1, h);
  }
  return new CliError('config-invalid', `invalid value for "${key}": ${reason}`, 1, { ...(raw.at ?? {}), ...h });
}

/** Invalid global flags are usage errors (exit 64), reported before the project is read. */
function checkFlags(opts: LoadConfigOptions): void {
  const flags: [string, string | undefined, (t: string) => Check<unknown>][] = [
    ['endpoint', opts.endpoint, checkEndpoint], ['timeout', opts.timeout, checkTimeout], ['log-level', opts.logLevel, checkLogLevel],
  ];
  for (const [flag, value, check] of flags) {
    if (value === undefined) continue;
    const r = check(value);
    if (!r.ok) throw invalidFlag(flag, value, r.reason, r.hint);
  }
}

/**
 * Resolves the configuration (cli.md §2): project discovery, `.env`, config.yaml, and for every key
 * flag > process environment > `.env` > config.yaml > default. Only the value that wins is interpolated and validated.
 */
export function loadConfig(opts: LoadConfigOptions): ProjectConfig {
  checkFlags(opts);
  const src = openProject({ project: opts.project, envfile: opts.envfile, cwd: opts.cwd, env: opts.env });
  if (!src.projectDir && opts.requireProject) {
    throw new CliError('config-not-found', `no config.yaml found in ${shownPath(src.start, src.cwd)} or any parent directory`, 1, {
      hint: "run 'engine init' to create a project, or pass --project",
    });
  }
  const config: ConfigDocument | null = src.configFile ? readConfigDocument(src.configFile, src.cwd) : null;
  const warnings: Problem[] = [...src.envProblems, ...(config ? unknownKeys(config) : [])];
  const sources = {} as Record<ConfigKey, ValueOrigin>;

  const fileValue = (key: ConfigKey): Raw | undefined => {
    if (!config || NOT_IN_FILE.includes(key)) return undefined;
    const parts = key.split('.');
    const map = parts.length === 1 ? config.root : mappingAt(config, parts.slice(0, -1).join('.'));
    const node: Node | null | undefined = configNode(config, map, parts[parts.length - 1] as string);
    const at = config.position(node);
    if (node && !isScalar(node)) {
      return { text: config.text.slice(node.range?.[0] ?? 0, node.range?.[1] ?? 0).trim(), origin: 'file', at, collection: true };
    }
    const text = scalarText(node);
    if (text === undefined) return undefined;
    // Only the value that is used is interpolated: a flag or variable that wins means this line is never read.
    const isString = isScalar(node) && typeof node.value === 'string';
    return { text: isString ? interpolate(text, key, src.variable, at) : text, origin: 'file', at };
  };

  const pick = (key: ConfigKey, flag?: string): Raw | undefined => {
    if (flag !== undefined) return { text: flag, origin: 'flag' };
    const name = variableFor(key);
    const v = src.variable(name);
    // A variable set to "" counts as unset (cli.md §2.1); `.env` never overrides a variable of the process.
    if (v !== undefined && v !== '') {
      const from = src.variableSource(name);
      return { text: v, origin: from?.origin ?? 'env', variable: from?.variable ?? name };
    }
    return fileValue(key);
  };

  /** The winning value of `key`, validated, or the default (`undefined` = none). */
  function value<T>(key: ConfigKey, check: (t: string) => Check<T>, fallback: T, flag?: string): T;
  function value<T>(key: ConfigKey, check: (t: string) => Check<T>, fallback: undefined, flag?: string): T | undefined;
  function value<T>(key: ConfigKey, check: (t: string) => Check<T>, fallback: T | undefined, flag?: string): T | undefined {
    if (opts.offline && ONLINE_KEYS.includes(key)) {
      try {
        return resolveValue(key, check, fallback, flag);
      } catch (e) {
        if (!(e instanceof CliError) || e.exitCode !== 1) throw e;
        sources[key] = 'default';
        return fallback;
      }
    }
    return resolveValue(key, check, fallback, flag);
  }
  function resolveValue<T>(key: ConfigKey, check: (t: string) => Check<T>, fallback: T | undefined, flag?: string): T | undefined {
    const raw = pick(key, flag);
    sources[key] = raw?.origin ?? 'default';
    if (!raw) return fallback;
    if (raw.collection && key !== 'version') throw invalidValue(key, raw, 'expected a string');
    const r = check(raw.text);
    if (!r.ok) throw invalidValue(key, raw, r.reason, r.hint);
    return r.value;
  }

  const version = value('version', checkVersion, DEFAULTS.version);
  if (opts.requireVersion2 && src.configFile && version === 1) {
    const where = sources.version === 'file' || sources.version === 'default' ? shownPath(src.configFile, src.cwd) : variableFor('version');
    throw new CliError('config-version-unsupported', `this command needs config version 2, but ${where} has version ${version}`, 1, {
      hint: "run 'engine migrate config' to upgrade the project",
    });
  }
  const directory = (t: string): Check<string> => {
    const r = checkNonEmpty(t);
    return r.ok ? { ok: true, value: resolve(src.baseDir, t) } : r;
  };
  const text = (t: string): Check<string> => ({ ok: true, value: t });
  const endpoint = value('endpoint', checkEndpoint, DEFAULTS.endpoint, opts.endpoint);
  const adminSecret = value('admin_secret', text, undefined, opts.adminSecret);
  const metadataDirectory = value('metadata_directory', directory, resolve(src.baseDir, DEFAULTS.metadataDirectory));
  const migrationsDirectory = databaseLevel(value('migrations_directory', directory, resolve(src.baseDir, DEFAULTS.migrationsDirectory)));
  const kind = value('actions.kind', checkKind, DEFAULTS.actionsKind);
  const handlerWebhookBaseurl = value('actions.handler_webhook_baseurl', checkHandlerBaseUrl, DEFAULTS.handlerWebhookBaseurl);
  const framework = value('actions.codegen.framework', text, undefined);
  const outputDir = value('actions.codegen.output_dir', directory, undefined);
  const timeoutSeconds = value('timeout', checkTimeout, DEFAULTS.timeoutSeconds, opts.timeout);
  const logLevel = value('log_level', checkLogLevel, DEFAULTS.logLevel, opts.logLevel);

  return {
    projectDir: src.projectDir,
    configFile: src.configFile,
    baseDir: src.baseDir,
    envFile: src.envFile,
    version,
    endpoint,
    ...(adminSecret ? { adminSecret } : {}),
    metadataDirectory,
    migrationsDirectory,
    actions: {
      kind,
      handlerWebhookBaseurl,
      codegen: { ...(framework ? { framework } : {}), ...(outputDir ? { outputDir } : {}) },
    },
    timeoutSeconds,
    logLevel,
    warnings,
    sources,
    variable: src.variable,
    fallbacks: src.fallbacks,
  };
}

/**
 * The incumbent's config v3 keeps a project's migrations (and seeds) one level down, per database: `migrations/default/`.
 * A project here has the one database `default`, so that folder, when present, is the directory itself (issue 29); a
 * migration folder is never named `default` (it starts with its version), so the two layouts cannot be confused.
 */
export function databaseLevel(dir: string): string {
  const inner = join(dir, 'default');
  return statProjectPath(inner)?.isDirectory() === true ? inner : dir;
}
