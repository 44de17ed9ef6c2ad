import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CliError } from '../../errors.js';
import type { EngineClient } from '../../client/engine-client.js';
import { shownPath } from '../config/environment.js';
import { readProjectFile } from '../project-file.js';
import {
  CREATE_STATE_TABLE, createMigration, MAX_VERSION, readMigrations, readState, stateDelete, stateInsert,
  type AppliedMigration, type LocalMigration,
} from './migrations.js';

/** `migrate delete`, `migrate squash` and `migrate create --from-server` (issue 19 items 4 and 6). */

type Client = Pick<EngineClient, 'runSql' | 'bulk'>;

const notFound = (v: bigint, dir: string) => new CliError('migration-not-found', `migration ${v} not found in ${shownPath(dir)}/`, 1);

/** What `migrate delete --version V` would remove: the local directory and the state row, whichever exist. */
export async function deletionOf(client: Client, dir: string, version: bigint): Promise<{ local: LocalMigration | null; applied: AppliedMigration | null; stateTable: boolean }> {
  const local = readMigrations(dir).migrations.find((m) => m.version === version) ?? null;
  const state = await readState(client);
  const applied = state.applied.find((a) => a.version === version) ?? null;
  if (!local && !applied) throw notFound(version, dir);
  return { local, applied, stateTable: state.tableExists };
}

/**
 * Removes a migration: its state row first (so a failure there leaves the files), then its directory. The database
 * itself is not touched: its effect stays, as with the incumbent.
 */
export async function deleteMigration(client: Client, target: { local: LocalMigration | null; applied: AppliedMigration | null }): Promise<void> {
  if (target.applied) await client.runSql(stateDelete(target.applied.version));
  if (target.local) rmSync(target.local.dir, { recursive: true, force: true });
}

export interface SquashResult {
  version: bigint;
  name: string;
  directory: string;
  squashed: { version: bigint; name: string }[];
  applied: boolean;
}

const cmp = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);

/** The SQL of a file for the squashed migration, each part headed by where it came from. */
function part(m: LocalMigration, file: string | null): string {
  const text = file === null ? '' : (readProjectFile(file) ?? '').trim();
  return text === '' ? '' : `-- from ${m.version}_${m.name}\n${text}\n`;
}

/**
 * Squashes the local migrations from `from` to `to` (default: the latest) into one migration with the highest
 * version of the range, so it sorts where the range ended: up.sql is their up.sql in order, down.sql their down.sql in
 * reverse. The range must be all applied or all pending: a mix would leave the database half-way through the
 * squashed migration. The new migration is first written beside the others (a dot-directory, which is never read as
 * a migration); then, for an applied range, the state rows are replaced in one transaction; only then are the
 * originals removed and the new directory renamed into place.
 */
export async function squashMigrations(client: Client, dir: string, from: bigint, to: bigint | null, name: string): Promise<SquashResult> {
  const local = readMigrations(dir).migrations;
  if (!local.some((m) => m.version === from)) throw notFound(from, dir);
  if (to !== null && !local.some((m) => m.version === to)) throw notFound(to, dir);
  const range = local.filter((m) => m.version >= from && (to === null || m.version <= to));
  if (range.length < 2) throw new CliError('squash-invalid', `nothing to squash: the range ${from}${to !== null ? `..${to}` : '..'} holds ${range.length} migration(s)`, 1);
  const state = await readState(client);
  const appliedSet = new Set(state.applied.map((a) => a.version));
  const applied = range.filter((m) => appliedSet.has(m.version));
  if (applied.length !== 0 && applied.length !== range.length) {
    const first = range.find((m) => appliedSet.has(m.version) !== appliedSet.has(range[0]!.version))!;
    throw new CliError('squash-invalid',
      `cannot squash across applied and pending migrations: ${range[0]!.version} is ${appliedSet.has(range[0]!.version) ? 'applied' : 'pending'}, ${first.version} is ${appliedSet.has(first.version) ? 'applied' : 'pending'}`,
      1, { hint: "apply the pending ones first ('engine migrate apply'), or choose a range on one side" });
  }
  const version = range.map((m) => m.version).sort(cmp).at(-1)!;
  if (version > MAX_VERSION) throw new CliError('migration-invalid', `migration version ${version} is too large`, 1);
  const up = range.map((m) => part(m, m.up)).filter((t) => t !== '').join('\n');
  const down = [...range].reverse().map((m) => part(m, m.down)).filter((t) => t !== '').join('\n');
  const tmp = mkdtempSync(join(dir, `.${version}_${name}.squash-`));
  const directory = join(dir, `${version}_${name}`);
  try {
    writeFileSync(join(tmp, 'up.sql'), up);
    writeFileSync(join(tmp, 'down.sql'), down);
    if (applied.length > 0) {
      if (!state.tableExists) await client.runSql(CREATE_STATE_TABLE);
      await client.bulk([
        ...range.map((m) => ({ type: 'run_sql', args: { sql: stateDelete(m.version) } })),
        { type: 'run_sql', args: { sql: stateInsert(version, name) } },
      ]);
    }
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
  for (const m of range) rmSync(m.dir, { recursive: true, force: true });
  renameSync(tmp, directory);
  return { version, name, directory, squashed: range.map((m) => ({ version: m.version, name: m.name })), applied: applied.length > 0 };
}

/** The schemas to dump: each `--schema`, default `public`. The engine's own catalog is never part of a migration. */
export function dumpArguments(schemas: string[]): string[] {
  const list = schemas.length > 0 ? schemas : ['public'];
  return ['--schema-only', '--no-owner', '--no-privileges', ...list.map((s) => `--schema=${s}`), '--exclude-schema=engine_catalog'];
}

/**
 * `migrate create NAME --from-server`: the engine's schema (pg_dump on the engine's side) as the up.sql of a new
 * migration. As with the incumbent it is not marked applied: the caller says how (`migrate apply --skip-execution`).
 */
export async function createFromServer(client: Pick<EngineClient, 'pgDump'>, dir: string, name: string, schemas: string[]): Promise<{ version: bigint; directory: string }> {
  const sql = await client.pgDump(dumpArguments(schemas));
  return createMigration(dir, name, sql, undefined, `-- Write the down migration for ${name} here.\n`);
}
