import { CliError } from '../../errors.js';
import type { JsonObject } from '../../metadata/json.js';
import { canonicalDocument } from '../../metadata/document.js';
import { PERMISSION_TYPES, type PermissionType } from '../../metadata/table-page.js';
import type { EngineClient } from '../../client/engine-client.js';
import type { ProjectConfig } from '../config/config.js';
import { buildMetadata, layoutOf, type BuildResult } from '../metadata-dir/build.js';
import { applyMetadata, checkOnEngine, engineMetadata, type ApplyResult } from '../metadata-dir/apply.js';
import { readExistingFiles, renderFiles, writeMetadataDir, type ExportReport } from '../metadata-dir/export.js';
import { exportV3, readExistingV3 } from '../metadata-dir/layout-v3/write.js';
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
 * A permission edit made in the console: checked by the engine with a dry-run replace_metadata (nothing changes), then
 * — unless `dryRun` — written to the project's metadata files with the writer of `metadata export` (comments and
 * untouched files kept), and applied from the files just written, so that git holds what the engine runs.
 */
export async function editPermission(config: ProjectConfig, client: EngineClient, edit: PermissionEdit, dryRun: boolean): Promise<EditResult> {
  const before = built(config);
  const document = withPermission(before.document, edit);
  const engine = await engineMetadata(client);
  const inconsistent = await checkOnEngine(client, { ...before, document }, engine.resourceVersion, false);
  if (dryRun) return { written: [], applied: false, inconsistent };
  const report = writeDocument(config, document, before.document);
  const r: ApplyResult = await applyMetadata(client, built(config), { dryRun: false, allowInconsistent: false, allowEmpty: false });
  return { written: [...report.created, ...report.updated, ...report.removed], applied: r.applied, inconsistent: r.inconsistent };
}

function writeDocument(config: ProjectConfig, document: JsonObject, before: JsonObject): ExportReport {
  const dir = config.metadataDirectory;
  if (config.version === 3) return exportV3(dir, document, readExistingV3(dir), false, undefined, before);
  return writeMetadataDir(dir, renderFiles(document, readExistingFiles(dir), undefined, before), false);
}
