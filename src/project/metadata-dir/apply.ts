import { CliError } from '../../errors.js';
import { canonicalDocument } from '../../metadata/document.js';
import { isObject, type Json, type JsonObject } from '../../metadata/json.js';
import { diffMetadata, summarize, type Change, type DiffSummary } from '../../metadata/diff.js';
import { metadataObjects } from '../../metadata/objects.js';
import { widenedAccess, type Widening } from '../../metadata/access.js';
import type { EngineClient, InconsistencyReport } from '../../client/engine-client.js';
import { EngineRequestError } from '../../client/errors.js';
import type { BuildResult } from './build.js';
import type { Position } from '../problems.js';
import { recordName, showInconsistency, type ShownInconsistency } from '../validate/inconsistency.js';
import { catalogHint, positionOfWord, readLiveCatalog, unknownName, type LiveCatalog } from '../validate/catalog-hints.js';
import { lineReader } from '../source-lines.js';

export interface ApplyOptions {
  /** The plan only; with changes, the engine checks it with a dry-run replace_metadata (issue 19 item 1). */
  dryRun: boolean;
  allowInconsistent: boolean;
  allowEmpty: boolean;
}

export interface ApplyResult {
  applied: boolean;
  changes: Change[];
  /** The changes that widen access, for the plan's own section (issue 27 item 5). */
  widened: Widening[];
  summary: DiffSummary;
  resourceVersion: number | null;
  inconsistent: ShownInconsistency[];
  /** The engine checked the plan (dry run with changes): the real apply would succeed. */
  checked: boolean;
}

/** An object the engine rejected, located in the project (cli.md §5.3 step 8). */
export interface OffendingObject {
  kind: string;
  name: string;
  position?: Position;
  /** The engine's message, with a "did you mean" from the live catalog when it names an unknown object, and its code. */
  reason: string;
  /** The first line of the object, when `position` points at a value inside it. */
  objectLine?: number;
}

export class ApplyRejectedError extends CliError {
  readonly objects: OffendingObject[];
  readonly engineError: { path: string; error: string; code: string };
  constructor(cause: EngineRequestError, objects: OffendingObject[]) {
    const first = objects[0]?.position;
    super(cause.code, cause.message, 1, { ...cause.location, ...(first ?? {}) });
    this.objects = objects;
    this.engineError = cause.engineError ?? { path: '$', error: cause.message, code: cause.code };
  }
}

/** Reads the engine's metadata in canonical form, with the resource version it was read at. */
export async function engineMetadata(client: EngineClient): Promise<{ document: JsonObject; resourceVersion: number | null }> {
  const { metadata, resourceVersion } = await client.exportMetadata();
  return { document: canonicalDocument(metadata), resourceVersion };
}

/**
 * `metadata apply` after a successful build (cli.md §5.3 steps 2–8): the plan is diff(engine → project); one
 * replace_metadata with the resource version read, so a concurrent change is refused rather than overwritten.
 */
export async function applyMetadata(client: EngineClient, build: BuildResult, opts: ApplyOptions): Promise<ApplyResult> {
  const project = build.document as JsonObject;
  const engine = await engineMetadata(client);
  const changes = diffMetadata(engine.document, project);
  const widened = changes.length === 0 ? [] : widenedAccess(engine.document, project);
  const result: ApplyResult = { applied: false, changes, widened, summary: summarize(changes), resourceVersion: engine.resourceVersion, inconsistent: [], checked: false };
  if (changes.length === 0) return result;
  if (opts.dryRun) return { ...result, checked: true, inconsistent: await checkOnEngine(client, build, engine.resourceVersion, opts.allowInconsistent) };
  const projectCount = metadataObjects(project).length;
  const engineCount = metadataObjects(engine.document).length;
  if (projectCount === 0 && engineCount > 0 && !opts.allowEmpty) {
    throw new CliError('metadata-would-be-empty', `refusing to remove all ${engineCount} objects from the engine: the project metadata is empty`, 1, {
      hint: "pass --allow-empty if this is intended, or run 'engine metadata export' first",
    });
  }
  const { body, resourceVersion } = await mapped(client, build, () => client.replaceMetadata(project, engine.resourceVersion, opts.allowInconsistent));
  return { ...result, applied: true, resourceVersion, inconsistent: reported(body) };
}

const reported = (body: unknown): ShownInconsistency[] => {
  const report = body as InconsistencyReport;
  return Array.isArray(report.inconsistent_objects) ? report.inconsistent_objects.map(showInconsistency) : [];
};

/**
 * The project's metadata sent as a dry-run replace_metadata: the engine rebuilds everything against the live database
 * and rolls back. Resolves with the inconsistencies it would keep (with `allowInconsistent`); a rejection is an
 * ApplyRejectedError located in the project's files, exactly as the real apply's would be.
 */
export async function checkOnEngine(client: EngineClient, build: BuildResult, resourceVersion: number | null, allowInconsistent: boolean): Promise<ShownInconsistency[]> {
  const project = build.document as JsonObject;
  const { body } = await mapped(client, build, () => client.replaceMetadata(project, resourceVersion, allowInconsistent, true));
  return reported(body);
}

