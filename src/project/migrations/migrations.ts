import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CliError } from '../../errors.js';
import type { BulkOperation, EngineClient } from '../../client/engine-client.js';
import { EngineRequestError } from '../../client/errors.js';
import { caretLines } from '../source-lines.js';
import { isObject } from '../../metadata/json.js';
import { shownPath } from '../config/environment.js';
import { projectFileSize, readProjectFile, statProjectPath, unreadable } from '../project-file.js';

/**
 * SQL migrations of a config version 2 project (cli.md §5.13–§5.15): `<migrations_directory>/<version>_<name>/` with
 * optional `up.sql` and `down.sql`, and their state in `engine_catalog.schema_migrations` (engine-api.md §3.2), which is
 * read and written only through `run_sql`.
 */

/** The name `migrate create` and `squash` give a migration (cli.md §5.13). */
export const MIGRATION_NAME = /^[A-Za-z0-9_-]+$/;
/** Versions are stored as `bigint`: the largest one PostgreSQL accepts. */
export const MAX_VERSION = 9223372036854775807n;

/**
 * A migration directory: `<version>_<name>`, whatever the name holds. Real projects have names with spaces and other
 * characters `migrate create` would not write (`1700000000000_user prefs or default`); skipping them would skip SQL.
 */
const MIGRATION_DIR = /^(\d+)_(.+)$/s;
const FLAT_FILE = /^\d+_.+\.(up|down)\.(sql|ya?ml)$/;
const UPGRADE_HINT = "run 'engine migrate config'";

export type Direction = 'up' | 'down';

export interface LocalMigration {
  version: bigint;
  name: string;
  /** Absolute paths; a file is null when the directory does not hold it. */
  dir: string;
  up: string | null;
  down: string | null;
}

export interface AppliedMigration {
  version: bigint;
  name: string;
  appliedAt: string | null;
}

export interface Warning {
  code: string;
  message: string;
}

// A link loop or broken link among the migrations is `unreadable-project-file`, never skipped as absent.
const isDir = (p: string) => statProjectPath(p)?.isDirectory() ?? false;
const isFile = (p: string) => statProjectPath(p)?.isFile() ?? false;

const invalid = (path: string, message: string, hint?: string) =>
  new CliError('migration-invalid', `${shownPath(path)}: ${message}`, 1, hint ? { hint } : {});

