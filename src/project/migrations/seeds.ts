import { mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { CliError } from '../../errors.js';
import type { EngineClient } from '../../client/engine-client.js';
import { EngineRequestError } from '../../client/errors.js';
import { isObject } from '../../metadata/json.js';
import { shownPath } from '../config/environment.js';
import { databaseLevel } from '../config/config.js';
import { readProjectFile, statProjectPath } from '../project-file.js';

/**
 * Seed files (issue 19 item 5), laid out as the incumbent does: `seeds/<timestamp>_<name>.sql` beside config.yaml
 * (its config v3 adds a `<database>/` level: `seeds/default/` is then the directory, see `databaseLevel`).
 * `apply` runs every file in name order — the timestamp prefix makes that creation order —, each in one `run_sql`,
 * which is one transaction (engine-api.md §4.1.1): a failing file leaves nothing of itself behind.
 */

export const SEED_NAME = /^[A-Za-z0-9_-]+$/;

export const seedsDirectory = (projectDir: string): string => databaseLevel(join(projectDir, 'seeds'));

/** The seed files, by name; none when the directory does not exist. */
export function seedFiles(dir: string): string[] {
  if (statProjectPath(dir) === undefined) return [];
  return readdirSync(dir).filter((f) => f.endsWith('.sql') && !f.startsWith('.')).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).map((f) => join(dir, f));
}

/** Writes `<dir>/<ms>_<name>.sql` through a temporary sibling. */
export function createSeed(dir: string, name: string, sql: string, now = Date.now()): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${now}_${name}.sql`);
  if (statProjectPath(file) !== undefined) throw new CliError('seed-exists', `seed file ${shownPath(file)} already exists`, 1);
  const tmp = join(dirname(file), `.${basename(file)}.tmp`);
  writeFileSync(tmp, sql);
  renameSync(tmp, file);
  return file;
}

/** The rows of one table as INSERT statements, by pg_dump on the engine's side (the incumbent's `--from-table`). */
export async function tableData(client: Pick<EngineClient, 'pgDump'>, tables: string[]): Promise<string> {
  return client.pgDump(['--data-only', '--column-inserts', ...tables.map((t) => `--table=${t}`)]);
}

/** Runs the seed files in order, each as one transaction; stops at the first failure, naming the file. */
export async function applySeeds(client: Pick<EngineClient, 'runSql'>, files: string[], onApplied: (file: string) => void): Promise<void> {
  // Every file is read first: a missing one fails the run before any seed ran.
  const texts = files.map((file) => {
    const sql = readProjectFile(resolve(file));
    if (sql === undefined) throw new CliError('file-not-found', `file "${shownPath(file)}" not found`, 1);
    return { file, sql };
  });
  for (const { file, sql } of texts) {
    if (sql.trim() === '') continue;
    try {
      await client.runSql(sql);
    } catch (e) {
      if (!(e instanceof EngineRequestError) || e.code !== 'server-error' || !e.engineError) throw e;
      const internal = e.engineError.internal;
      const pg = isObject(internal) && isObject(internal['error']) ? internal['error']['message'] : undefined;
      const why = `${e.engineError.error}${typeof pg === 'string' ? `: ${pg}` : ''} [${e.engineError.code}]`;
      throw new CliError('seed-failed', `seed ${shownPath(file)} failed: ${why}; nothing of this file was applied`, 1);
    }
    onApplied(file);
  }
}
