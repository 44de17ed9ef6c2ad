import { join, relative, sep } from 'node:path';
import { ApiError, CliError } from '../../errors.js';
import { diffMetadata, jsonEqual, renderDiffJson, renderDiffText, type JsonChange } from '../../metadata/diff.js';
import type { JsonObject } from '../../metadata/json.js';
import type { BulkOperation, EngineClient } from '../../client/engine-client.js';
import { EngineRequestError } from '../../client/errors.js';
import type { ProjectConfig } from '../config/config.js';
import { ApplyRejectedError } from '../metadata-dir/apply.js';
import { canonicalDocument } from '../../metadata/document.js';
import { plannedWrite, replaceEdit, type EditResult, type PermissionEdit } from './edit.js';
import { lineDiff } from './line-diff.js';
import { readProjectFile } from '../project-file.js';
import { canonicalTable, currentSnapshot, replaceFile, rewriteTable, stampOf, tableKey, type ProjectSnapshot } from './snapshot.js';

/**
 * What `engine console` knows between edits: the project's files as last read (snapshot.ts), and the engine's
 * resource_version at which the engine held exactly that document (`synced`), so that an edit does not compare the
 * whole metadata again when neither side moved.
 */
export interface ConsoleState {
  snapshot: ProjectSnapshot | null;
  synced: { version: number; stamp: string } | null;
  /** The engine's last export and its resource_version: paging the table list reads it again only when it changed. */
  exported: { version: number; metadata: unknown } | null;
}

export const newConsoleState = (): ConsoleState => ({ snapshot: null, synced: null, exported: null });

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The engine's resource_version, read with an empty bulk: a read that costs nothing whatever the metadata. */
export async function engineVersion(client: EngineClient): Promise<number | null> {
  return (await client.query('bulk', [], { read: true })).resourceVersion;
}

/** The engine's metadata document, exported again only when its resource_version moved since the last export. */
export async function engineDocument(state: ConsoleState, client: EngineClient): Promise<unknown> {
  const version = await engineVersion(client);
  if (version !== null && state.exported?.version === version) return state.exported.metadata;
  const { metadata, resourceVersion } = await client.exportMetadata();
  state.exported = resourceVersion === null ? null : { version: resourceVersion, metadata };
  return metadata;
}

/** Whether the engine holds exactly the snapshot's document: compared in full only when a side moved since the last time. */
export async function inSync(state: ConsoleState, client: EngineClient, snap: ProjectSnapshot): Promise<boolean> {
  const version = await engineVersion(client);
  if (version !== null && state.synced?.version === version && state.synced.stamp === snap.stamp) return true;
  const metadata = await engineDocument(state, client);
  const same = diffMetadata(canonicalDocument(metadata), snap.document).length === 0;
  state.synced = same && state.exported ? { version: state.exported.version, stamp: snap.stamp } : null;
  return same;
}

const cellName = (edit: PermissionEdit) => `${edit.table.schema}.${edit.table.name}.${edit.role}`;

/** `$.tables[0].select_permissions[2].permission.columns` (a path of the one-table document) as a path of the edit. */
const editPath = (path: string): string => {
  const m = /^\$\.tables\[0\]\.[a-z]+_permissions\[\d+\](.*)$/.exec(path);
  return m ? `$${m[1] as string}` : '$';
};

/** The table entry as written with the one cell replaced (in place, other keys and comments kept), and both in canonical form. */
function edited(written: unknown, edit: PermissionEdit): { after: Obj; canonBefore: JsonObject; canonAfter: JsonObject } {
  const entry: Obj = isObj(written) ? { ...written } : {};
  const key = `${edit.type}_permissions`;
  const list = Array.isArray(entry[key]) ? [...(entry[key] as unknown[])] : [];
  const at = list.findIndex((p) => isObj(p) && p['role'] === edit.role);
  if (edit.permission === null) {
    if (at >= 0) list.splice(at, 1);
  } else {
    const item = { ...(at >= 0 && isObj(list[at]) ? list[at] : {}), role: edit.role, permission: edit.permission };
    if (at >= 0) list[at] = item;
    else list.push(item);
  }
  if (list.length > 0) entry[key] = list;
  else delete entry[key];
  const canonBefore = canonicalTable(written);
  let canonAfter: JsonObject | null;
  try {
    canonAfter = canonicalTable(entry, true);
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    throw new CliError(e.code, e.message, 1, { path: editPath(e.location.path ?? '$') });
  }
  if (!canonBefore || !canonAfter) throw new CliError('invalid-edit', 'the table entry cannot be read', 1, { path: '$.table' });
  // The file gets the permission in canonical form, as `metadata export` would write it.
  const canon = (canonAfter[key] as JsonObject[] | undefined)?.find((p) => p['role'] === edit.role);
  if (canon && at >= 0) list[at] = { ...(list[at] as Obj), permission: canon['permission'] };
  else if (canon) list[list.length - 1] = { ...(list[list.length - 1] as Obj), permission: canon['permission'] };
  return { after: entry, canonBefore, canonAfter };
}

