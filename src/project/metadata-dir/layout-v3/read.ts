import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { shownPath } from '../../config/environment.js';
import type { Position, Problems } from '../../problems.js';
import { readProjectFile, statProjectPath, unreadable, unreadableReason } from '../../project-file.js';
import { checkKeys, Ctx, got, isObj, list, mapping, present, string, type Obj } from '../../validate/core.js';
import { parseYaml, type YamlSource } from '../../yaml-source.js';
import { loadFile, viewOf, type IncludeContext } from './includes.js';
import { HONOURED_CONNECTION_KEYS, POOL_SETTING_KEYS, poolOfConnectionInfo } from './pool-settings.js';

/**
 * Reading the config version 3 layout (the incumbent's current one): `databases/databases.yaml` lists the databases,
 * each with its `tables` and `functions`, usually `!include`d from one file per table under `databases/<db>/tables/`.
 * The other files (`actions.graphql`, `actions.yaml`, `cron_triggers.yaml`, …) are those of version 2, in the same
 * place. engine serves one database: a second entry is an error until several are supported.
 */

export const DATABASES_DIR = 'databases';
export const DATABASES_FILE = 'databases.yaml';

/** Keys of a database entry that hold features engine does not have yet: an error when they hold anything. */
const UNSUPPORTED_KEYS: Record<string, string> = {
  customization: 'database customization (GraphQL root field and type name prefixes)',
  query_tags: 'query tags',
  health_check: 'database health checks',
  logical_models: 'logical models',
  native_queries: 'native queries',
  stored_procedures: 'stored procedures',
};
const KNOWN_KEYS = ['name', 'kind', 'configuration', 'tables', 'functions', ...Object.keys(UNSUPPORTED_KEYS)];

const HINT = 'remove it from the metadata directory, or keep it on a branch until engine supports it';

export interface LayoutV3Sources {
  version?: YamlSource;
  tables?: YamlSource;
  functions?: YamlSource;
  /** The database's name (`default` when the file names none). */
  database: string;
}

/** Whether a metadata directory (given without a project, e.g. `metadata diff --from`) is in the version 3 layout. */
export function isLayoutV3(dir: string, cwd = process.cwd()): boolean {
  const text = readProjectFile(join(dir, 'version.yaml'), { cwd });
  return text !== undefined && /^version:[ \t]*3[ \t]*(#.*)?$/m.test(text);
}

/** Every regular file under `databases/` (absolute, sorted); hidden entries are skipped, as everywhere. */
export function databaseFiles(dir: string, cwd = process.cwd()): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    let names: string[];
    try {
      names = readdirSync(d).sort();
    } catch (e) {
      throw unreadable(d, unreadableReason(e), cwd);
    }
    for (const n of names) {
      if (n.startsWith('.')) continue;
      const p = join(d, n);
      const st = statProjectPath(p, cwd);
      if (st?.isDirectory()) walk(p);
      else if (st) out.push(p);
    }
  };
  if (statProjectPath(join(dir, DATABASES_DIR), cwd)?.isDirectory()) walk(join(dir, DATABASES_DIR));
  return out;
}

/**
 * Reads `version.yaml` and `databases/` (with every include), checks what only this layout has, and returns the
 * sources validation walks like those of version 2. `sources` receives every file parsed.
 */
export function readLayoutV3(dir: string, cwd: string, problems: Problems, sources: Map<string, YamlSource>): LayoutV3Sources {
  const version = readVersion(dir, cwd, problems);
  if (version) sources.set('version', version);
  const ctx: IncludeContext = { metadataDir: dir, cwd, problems, read: new Set(), sources, failed: [] };
  const out: LayoutV3Sources = { database: 'default' };
  const tree = loadFile(join(dir, DATABASES_DIR, DATABASES_FILE), ctx);
  const db = tree ? viewOf(tree, []) : undefined;
  if (tree && db && db.value !== undefined) {
    const c = new Ctx(db, problems, 'databases');
    const entry = firstDatabase(c, db.value);
    if (entry) {
      out.database = typeof entry['name'] === 'string' ? entry['name'] : out.database;
      if (present(entry['tables'])) out.tables = viewOf(tree, [0, 'tables']);
      if (present(entry['functions'])) out.functions = viewOf(tree, [0, 'functions']);
    }
  }
  unread(dir, cwd, ctx.read, problems);
  if (ctx.failed.length > 0) afterValidation.set(problems, ctx.failed);
  return out;
}

/** Include failures by problem list: their value is missing, which validation would report a second time. */
const afterValidation = new WeakMap<Problems, Position[]>();

/** Drops the problems validation found at a failed include (the include error says it all). */
export function dropShadowed(problems: Problems): void {
  const failed = afterValidation.get(problems);
  if (!failed) return;
  const at = new Set(failed.map((p) => `${p.file}:${p.line}:${p.column}`));
  for (let i = problems.list.length - 1; i >= 0; i--) {
    const p = problems.list[i];
    if (p && !p.code.startsWith('include-') && at.has(`${p.file ?? ''}:${p.line ?? 0}:${p.column ?? 0}`)) problems.list.splice(i, 1);
  }
}

