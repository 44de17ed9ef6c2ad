import { rmSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { CliError } from '../../errors.js';
import { canonicalDocument } from '../../metadata/document.js';
import type { EngineClient } from '../../client/engine-client.js';
import type { ProjectConfig } from '../config/config.js';
import { writeTree } from '../metadata-dir/export.js';
import { CREATE_STATE_TABLE, MIGRATION_NAME, createMigration, readState, stepFailure, stepOperations, type Step } from '../migrations/migrations.js';
import { unwrapTransactions } from '../migrations/sql.js';
import { plannedWrite } from './edit.js';
import { engineVersion, inSync, type ConsoleState } from './cell.js';
import { currentSnapshot, type ProjectSnapshot } from './snapshot.js';

/** A schema change made in the console: SQL that becomes a migration of the project. */
export interface SchemaEdit {
  name: string;
  up: string;
  down?: string;
}

export interface SchemaEditResult {
  /** The migration's version and its directory (relative to the project). */
  version: string;
  directory: string;
  /** Metadata files rewritten because the SQL changed the engine's metadata (a renamed column in a permission…). */
  metadata: string[];
  /** The SQL changed the metadata but the files did not hold the engine's document before: they were left alone. */
  metadataNotWritten: boolean;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function parseSchemaEdit(body: unknown): SchemaEdit {
  const bad = (message: string, path: string) => new CliError('invalid-edit', message, 1, { path });
  if (!isObj(body)) throw bad('expected a JSON object', '$');
  const { name, up, down } = body;
  if (typeof name !== 'string' || !MIGRATION_NAME.test(name)) throw bad('expected a migration name of letters, digits, "_" and "-"', '$.name');
  if (typeof up !== 'string' || up.trim() === '') throw bad('expected the SQL to run', '$.up');
  if (down !== undefined && typeof down !== 'string') throw bad('expected the SQL that undoes it, or nothing', '$.down');
  return { name, up, ...(down === undefined ? {} : { down }) };
}

/**
 * A schema edit made in the console (issue 34): never run on the database alone, which would leave git behind. The SQL
 * is written as a new migration under the project's migrations directory, then applied as `migrate apply` applies one
 * (its SQL and its state row in one transaction). When the engine refuses it, the migration's directory is removed:
 * the files and the database stay as they were. When the SQL changed the engine's metadata (a column renamed under a
 * permission), the metadata files are brought to it with the writer of `metadata export` — if they held the engine's
 * document before; otherwise they are left alone and the answer says so.
 */
export async function applySchemaEdit(state: ConsoleState, config: ProjectConfig, client: EngineClient, edit: SchemaEdit): Promise<SchemaEditResult> {
  let snap: ProjectSnapshot | null = null;
  let synced = false;
  try {
    snap = currentSnapshot(config, state.snapshot);
    synced = await inSync(state, client, snap);
  } catch (e) {
    // Metadata files with errors do not stop a schema change; they are only not rewritten after it.
    if (!(e instanceof CliError) || e.code !== 'metadata-invalid') throw e;
  }
  const dir = config.migrationsDirectory;
  if (!(await readState(client)).tableExists) await client.runSql(CREATE_STATE_TABLE);
  const created = createMigration(dir, edit.name, edit.up, undefined, edit.down);
  const step: Step = { migration: { version: created.version, name: edit.name }, direction: 'up', file: join(created.directory, 'up.sql'), sql: edit.up, outOfOrder: false };
  let version: number | null;
  const before = await engineVersion(client);
  try {
    const [run] = await unwrapTransactions([step]);
    version = (await client.query('bulk', stepOperations(run as Step), { read: false })).resourceVersion;
  } catch (e) {
    rmSync(created.directory, { recursive: true, force: true });
    const failure = stepFailure(step, e, dir);
    // The SQL is the edit's `up`: its line and column are the editor's.
    if (failure instanceof CliError && failure.code === 'migration-failed') {
      const { line, column, hint } = failure.location;
      throw new CliError(failure.code, failure.message, 1, { path: '$.up', ...(line === undefined ? {} : { line }), ...(column === undefined ? {} : { column }), ...(hint === undefined ? {} : { hint }) });
    }
    throw failure;
  }
  const shown = relative(config.baseDir, created.directory).split(sep).join('/');
  const result: SchemaEditResult = { version: created.version.toString(), directory: shown, metadata: [], metadataNotWritten: false };
  if (version === null || before === null || version === before) return result;
  // The SQL changed the engine's metadata document.
  if (!synced || !snap) return { ...result, metadataNotWritten: true };
  const { metadata } = await client.exportMetadata();
  const report = writeTree(config.metadataDirectory, plannedWrite(config, canonicalDocument(metadata), snap.document));
  state.snapshot = null;
  state.synced = null;
  return { ...result, metadata: [...report.created, ...report.updated, ...report.removed] };
}