const cellOf = (entry: JsonObject, edit: PermissionEdit): JsonObject | undefined =>
  (entry[`${edit.type}_permissions`] as JsonObject[] | undefined)?.find((p) => p['role'] === edit.role);

/** The engine's incremental operations for the cell (a drop and a create): their cost does not grow with the tables. */
function cellOperations(before: JsonObject, after: JsonObject, edit: PermissionEdit): BulkOperation[] {
  const table = edit.table;
  const had = cellOf(before, edit);
  const now = cellOf(after, edit);
  return [
    ...(had ? [{ type: `drop_${edit.type}_permission`, args: { table, role: edit.role } }] : []),
    ...(now ? [{ type: `create_${edit.type}_permission`, args: { table, ...now } }] : []),
  ];
}

/** The engine refused a request because its resource_version moved since the one sent. */
const versionMoved = (e: unknown): boolean =>
  e instanceof EngineRequestError && e.engineError?.code === 'conflict' && e.engineError.path === '$.resource_version';

/** An engine rejection of the cell's operations, as the edit's error: its path in the edit, the cell named. */
function rejection(e: unknown, edit: PermissionEdit): unknown {
  if (!(e instanceof EngineRequestError) || e.code !== 'server-error' || !e.engineError) return e;
  const err = e.engineError;
  const m = /^\$\.args\[\d+\]\.args(.*)$/.exec(err.path);
  const path = m ? `$${m[1] as string}` : '$';
  const cause = new EngineRequestError(e.code, `${err.error} [${err.code}]`, { path }, { operation: e.operation, ...(e.status === undefined ? {} : { status: e.status }), engineError: { ...err, path } });
  return new ApplyRejectedError(cause, [{ kind: `${edit.type}_permission`, name: cellName(edit), reason: `${err.error} [${err.code}]` }]);
}

/**
 * The engine's check of the operations without keeping them: one bulk that ends with an operation that must fail (the
 * drop of a permission no role has), so the engine runs every check of the edit and then rolls everything back. A
 * failure of the edit's own operations is its rejection; the last operation's is the expected end.
 */
async function checkOperations(client: EngineClient, ops: BulkOperation[], edit: PermissionEdit, entry: JsonObject): Promise<void> {
  if (ops.length === 0) return;
  const roles = new Set(['insert', 'select', 'update', 'delete'].flatMap((t) => ((entry[`${t}_permissions`] as JsonObject[] | undefined) ?? []).map((p) => p['role'])));
  let role = 'engine-console-dry-run';
  while (roles.has(role)) role = `${role}-`;
  const last = { type: `drop_${edit.type}_permission`, args: { table: edit.table, role } };
  try {
    await client.query('bulk', [...ops, last], { read: false });
  } catch (e) {
    if (e instanceof EngineRequestError && e.engineError?.path.startsWith(`$.args[${ops.length}]`)) return;
    throw rejection(e, edit);
  }
  throw new CliError('unexpected', 'the dry run was applied by the engine', 1);
}

/** The snapshot, the table's entry with the cell replaced (as written and canonical), and the project's document after. */
function prepare(state: ConsoleState, config: ProjectConfig, edit: PermissionEdit) {
  const snap = currentSnapshot(config, state.snapshot);
  state.snapshot = snap;
  const key = `${edit.table.schema}.${edit.table.name}`;
  const canonical = (snap.document['tables'] as JsonObject[]).find((t) => tableKey(t['table']) === key);
  if (!canonical) {
    throw new CliError('table-not-found', `table ${key} is not tracked in the project's metadata`, 1, {
      path: '$.table', hint: "run 'engine metadata export' if it was tracked on the engine",
    });
  }
  const where = snap.tables.get(key);
  const e = edited(where?.written ?? canonical, edit);
  const document = { ...snap.document, tables: (snap.document['tables'] as JsonObject[]).map((t) => (tableKey(t['table']) === key ? e.canonAfter : t)) };
  return { snap, key, where, document, ...e };
}

const shownName = (config: ProjectConfig, file: string) => relative(config.metadataDirectory, file).split(sep).join('/');

/**
 * A permission edit made in the console (issue 34). The project's files are the truth: the edit is written to the one
 * file that holds the table, only that table's changed lines rewritten (the writer of `metadata export`), then applied
 * to the engine with the cell's own drop and create in one bulk — work that does not grow with the number of tables
 * (at 2,000 tables a whole replace_metadata rebuilds, introspects and reinstalls every trigger: seconds). When the
 * engine refuses, the file is put back as it was. That is only right when the engine held the files' document before
 * the edit; when it did not (someone applied elsewhere, the files changed), the whole document is written and applied
 * with one replace_metadata instead (edit.ts), which brings the engine to the files.
 */
