import { CliError } from '../../errors.js';
import type { JsonObject } from '../../metadata/json.js';
import { canonicalDocument } from '../../metadata/document.js';
import { PERMISSION_TYPES, type PermissionType } from '../../metadata/table-page.js';
import type { EngineClient } from '../../client/engine-client.js';
import type { ProjectConfig } from '../config/config.js';
import { buildMetadata, layoutOf, type BuildResult } from '../metadata-dir/build.js';
import { applyMetadata, checkOnEngine, engineMetadata, type ApplyResult } from '../metadata-dir/apply.js';
import { plannedFiles, readExistingFiles, renderFiles, writeTree } from '../metadata-dir/export.js';
import { readExistingV3, renderV3 } from '../metadata-dir/layout-v3/write.js';
import { readProjectFile } from '../project-file.js';
import { join } from 'node:path';
import type { ShownInconsistency } from '../validate/inconsistency.js';

/** One cell of the permission matrix as the console sends it; `permission: null` removes it. */
export interface PermissionEdit {
  table: { schema: string; name: string };
  role: string;
  type: PermissionType;
  permission: JsonObject | null;
}

export interface EditResult {
  /** The metadata files that were written (relative to the metadata directory); empty for a check. */
  written: string[];
  applied: boolean;
  inconsistent: ShownInconsistency[];
}

const isObj = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What the console may send: anything else is refused before the files are read. */
export function parseEdit(body: unknown): PermissionEdit {
  const bad = (message: string, path: string) => new CliError('invalid-edit', message, 1, { path });
  if (!isObj(body)) throw bad('expected a JSON object', '$');
  const t = body['table'];
  if (!isObj(t) || typeof t['schema'] !== 'string' || typeof t['name'] !== 'string') throw bad('expected {"schema", "name"}', '$.table');
  if (typeof body['role'] !== 'string' || body['role'] === '' || body['role'] === 'admin') throw bad('expected a role other than admin', '$.role');
  const type = body['type'];
  if (!PERMISSION_TYPES.includes(type as PermissionType)) throw bad(`expected one of ${PERMISSION_TYPES.join(', ')}`, '$.type');
  const permission = body['permission'];
  if (permission !== null && !isObj(permission)) throw bad('expected a permission object or null', '$.permission');
  return { table: { schema: t['schema'], name: t['name'] }, role: body['role'], type: type as PermissionType, permission };
}

function built(config: ProjectConfig): BuildResult & { document: JsonObject } {
  const b = buildMetadata(config.metadataDirectory, config.baseDir, layoutOf(config.version));
  if (!b.document) {
    const first = b.problems.list.find((p) => p.severity === 'error');
    throw new CliError('metadata-invalid', `the project's metadata has errors${first ? `: ${first.message}` : ''}`, 1, {
      hint: "run 'engine metadata validate' and correct the files first",
    });
  }
  return { ...b, document: b.document };
}

/** The project's document with the one cell replaced; the table must be tracked in the project's files. */
export function withPermission(doc: JsonObject, edit: PermissionEdit): JsonObject {
  const next = structuredClone(doc);
  const tables = Array.isArray(next['tables']) ? (next['tables'] as JsonObject[]) : [];
  const entry = tables.find((e) => isObj(e['table']) && e['table']['schema'] === edit.table.schema && e['table']['name'] === edit.table.name);
  if (!entry) {
    throw new CliError('table-not-found', `table ${edit.table.schema}.${edit.table.name} is not tracked in the project's metadata`, 1, {
      path: '$.table', hint: "run 'engine metadata export' if it was tracked on the engine",
    });
  }
  const key = `${edit.type}_permissions`;
  const list = (Array.isArray(entry[key]) ? (entry[key] as JsonObject[]) : []).filter((p) => p['role'] !== edit.role);
  if (edit.permission) list.push({ role: edit.role, permission: edit.permission });
  if (list.length > 0) entry[key] = list;
  else delete entry[key];
  return canonicalDocument(next);
}

/**
 * A permission edit through the whole document, for when the engine does not hold the project's document (cell.ts
 * says when): a dry run is a dry-run replace_metadata; otherwise the new document is written with the writer of
 * `metadata export` (comments and untouched files kept) and applied in one replace_metadata, which brings the engine
 * to the files; when the engine refuses, the files written are put back as they were.
 */
export async function replaceEdit(config: ProjectConfig, client: EngineClient, edit: PermissionEdit, dryRun: boolean): Promise<EditResult & { resourceVersion: number | null }> {
  const before = built(config);
  const document = withPermission(before.document, edit);
  if (dryRun) {
    const engine = await engineMetadata(client);
    return { written: [], applied: false, inconsistent: await checkOnEngine(client, { ...before, document }, engine.resourceVersion, false), resourceVersion: null };
  }
  const dir = config.metadataDirectory;
  const next = plannedWrite(config, document, before.document);
  const previous = new Map([...next.keys()].map((name) => [name, readProjectFile(join(dir, name)) ?? null]));
  const report = writeTree(dir, next);
  let r: ApplyResult;
  try {
    // The files just written are exactly `document`; their positions for a rejection are the old build's.
    r = await applyMetadata(client, { ...before, document }, { dryRun: false, allowInconsistent: false, allowEmpty: false });
  } catch (e) {
    writeTree(dir, previous);
    throw e;
  }
  return { written: [...report.created, ...report.updated, ...report.removed], applied: r.applied, inconsistent: r.inconsistent, resourceVersion: r.resourceVersion };
}

/** What `metadata export` would write for `document` (path → content, null to remove), nothing pruned. */
export function plannedWrite(config: ProjectConfig, document: JsonObject, before: JsonObject): Map<string, string | null> {
  const dir = config.metadataDirectory;
  if (config.version === 3) {
    const r = renderV3(document, readExistingV3(dir), undefined, before);
    return new Map([...plannedFiles(dir, r.top, false), ...r.nested]);
  }
  return plannedFiles(dir, renderFiles(document, readExistingFiles(dir), undefined, before), false);
}