function readVersion(dir: string, cwd: string, problems: Problems): YamlSource | undefined {
  const path = join(dir, 'version.yaml');
  const text = readProjectFile(path, { cwd, utf8ErrorCode: 'yaml-parse-error' });
  if (text === undefined) return undefined;
  const src = parseYaml(shownPath(path, cwd), text, problems);
  if (!src || src.value === undefined) return src ?? undefined;
  const c = new Ctx(src, problems, 'version');
  const o = mapping(c, src.value, []);
  if (!o) return src;
  checkKeys(c, o, [], 'version.yaml', ['version'], ['version']);
  const v = o['version'];
  if (present(v) && v !== 3) {
    c.error('metadata-version-unsupported', `unsupported metadata version ${typeof v === 'number' ? String(v) : JSON.stringify(v)}: expected 3 (config.yaml says version 3)`, ['version']);
  }
  return src;
}

/** The one database engine serves; every further entry is an error at its position. */
function firstDatabase(c: Ctx, value: unknown): Obj | undefined {
  const items = list(c, value, []);
  if (!items || items.length === 0) return undefined;
  items.slice(1).forEach((x, i) => {
    const name = isObj(x) && typeof x['name'] === 'string' ? `"${x['name']}"` : `#${i + 2}`;
    c.error('feature-not-supported', `engine does not support several databases yet: database ${name} is a second one; engine serves one database; ${HINT}`, [i + 1]);
  });
  const o = mapping(c, items[0], [0]);
  if (!o) return undefined;
  const thing = typeof o['name'] === 'string' ? `database "${o['name']}"` : 'database #1';
  checkKeys(c, o, [0], thing, KNOWN_KEYS, ['name']);
  if (present(o['name'])) string(c, o['name'], [0, 'name'], true);
  const kind = o['kind'];
  if (present(kind) && kind !== 'postgres') {
    if (typeof kind !== 'string') c.invalid('a string', kind, [0, 'kind']);
    else c.error('feature-not-supported', `engine does not support databases of kind "${kind}" yet (only postgres); ${HINT}`, [0, 'kind']);
  }
  for (const [key, feature] of Object.entries(UNSUPPORTED_KEYS)) {
    if (holdsSomething(o[key])) c.error('feature-not-supported', `engine does not support ${feature} yet; ${HINT}`, [0, key], true);
  }
  configuration(c, o['configuration'], thing);
  return o;
}

const holdsSomething = (v: unknown): boolean => present(v) && !(Array.isArray(v) && v.length === 0) && !(isObj(v) && Object.keys(v).length === 0);

/**
 * The connection of the database is the one `engine serve` is given (`--database-url`): `database_url` says which
 * one and is kept as written. Its pool (`pool_settings`, `use_prepared_statements`) is the pool `engine serve` uses
 * where no flag or variable sets one (pool-settings.ts); the other settings (isolation level, read replicas, retries,
 * …) have no effect here, which a warning says rather than ignoring them in silence. Export keeps all of them.
 */
function configuration(c: Ctx, v: unknown, thing: string): void {
  if (!present(v)) return;
  const path = [0, 'configuration'];
  const o = mapping(c, v, path);
  if (!o) return;
  const ignored = (key: string, at: (string | number)[]) =>
    c.warn('database-setting-ignored', `setting "${key}" of ${thing} has no effect: engine uses the database it is started with (engine serve --database-url); the setting is kept as written`, at, true);
  for (const k of Object.keys(o)) if (k !== 'connection_info') ignored(k, [...path, k]);
  const info = o['connection_info'];
  if (!present(info)) return;
  const infoPath = [...path, 'connection_info'];
  if (!isObj(info)) return void c.error('metadata-invalid', `expected a mapping for "connection_info", got ${got(info)}`, infoPath);
  for (const k of Object.keys(info)) if (k !== 'database_url' && !HONOURED_CONNECTION_KEYS.includes(k)) ignored(`connection_info.${k}`, [...infoPath, k]);
  const ps = info['pool_settings'];
  if (present(ps) && !isObj(ps)) c.error('metadata-invalid', `expected a mapping for "pool_settings", got ${got(ps)}`, [...infoPath, 'pool_settings']);
  else if (isObj(ps)) for (const k of Object.keys(ps)) if (!(k in POOL_SETTING_KEYS)) ignored(`connection_info.pool_settings.${k}`, [...infoPath, 'pool_settings', k]);
  poolOfConnectionInfo(info, (key, reason) => {
    const at = key.startsWith('pool_settings.') ? [...infoPath, 'pool_settings', key.slice('pool_settings.'.length)] : [...infoPath, key];
    c.error('metadata-invalid', `invalid value for "${key}" of ${thing}: ${reason}`, at);
  });
}

/** Files under `databases/` that no include reaches are not read: a warning each, as for unknown files (issue 12). */
function unread(dir: string, cwd: string, read: Set<string>, problems: Problems): void {
  for (const f of databaseFiles(dir, cwd)) {
    if (read.has(f)) continue;
    const name = relative(dir, f).split(sep).join('/');
    problems.warn('metadata-file-ignored', `${name} is not included from ${DATABASES_DIR}/${DATABASES_FILE}; it is ignored`, { file: shownPath(f, cwd), line: 1, column: 1 });
  }
}
