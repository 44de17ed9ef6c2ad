import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { parseDocument, isMap, isScalar } from 'yaml';
import { CliError } from '../errors.js';
import { loadEnvFile } from './dotenv.js';

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
}

/** Paths in messages: relative to the current directory when below it, else absolute (cli.md conventions). */
export function shownPath(p: string, cwd = process.cwd()): string {
  const rel = relative(cwd, p);
  if (rel && !rel.startsWith('..') && !isAbsolute(rel)) return rel.split(sep).join('/');
  return rel === '' ? '.' : p.split(sep).join('/');
}

export function findProjectDir(start: string): string | null {
  let dir = resolve(start);
  for (;;) {
    if (existsSync(join(dir, 'config.yaml'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

const REF = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$\{[^}]*\}?/g;

export function interpolate(value: string, key: string, variable: (n: string) => string | undefined, file: string): string {
  return value.replace(REF, (m, name: string | undefined) => {
    if (m === '$${') return '${';
    if (name === undefined) throw new CliError('config-invalid', `invalid variable reference "${m}"`, 1, { file });
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
}

export function loadEnvironment(opts: EnvironmentOptions = {}): Environment {
  const cwd = opts.cwd ?? process.cwd();
  const start = resolve(cwd, opts.project ?? '.');
  if (opts.project !== undefined && !(existsSync(start) && statSync(start).isDirectory())) {
    throw new CliError('project-dir-not-found', `project directory "${opts.project}" does not exist`, 1);
  }
  const projectDir = findProjectDir(start);
  const base = projectDir ?? cwd;
  const envPath = resolve(base, opts.envfile ?? '.env');
  const envFile = loadEnvFile(envPath, shownPath(envPath, cwd), opts.envfile !== undefined);
  const variable = (name: string): string | undefined => process.env[name] ?? envFile.vars.get(name);
  const configFile = projectDir ? join(projectDir, 'config.yaml') : null;
  let config: Map<string, string> | null = null;
  const readConfig = (): Map<string, string> => {
    if (config) return config;
    config = new Map();
    if (!configFile) return config;
    const doc = parseDocument(readFileSync(configFile, 'utf8'));
    if (doc.errors.length > 0) {
      const err = doc.errors[0];
      const pos = err?.linePos?.[0];
      throw new CliError('config-parse-error', `${shownPath(configFile, cwd)}:${pos?.line ?? 1}:${pos?.col ?? 1}: ${err?.message ?? ''}`, 1);
    }
    if (isMap(doc.contents)) {
      for (const item of doc.contents.items) {
        if (isScalar(item.key) && isScalar(item.value)) {
          // String keys take a scalar's source text: `admin_secret: 0123` is "0123".
          config.set(String(item.key.value), item.value.source ?? String(item.value.value));
        }
      }
    }
    return config;
  };
  return {
    projectDir,
    configFile,
    variable,
    configValue(key) {
      const raw = readConfig().get(key);
      return raw === undefined ? undefined : interpolate(raw, key, variable, configFile ?? '');
    },
    warnings: envFile.warnings,
  };
}

/** flag > variable (empty = unset) > config.yaml key. */
export function setting(env: Environment, flag: string | undefined, variable: string, configKey?: string): string | undefined {
  if (flag !== undefined) return flag;
  const v = env.variable(variable);
  if (v !== undefined && v !== '') return v;
  return configKey ? env.configValue(configKey) : undefined;
}