/** Names of a directory's entries, sorted by code point; none when it does not exist. */
function entries(dir: string): string[] {
  if (statProjectPath(dir) === undefined) return [];
  if (!isDir(dir)) throw invalid(dir, 'the migrations directory is not a directory');
  return readdirSync(dir).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * The local migrations, ascending by version (cli.md §5.14 "Local migrations"). Fails with `migration-invalid` on the
 * first (by entry name) version 1 leftover — `up.yaml`/`down.yaml`, or a flat `<v>_<name>.<up|down>.<sql|yaml>` file —, on
 * a version repeated under two names (`1_a` and `0001_b` are both version 1), and on a version beyond `bigint`.
 * Other entries are skipped with a warning, except dot-entries (`.gitkeep`, `.DS_Store`), skipped silently.
 */
export function readMigrations(dir: string): { migrations: LocalMigration[]; warnings: Warning[] } {
  const migrations: LocalMigration[] = [];
  const warnings: Warning[] = [];
  const seen = new Map<bigint, string>();
  for (const entry of entries(dir)) {
    const path = join(dir, entry);
    if (entry.startsWith('.')) continue;
    const m = MIGRATION_DIR.exec(entry);
    if (m && isDir(path)) {
      for (const yaml of ['up.yaml', 'down.yaml', 'up.yml', 'down.yml']) {
        if (existsSync(join(path, yaml))) {
          throw invalid(join(path, yaml), 'config version 2 migrations cannot contain up.yaml or down.yaml', UPGRADE_HINT);
        }
      }
      const version = BigInt(m[1] as string);
      if (version > MAX_VERSION) throw invalid(path, `migration version ${version} is larger than ${MAX_VERSION}`);
      if (seen.has(version)) throw invalid(path, `duplicate migration version ${version}`);
      seen.set(version, entry);
      const file = (f: string) => (projectFileSize(join(path, f)) !== undefined ? join(path, f) : null);
      migrations.push({ version, name: m[2] as string, dir: path, up: file('up.sql'), down: file('down.sql') });
      continue;
    }
    // The flat files of config version 1; `engine migrate config` moves them into directories.
    if (FLAT_FILE.test(entry) && isFile(path)) throw invalid(path, 'flat migration files are not supported', UPGRADE_HINT);
    warnings.push({
      code: 'migration-entry-skipped',
      message: `${shownPath(path)}: not a migration directory (expected <version>_<name>/ with up.sql and down.sql); skipped`,
    });
  }
  migrations.sort((a, b) => (a.version < b.version ? -1 : a.version > b.version ? 1 : 0));
  return { migrations, warnings };
}

/**
 * The version of a new migration (cli.md §5.13): the current Unix time in milliseconds, or the highest existing
 * version + 1 when that is not larger. Every `<digits>_…` entry counts, valid or not, so `create` never fails on
 * (nor reuses the version of) an entry that `apply` would reject.
 */
export function nextVersion(dir: string, now: number = Date.now()): bigint {
  let highest = -1n;
  for (const entry of entries(dir)) {
    const m = /^(\d+)_/.exec(entry);
    if (m) {
      const v = BigInt(m[1] as string);
      if (v > highest) highest = v;
    }
  }
  const time = BigInt(now);
  return time > highest ? time : highest + 1n;
}

/**
 * Creates `<dir>/<version>_<name>/` with `up.sql` (`upSql`) and `down.sql` (cli.md §5.13). The files are written into a
 * temporary sibling that is then renamed, so an interrupted run leaves no half-written migration.
 */
export function createMigration(dir: string, name: string, upSql: string, now?: number, downSql?: string): { version: bigint; directory: string } {
  const version = nextVersion(dir, now);
  if (version > MAX_VERSION) throw invalid(dir, `migration version ${version} is larger than ${MAX_VERSION}`);
  mkdirSync(dir, { recursive: true });
  const directory = join(dir, `${version}_${name}`);
  const tmp = mkdtempSync(join(dir, `.${version}_${name}.tmp-`));
  try {
    writeFileSync(join(tmp, 'up.sql'), upSql);
    writeFileSync(join(tmp, 'down.sql'), downSql ?? `-- Write the down migration for ${name} here.\n`);
    renameSync(tmp, directory);
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
  return { version, directory };
}

// ---------------------------------------------------------------------------------------------------------------------
// State (engine_catalog.schema_migrations)

/** The state query (cli.md §1.5, §5.14): `read_only`, so the client retries it like any read. */
export const STATE_QUERY = 'SELECT version::text, name, applied_at FROM engine_catalog.schema_migrations ORDER BY version';
const TABLE_MISSING_QUERY = "SELECT to_regclass('engine_catalog.schema_migrations') IS NULL";
/** The table as the engine creates it at start-up (engine-api.md §3.2); a no-op where it exists. */
export const CREATE_STATE_TABLE = `CREATE SCHEMA IF NOT EXISTS engine_catalog;
CREATE TABLE IF NOT EXISTS engine_catalog.schema_migrations (
  version bigint PRIMARY KEY,
  name text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now())`;

type Client = Pick<EngineClient, 'runSql' | 'bulk'>;

/**
 * The applied migrations, ascending, and whether the state table exists. A missing table (`to_regclass(…)` is null)
 * reads as empty: only when the state query fails is that checked, so the usual case costs one read-only request.
 */
export async function readState(client: Client): Promise<{ applied: AppliedMigration[]; tableExists: boolean }> {
  let result;
  try {
    result = await client.runSql(STATE_QUERY, { readOnly: true });
  } catch (e) {
    if (!(e instanceof EngineRequestError) || e.engineError?.code !== 'postgres-error') throw e;
    const missing = await client.runSql(TABLE_MISSING_QUERY, { readOnly: true });
    if (missing.result_type === 'TuplesOk' && missing.result[1]?.[0] === 't') return { applied: [], tableExists: false };
    throw e;
  }
  const rows = result.result_type === 'TuplesOk' ? result.result.slice(1) : [];
  const applied = rows.map(([version, name, appliedAt]) => {
    if (typeof version !== 'string' || !/^\d+$/.test(version)) {
      throw new CliError('invalid-response', `unexpected row in engine_catalog.schema_migrations: version ${JSON.stringify(version)}`, 1);
    }
    return { version: BigInt(version), name: name ?? '', appliedAt: appliedAt ?? null };
  });
  return { applied, tableExists: true };
}

/**
 * A migration name as a SQL text expression (run_sql takes no parameters). A name of `^[A-Za-z0-9_-]+$` is a plain
 * literal: nothing in it can end the literal. Any other name (a directory may be called anything) is sent as the hex
 * of its UTF-8 bytes, decoded by PostgreSQL: only hex digits reach the SQL text, whatever the name and whatever
 * standard_conforming_strings says about backslashes.
 */
export function sqlName(name: string): string {
  if (MIGRATION_NAME.test(name)) return `'${name}'`;
  return `convert_from(decode('${Buffer.from(name, 'utf8').toString('hex')}', 'hex'), 'UTF8')`;
}

/** A version as a SQL integer literal: a bigint in 0…2^63-1 printed in decimal, digits only. */
function sqlVersion(version: bigint): string {
  if (version < 0n || version > MAX_VERSION) throw new Error(`invalid migration version ${version}`);
  return version.toString();
}

export const stateInsert = (version: bigint, name: string): string =>
  `INSERT INTO engine_catalog.schema_migrations (version, name) VALUES (${sqlVersion(version)}, ${sqlName(name)})`;
export const stateDelete = (version: bigint): string =>
  `DELETE FROM engine_catalog.schema_migrations WHERE version = ${sqlVersion(version)}`;

// ---------------------------------------------------------------------------------------------------------------------
// Plans and runs

/** What `migrate apply` was asked for (cli.md §5.14). */
export type Selection =
  | { kind: 'up'; count: number | null }
  | { kind: 'down'; count: number | 'all' }
  | { kind: 'version'; version: bigint; direction: Direction }
  /** Up or down to exactly `version`: pending ones up to it applied, applied ones above it rolled back. */
  | { kind: 'goto'; version: bigint };

export interface PlanOptions {
  /** Only the state rows change (the incumbent's `--skip-execution`): no SQL runs, so down needs no files. */
  skipExecution?: boolean;
}

export interface Step {
  migration: { version: bigint; name: string };
  direction: Direction;
  /** The SQL file run (absolute), or null when the migration has none for this direction (only up: see plan). */
  file: string | null;
  /** The file's content; null when absent. */
  sql: string | null;
  /** A pending migration older than the latest applied one. */
  outOfOrder: boolean;
}

export const byVersion = (a: { version: bigint }, b: { version: bigint }) => (a.version < b.version ? -1 : a.version > b.version ? 1 : 0);

function readSql(path: string | null): string | null {
  if (path === null) return null;
  const text = readProjectFile(path);
  if (text === undefined) throw unreadable(path, 'the file no longer exists');
  return text;
}

/**
 * The migrations to run, in order, decided before anything is sent: every error (`migration-not-found`,
 * `migration-already-applied`, `migration-not-applied`, `migration-files-missing`, unreadable files) comes first.
 * Up runs `up.sql`, or only records the state row when there is none (the file is optional, §5.14). Down needs the
 * migration's directory and its `down.sql`: deleting the state row of a migration whose effect cannot be undone
 * would leave the database claiming a state it is not in, so without them it is `migration-files-missing`.
 */
export function plan(local: LocalMigration[], applied: AppliedMigration[], selection: Selection, dir: string, opts: PlanOptions = {}): Step[] {
  const steps = planSteps(local, applied, selection, dir, opts);
  return opts.skipExecution ? steps.map((s) => ({ ...s, file: null, sql: null })) : steps;
}

function planSteps(local: LocalMigration[], applied: AppliedMigration[], selection: Selection, dir: string, opts: PlanOptions): Step[] {
  const appliedSet = new Set(applied.map((a) => a.version));
  const localBy = new Map(local.map((m) => [m.version, m]));
  const latest = applied.reduce<bigint | null>((max, a) => (max === null || a.version > max ? a.version : max), null);
  const up = (m: LocalMigration): Step => ({
    migration: m, direction: 'up', file: m.up, sql: readSql(m.up), outOfOrder: latest !== null && m.version < latest,
  });
  const down = (version: bigint): Step => {
    const m = localBy.get(version);
    if (opts.skipExecution) {
      const name = m?.name ?? applied.find((a) => a.version === version)?.name ?? '';
      return { migration: { version, name }, direction: 'down', file: null, sql: null, outOfOrder: false };
    }
    if (!m || m.down === null) {
      throw new CliError('migration-files-missing', `cannot roll back ${version}: no local files for this version`, 1);
    }
    return { migration: m, direction: 'down', file: m.down, sql: readSql(m.down), outOfOrder: false };
  };
  if (selection.kind === 'up') {
    const pending = local.filter((m) => !appliedSet.has(m.version));
    return (selection.count === null ? pending : pending.slice(0, selection.count)).map(up);
  }
  if (selection.kind === 'down') {
    const newest = [...applied].sort(byVersion).reverse();
    return (selection.count === 'all' ? newest : newest.slice(0, selection.count)).map((a) => down(a.version));
  }
  const v = selection.version;
  const m = localBy.get(v);
  if (selection.kind === 'goto') {
    if (!m && !appliedSet.has(v)) throw new CliError('migration-not-found', `migration ${v} not found in ${shownPath(dir)}/`, 1);
    const rollBack = [...applied].sort(byVersion).reverse().filter((a) => a.version > v).map((a) => down(a.version));
    const forward = local.filter((l) => !appliedSet.has(l.version) && l.version <= v).map(up);
    return [...rollBack, ...forward];
  }
  if (selection.direction === 'up') {
    if (!m) throw new CliError('migration-not-found', `migration ${v} not found in ${shownPath(dir)}/`, 1);
    if (appliedSet.has(v)) throw new CliError('migration-already-applied', `migration ${v} is already applied`, 1);
    return [up(m)];
  }
  if (!appliedSet.has(v)) {
    if (!m) throw new CliError('migration-not-found', `migration ${v} not found in ${shownPath(dir)}/`, 1);
    throw new CliError('migration-not-applied', `migration ${v} is not applied`, 1);
  }
  return [down(v)];
}

/**
 * One migration's `bulk` (one transaction, engine-api.md §4.8.7): its SQL file — skipped when empty or only
 * whitespace — then the insert (up) or delete (down) of its state row. A failure rolls back both.
 */
export function stepOperations(step: Step): BulkOperation[] {
  const ops: BulkOperation[] = [];
  if (step.sql !== null && step.sql.trim() !== '') ops.push({ type: 'run_sql', args: { sql: step.sql } });
  const { version, name } = step.migration;
  ops.push({ type: 'run_sql', args: { sql: step.direction === 'up' ? stateInsert(version, name) : stateDelete(version) } });
  return ops;
}

/** The PostgreSQL message, hint and error position of a `postgres-error` (engine-api.md §4.1.1), when the engine sent them. */
function postgresDetail(internal: unknown): { message?: string; hint?: string; position?: number } {
  const err = isObject(internal) ? internal['error'] : undefined;
  if (!isObject(err)) return {};
  const out: { message?: string; hint?: string; position?: number } = {};
  if (typeof err['message'] === 'string' && err['message'] !== '') out.message = err['message'];
  if (typeof err['hint'] === 'string' && err['hint'] !== '') out.hint = err['hint'];
  if (typeof err['position'] === 'number' && Number.isInteger(err['position']) && err['position'] > 0) out.position = err['position'];
  return out;
}

/**
 * Line and column (1-based) of PostgreSQL's error cursor, which counts characters (code points) of the statement as
 * sent, from 1. The tool sends a file's text as it is, except for a BEGIN/COMMIT wrapper blanked in place
 * (sql.ts), so the cursor is a position in the file. Columns are in characters too.
 */
export function sqlPosition(sql: string, position: number): { line: number; column: number; text: string } | null {
  const chars = [...sql];
  if (position > chars.length + 1) return null;
  const before = chars.slice(0, position - 1).join('');
  const line = before.split('\n').length;
  const start = before.lastIndexOf('\n') + 1;
  const column = [...before.slice(start)].length + 1;
  const end = sql.indexOf('\n', start);
  return { line, column, text: sql.slice(start, end === -1 ? undefined : end).replace(/\r$/, '') };
}

/** `migration-failed` for an engine rejection of a step's bulk; other failures (network, timeout…) are returned as is. */
export function stepFailure(step: Step, e: unknown, dir: string): unknown {
  if (!(e instanceof EngineRequestError) || e.code !== 'server-error' || !e.engineError) return e;
  const { error, code, path, internal } = e.engineError;
  return migrationFailed(step, dir, { error, code, path }, postgresDetail(internal));
}

/**
 * `migration-failed` at the file (PostgreSQL's cursor as line and column), from the engine's rejection (error, code,
 * path). A step run straight on an ephemeral engine's database gets the one the engine would have answered.
 */
export function migrationFailed(step: Step, dir: string, r: { error: string; code: string; path: string }, pg: ReturnType<typeof postgresDetail>): CliError {
  const { version, name } = step.migration;
  const file = shownPath(step.file ?? join(dir, `${version}_${name}`));
  // The engine's error for SQL is the generic `query execution failed`; PostgreSQL's own message follows it.
  const error = pg.message ? `${r.error}: ${pg.message}` : r.error;
  const at = pg.position !== undefined && step.sql !== null ? sqlPosition(step.sql, pg.position) : null;
  const failure = new CliError('migration-failed', `migration ${version}_${name} failed: ${error} [${r.code}]`, 1, {
    ...(at ? { file, line: at.line, column: at.column } : { file }), path: r.path, ...(pg.hint ? { hint: pg.hint } : {}),
  });
  // The SQL line and a caret under the cursor, printed under the error (text mode).
  return at ? Object.assign(failure, { excerpt: caretLines(at.text, at.column) }) : failure;
}

/** Runs one step as its own bulk; throws `migration-failed` (or the transport error) on failure. */
export async function runStep(client: Client, step: Step, dir: string): Promise<void> {
  try {
    await client.bulk(stepOperations(step));
  } catch (e) {
    throw stepFailure(step, e, dir);
  }
}