export async function editPermission(state: ConsoleState, config: ProjectConfig, client: EngineClient, edit: PermissionEdit, dryRun: boolean): Promise<EditResult & { wholeProject: boolean }> {
  const { snap, key, where, document, after, canonBefore, canonAfter } = prepare(state, config, edit);
  const whole = async () => {
    const r = await replaceEdit(config, client, edit, dryRun);
    state.snapshot = null;
    state.synced = null;
    return { written: r.written, applied: r.applied, inconsistent: r.inconsistent, wholeProject: true };
  };
  if (!(await inSync(state, client, snap))) return whole();
  const ops = cellOperations(canonBefore, canonAfter, edit);
  if (dryRun) {
    await checkOperations(client, ops, edit, canonAfter);
    return { written: [], applied: false, inconsistent: [], wholeProject: false };
  }
  if (jsonEqual(canonBefore, canonAfter)) return { written: [], applied: false, inconsistent: [], wholeProject: false };
  const rewrite = where ? rewriteTable(snap, where, after) : null;
  if (!where || !rewrite) return whole();
  replaceFile(rewrite.file, rewrite.text);
  // The version inSync confirmed: a writer that moved the engine since (between that read and this bulk) makes the
  // engine refuse the bulk, and the edit goes the whole way instead of landing on a document it was not made for.
  const confirmed = state.synced?.version;
  let version: number | null;
  try {
    version = (await client.query('bulk', ops, { read: false, ...(confirmed === undefined ? {} : { resourceVersion: confirmed }) })).resourceVersion;
  } catch (e) {
    replaceFile(rewrite.file, rewrite.before);
    // The text is as it was: only the stamp moved.
    state.snapshot = { ...snap, stamp: stampOf(config) };
    if (state.synced) state.synced = { ...state.synced, stamp: state.snapshot.stamp };
    if (versionMoved(e)) return whole();
    throw rejection(e, edit);
  }
  const tables = new Map(snap.tables).set(key, { ...where, written: after });
  state.snapshot = { stamp: stampOf(config), document, tables, listed: snap.listed };
  // Another writer in between (a version that moved by more than this bulk) makes the next edit compare again.
  state.synced = version !== null && state.synced !== null && version === state.synced.version + 1 ? { version, stamp: state.snapshot.stamp } : null;
  return { written: [shownName(config, rewrite.file)], applied: true, inconsistent: [], wholeProject: false };
}

export interface EditPreview {
  /** The files the edit would write, each with its unified diff (what git will show). */
  files: { file: string; diff: string }[];
  /** What applying would change on the engine, in the text of `metadata diff`: more than the cell when the engine differs from the files. */
  changes: string;
  inSync: boolean;
}

/** What saving the edit would do, before anything is written or applied (the console's diff view). */
export async function previewPermission(state: ConsoleState, config: ProjectConfig, client: EngineClient, edit: PermissionEdit): Promise<EditPreview> {
  const { snap, where, document, after, canonBefore, canonAfter } = prepare(state, config, edit);
  const synced = await inSync(state, client, snap);
  const changed = !jsonEqual(canonBefore, canonAfter);
  const rewrite = where && changed ? rewriteTable(snap, where, after) : null;
  let files: { file: string; diff: string }[] = [];
  if (rewrite) files = [{ file: shownName(config, rewrite.file), diff: lineDiff(rewrite.before, rewrite.text, shownName(config, rewrite.file)) }];
  else if (changed) {
    for (const [name, text] of plannedWrite(config, document, snap.document)) {
      const old = readProjectFile(join(config.metadataDirectory, name)) ?? '';
      if (text !== null && text !== old) files.push({ file: name, diff: lineDiff(old, text, name) });
    }
  }
  const from = synced ? { version: 2, tables: [canonBefore] } : canonicalDocument(await engineDocument(state, client));
  const to = synced ? { version: 2, tables: [canonAfter] } : document;
  return { files, changes: renderDiffText(diffMetadata(from, to)), inSync: synced };
}

/** The engine against the files, as `metadata diff` shows it: what `metadata apply` would change on the engine. */
export async function projectDiff(state: ConsoleState, config: ProjectConfig, client: EngineClient): Promise<{ changes: JsonChange[]; text: string }> {
  const snap = currentSnapshot(config, state.snapshot);
  state.snapshot = snap;
  const changes = diffMetadata(canonicalDocument(await engineDocument(state, client)), snap.document);
  return { changes: renderDiffJson(changes), text: renderDiffText(changes) };
}