async function mapped<T>(client: EngineClient, build: BuildResult, request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (e) {
    throw await rejectionOf(client, build, e);
  }
}

/** A replace_metadata rejection as an ApplyRejectedError located in the project; any other failure as it is. */
export async function rejectionOf(client: EngineClient, build: BuildResult, e: unknown): Promise<unknown> {
  if (!(e instanceof EngineRequestError && e.code === 'server-error' && e.engineError)) return e;
  const objects = offending(e, build.document as JsonObject, build);
  return new ApplyRejectedError(e, await withCatalogHints(client, objects, build));
}

/**
 * For errors naming an unknown column, table, function or type: the position of that name inside the object, and the
 * nearest name of the live catalog. The catalog read is a best effort: without it the errors are shown as they are.
 */
async function withCatalogHints(client: EngineClient, objects: OffendingObject[], build: BuildResult): Promise<OffendingObject[]> {
  if (!objects.some((o) => unknownName(o.reason) !== undefined)) return objects;
  let catalog: LiveCatalog;
  try {
    catalog = await readLiveCatalog(client);
  } catch {
    return objects;
  }
  const lines = lineReader((file) => [...build.sources.values()].find((s) => s.file === file)?.text);
  return objects.map((o) => {
    const word = unknownName(o.reason);
    if (word === undefined) return o;
    const m = / \[([a-z-]+)\]$/.exec(o.reason);
    const message = m ? o.reason.slice(0, m.index) : o.reason;
    const reason = `${message}${catalogHint(message, catalog, build.document as JsonObject)}${m ? m[0] : ''}`;
    const fileLines = o.position ? lines(o.position.file) : undefined;
    const position = o.position && fileLines ? positionOfWord(fileLines, o.position, word) : o.position;
    return { ...o, reason, ...(position ? { position } : {}), ...(o.position ? { objectLine: o.position.line } : {}) };
  });
}

/** The innermost §4.12 object containing an engine path, or, failing that, the objects of its `internal` records. */
function offending(e: EngineRequestError, doc: JsonObject, build: BuildResult): OffendingObject[] {
  const err = e.engineError as { path: string; error: string; code: string; internal?: Json };
  const reason = `${err.error} [${err.code}]`;
  const path = err.path.replace(/^\$\.args\.metadata/, '$').replace(/^\$\.args/, '$');
  const found = objectAtPath(doc, path);
  const at = (kind: string, name: string) => build.origins.get(`${kind}:${name}`);
  if (found) return [{ ...found, reason, ...(at(found.kind, found.name) ? { position: at(found.kind, found.name) } : {}) }];
  const records = Array.isArray(err.internal) ? err.internal : [];
  return records.filter(isObject).map((r) => {
    const shown = showInconsistency({ type: String(r['type']), reason: String(r['reason']), definition: r['definition'] });
    const kind = shown.kind;
    const name = recordName(String(r['type']), r['definition']);
    const position = at(kind, name);
    return { kind, name, reason: `${String(r['reason'])} [${err.code}]`, ...(position ? { position } : {}) };
  });
}

const TABLE_LISTS: Record<string, string> = {
  object_relationships: 'object_relationship', array_relationships: 'array_relationship', remote_relationships: 'remote_relationship',
  computed_fields: 'computed_field', event_triggers: 'event_trigger', insert_permissions: 'insert_permission',
  select_permissions: 'select_permission', update_permissions: 'update_permission', delete_permissions: 'delete_permission',
};

function objectAtPath(doc: JsonObject, path: string): { kind: string; name: string } | null {
  const parts = [...path.matchAll(/\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]/g)].map((m) => (m[2] !== undefined ? Number(m[2]) : m[1] as string));
  const [top, i, list, j] = parts;
  const qn = (t: unknown) => (isObject(t) ? `${String(t['schema'])}.${String(t['name'])}` : '');
  if (top === 'tables' && typeof i === 'number') {
    const entry = (doc['tables'] as JsonObject[] | undefined)?.[i];
    if (!entry) return null;
    const t = qn(entry['table']);
    if (typeof list === 'string' && TABLE_LISTS[list] && typeof j === 'number') {
      const item = (entry[list] as JsonObject[] | undefined)?.[j];
      if (item) return { kind: TABLE_LISTS[list] as string, name: `${t}.${String(item['name'] ?? item['role'])}` };
    }
    return { kind: 'table', name: t };
  }
  if (top === 'functions' && typeof i === 'number') {
    const f = (doc['functions'] as JsonObject[] | undefined)?.[i];
    return f ? { kind: 'function', name: qn(f['function']) } : null;
  }
  if (top === 'actions' && typeof i === 'number') {
    const a = (doc['actions'] as JsonObject[] | undefined)?.[i];
    if (!a) return null;
    if (list === 'permissions' && typeof j === 'number') {
      const p = (a['permissions'] as JsonObject[] | undefined)?.[j];
      if (p) return { kind: 'action_permission', name: `${String(a['name'])}.${String(p['role'])}` };
    }
    return { kind: 'action', name: String(a['name']) };
  }
  return null;
}
