import { lstatSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { isAlias, isMap, isScalar, LineCounter, parseDocument, type Document, type Node, type YAMLMap } from 'yaml';
import { CliError } from '../../errors.js';
import { loadEnvFile } from './dotenv.js';
import { resolveVariable } from './incumbent-env.js';
import type { Position, Problem } from '../problems.js';
import { lineColumn, nonPrintableIndex, nonPrintableMessage, readProjectFile, shownPath, unreadable } from '../project-file.js';

/**
 * Where settings come from (cli.md §2.2): flag > process environment > `.env` > `config.yaml` > default.
 * This module knows the sources; commands ask it for one value at a time, so only used values are read.
 */
export interface Environment {
  projectDir: string | null;
  configFile: string | null;
  /** The process environment, falling back to `.env` (which never overrides a defined variable). */
  variable(name: string): string | undefined;
  /** A top-level scalar of config.yaml, `${VAR}` references resolved; undefined when absent. */
  configValue(key: string): string | undefined;
  warnings: string[];
  /** The incumbent's variables read so far in place of the engine's (`HASURA_GRAPHQL_X` for `ENGINE_GRAPHQL_X`). */
  fallbacks(): IncumbentFallback[];
}

/** An engine variable whose value came from the incumbent's name of it. */
export interface IncumbentFallback {
  variable: string;
  from: string;
}

/**
 * Keys of the incumbent's config.yaml that stand in for one of ours when ours is absent: `access_key` is the admin
 * secret of its version 1 files.
 */
export const CONFIG_KEY_ALIASES: Readonly<Record<string, readonly string[]>> = { admin_secret: ['access_key'] };

export { shownPath } from '../project-file.js';

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Whether `config.yaml` is there in any form: one that cannot be read (a directory, a link loop) still marks the
 * project, whose reading then fails with `unreadable-project-file` instead of a parent's project being used.
 */
function hasConfig(dir: string): boolean {
  try {
    return lstatSync(join(dir, 'config.yaml'), { throwIfNoEntry: false }) !== undefined;
  } catch {
    return true;
  }
}

/** The first directory from `start` up to the root that holds `config.yaml` (cli.md §1.3). */
export function findProjectDir(start: string): string | null {
  let dir = resolve(start);
  for (;;) {
    if (hasConfig(dir)) return dir;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/** `$${` (literal `${`), `${NAME}`, or a malformed `${…` reference; `${{` starts a `{{NAME}}` template, kept verbatim. */
const REF = /\$\$\{|\$\{(?!\{)(?:([A-Za-z_][A-Za-z0-9_]*)\}|[^}]*\}?)/g;

/**
 * Resolves the `${NAME}` references of a config.yaml string value (cli.md §2.4). `at` locates the value for
 * `config-invalid` (a position, or just the file).
 */
export function interpolate(
  value: string, key: string, variable: (n: string) => string | undefined, at: Position | string,
): string {
  return value.replace(REF, (m, name: string | undefined) => {
    if (m === '$${') return '${';
    if (name === undefined) {
      throw new CliError('config-invalid', `invalid variable reference "${m}"`, 1, typeof at === 'string' ? { file: at } : { ...at });
    }
    const v = variable(name);
    if (v === undefined) {
      throw new CliError('env-var-missing', `environment variable "${name}" is not set (referenced by "${key}")`, 1, {
        hint: 'set it in the environment or in .env',
      });
    }
    return v;
  });
}

export interface EnvironmentOptions {
  project?: string;
  envfile?: string;
  /** Commands that do not need a project still read config.yaml when one is found. */
  cwd?: string;
  /** The process environment (default `process.env`). */
  env?: NodeJS.ProcessEnv;
}

/** Discovery and variables: everything but the keys of config.yaml. */
export interface ProjectSources {
  cwd: string;
  /** Where discovery started (`--project`, else the current directory). */
  start: string;
  projectDir: string | null;
  /** Absolute path of config.yaml, or null without a project. */
  configFile: string | null;
  /** The directory relative paths are resolved against: the project directory, else the current directory. */
  baseDir: string;
  /** Absolute path of the `.env` file that was read, or null. */
  envFile: string | null;
  /** The process environment, else `.env`; a variable defined in the process (even empty) keeps its value. */
  variable(name: string): string | undefined;
  /** Where `variable(name)` comes from: the source, and the variable (the incumbent's name of it, it may be). */
  variableSource(name: string): { origin: 'env' | 'envfile'; variable: string } | undefined;
  /** The incumbent's variables read so far in place of the engine's, each once, in the order first read. */
  fallbacks(): IncumbentFallback[];
  /** `envfile-invalid-line` warnings. */
  envProblems: Problem[];
}

/** Project discovery (cli.md §1.3) and the `.env` file (§2.3). Reading a project never creates anything. */
export function openProject(opts: EnvironmentOptions = {}): ProjectSources {
  const cwd = resolve(opts.cwd ?? process.cwd());
  const env = opts.env ?? process.env;
  const start = resolve(cwd, opts.project ?? '.');
  if (opts.project !== undefined && !isDirectory(start)) {
    throw new CliError('project-dir-not-found', `project directory "${shownPath(start, cwd)}" does not exist`, 1);
  }
  const projectDir = findProjectDir(start);
  const baseDir = projectDir ?? cwd;
  const envPath = resolve(baseDir, opts.envfile ?? '.env');
  const dot = loadEnvFile(envPath, shownPath(envPath, cwd), opts.envfile !== undefined, cwd);
  const raw = (name: string): string | undefined => env[name] ?? dot.vars.get(name);
  const used = new Map<string, string>();
  // The one place where a variable's name is resolved: every setting gets the incumbent's names of it this way.
  const resolved = (name: string) => {
    const r = resolveVariable(name, raw);
    if (r && r.from !== name && !used.has(name)) used.set(name, r.from);
    return r;
  };
  return {
    cwd,
    start,
    projectDir,
    configFile: projectDir ? join(projectDir, 'config.yaml') : null,
    baseDir,
    envFile: dot.found ? envPath : null,
    variable: (name) => resolved(name)?.value,
    variableSource(name) {
      const r = resolved(name);
      if (!r) return undefined;
      return { origin: env[r.from] !== undefined ? 'env' : 'envfile', variable: r.from };
    },
    fallbacks: () => [...used].map(([variable, from]) => ({ variable, from })),
    envProblems: dot.problems,
  };
}

/** config.yaml parsed with positions. */
export interface ConfigDocument {
  /** The path as messages show it. */
  file: string;
  text: string;
  doc: Document;
  /** The top-level mapping; null for an empty file. */
  root: YAMLMap | null;
  position(node: Node | null | undefined): Position;
}

/** Reads config.yaml: syntax errors are `config-parse-error`, a non-mapping document `config-invalid`. */
export function readConfigDocument(path: string, cwd = process.cwd()): ConfigDocument {
  const file = shownPath(path, cwd);
  const raw = readProjectFile(path, { cwd, utf8ErrorCode: 'config-parse-error' });
  if (raw === undefined) throw unreadable(path, 'the file no longer exists', cwd);
  const text = raw.replace(/^\uFEFF/, '');
  const bad = nonPrintableIndex(text);
  if (bad >= 0) throw new CliError('config-parse-error', nonPrintableMessage(text, bad), 1, { file, ...lineColumn(text, bad) });
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true, schema: 'core' });
  const at = (offset: number): Position => {
    const p = lines.linePos(offset);
    return { file, line: p.line, column: p.col };
  };
  const err = doc.errors[0];
  if (err) {
    const message = err.code === 'MULTIPLE_DOCS' ? 'expected a single YAML document' : err.message.split('\n')[0] ?? err.message;
    throw new CliError('config-parse-error', message, 1, at(err.pos[0]));
  }
  const position = (node: Node | null | undefined): Position => at(node?.range?.[0] ?? 0);
  const contents = doc.contents as Node | null;
  const isNull = contents === null || (isScalar(contents) && contents.value === null);
  if (!isNull && !isMap(contents)) throw new CliError('config-invalid', 'expected a mapping', 1, position(contents));
  return { file, text, doc, root: isMap(contents) ? (contents as YAMLMap) : null, position };
}

/** The value node of `key` in a mapping, aliases resolved; undefined when the key is absent. */
export function valueNode(doc: Document, map: YAMLMap | null, key: string): Node | null | undefined {
  const pair = map?.items.find((it) => isScalar(it.key) && String(it.key.value) === key);
  if (!pair) return undefined;
  const v = pair.value as Node | null;
  return isAlias(v) ? (v.resolve(doc) as Node | undefined) ?? null : v;
}

/** A scalar's text as written (`0123` stays "0123"); null/empty plain scalars are absent (undefined). */
export function scalarText(node: Node | null | undefined): string | undefined {
  if (!isScalar(node) || node.value === null || node.value === undefined) return undefined;
  return typeof node.value === 'string' ? node.value : node.source ?? String(node.value);
}

export function loadEnvironment(opts: EnvironmentOptions = {}): Environment {
  const src = openProject(opts);
  let config: ConfigDocument | null | undefined;
  return {
    projectDir: src.projectDir,
    configFile: src.configFile,
    variable: src.variable,
    configValue(key) {
      if (config === undefined) config = src.configFile ? readConfigDocument(src.configFile, src.cwd) : null;
      if (!config) return undefined;
      const node = configNode(config, config.root, key);
      const text = scalarText(node);
      if (text === undefined || !isScalar(node) || typeof node.value !== 'string') return text;
      return interpolate(text, key, src.variable, config.position(node));
    },
    warnings: src.envProblems.map((p) => p.message),
    fallbacks: src.fallbacks,
  };
}

/** The start-up line naming the incumbent's variables that were read, or null when none was. */
export function fallbackMessage(used: readonly IncumbentFallback[]): string | null {
  if (used.length === 0) return null;
  return `Using the incumbent's variables: ${used.map((f) => `${f.from} for ${f.variable}`).join(', ')}`;
}

/** The value node of a config.yaml key, else of the first of the incumbent's keys for it (CONFIG_KEY_ALIASES) present. */
export function configNode(config: ConfigDocument, map: YAMLMap | null, key: string): Node | null | undefined {
  const own = valueNode(config.doc, map, key);
  if (own !== undefined || map !== config.root) return own;
  for (const alias of CONFIG_KEY_ALIASES[key] ?? []) {
    const node = valueNode(config.doc, map, alias);
    if (node !== undefined) return node;
  }
  return undefined;
}

/** flag > variable (empty = unset) > config.yaml key. */
export function setting(env: Environment, flag: string | undefined, variable: string, configKey?: string): string | undefined {
  if (flag !== undefined) return flag;
  const v = env.variable(variable);
  if (v !== undefined && v !== '') return v;
  return configKey ? env.configValue(configKey) : undefined;
}
