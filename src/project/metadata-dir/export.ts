import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync, cpSync } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import { randomBytes } from 'node:crypto';
import { parse } from 'yaml';
import { CliError } from '../../errors.js';
import type { Json, JsonObject } from '../../metadata/json.js';
import { splitActions } from './actions-sdl.js';
import { METADATA_FILES, OPTIONAL_FILES, type MetadataFileKey } from './build.js';
import { readProjectFile } from '../project-file.js';
import { carryComments } from './yaml-comments.js';
import { detectStyle, renderYaml, spliceYaml } from './yaml-splice.js';
import { canonicalDocument } from '../../metadata/document.js';
import { jsonEqual } from '../../metadata/diff.js';
import { buildMetadata, layoutOf } from './build.js';

/**
 * YAML as cli.md §4.8 step 2 describes it: 2-space indent, indented sequences, no folding, double quotes; what YAML 1.1
 * reads as a boolean (`y`, `no`, `on`…) quoted.
 */
export function toYaml(value: unknown): string {
  return renderYaml(value);
}

/**
 * The canonical document the metadata directory holds now, or null when it has none or errors: export compares the
 * engine's document with it to rewrite only what changed (issue 29).
 */
export function existingDocument(dir: string, configVersion: number, cwd = process.cwd()): JsonObject | null {
  try {
    return buildMetadata(dir, cwd, layoutOf(configVersion)).document;
  } catch {
    return null;
  }
}

/** Whether a YAML text means `value` once both are in canonical form (`key`: the document key it holds). */
export function sameCanonical(text: string, key: string, value: unknown): boolean {
  try {
    const parsed: unknown = parse(text);
    if (key === 'version') return jsonEqual(parsed, value);
    return jsonEqual(canonicalDocument({ version: 2, [key]: parsed })[key], canonicalDocument({ version: 2, [key]: value })[key]);
  } catch {
    return false;
  }
}

/** `value` with only the keys (at every level) that `shape` has: what an old file kept beyond the engine's form is set aside. */
function projected(value: unknown, shape: unknown): unknown {
  if (Array.isArray(value) && Array.isArray(shape)) return value.map((v, i) => projected(v, shape[i]));
  if (isPlain(value) && isPlain(shape)) return Object.fromEntries(Object.keys(shape).filter((k) => k in value).map((k) => [k, projected(value[k], shape[k])]));
  return value;
}

const isPlain = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A file's new text: the old text with only what changed rewritten when that can be done (yaml-splice.ts), else the
 * whole value in the old file's style, its comments carried over (cli.md §4.10).
 */
export function updatedYaml(
  value: unknown, oldText: string | undefined, oldValue: unknown, verify: (text: string) => boolean,
): { text: string; dropped: number } {
  if (oldText !== undefined && oldValue !== undefined) {
    const spliced = spliceYaml(oldText, oldValue, value, verify);
    if (spliced) return spliced;
  }
  return carryComments(renderYaml(value, oldText === undefined ? undefined : detectStyle(oldText)), oldText);
}

const TOP_KEYS = ['version', 'tables', 'functions', 'remote_schemas', 'query_collections', 'allowlist', 'actions', 'custom_types', 'cron_triggers', 'rest_endpoints', 'inherited_roles', 'api_limits'];

/** The engine's metadata must be a version-2 document with only the keys of the format (cli.md §4.8 step 1). */
export function checkServerMetadata(doc: unknown): JsonObject {
  const o = doc as JsonObject;
  if (typeof doc !== 'object' || doc === null || o['version'] !== 2) {
    throw new CliError('server-metadata-unsupported', `the engine returned metadata version ${JSON.stringify(o?.['version'] ?? null)}; this CLI supports version 2`, 1);
  }
  const extra = Object.keys(o).find((k) => !TOP_KEYS.includes(k));
  if (extra) throw new CliError('server-metadata-unsupported', `the engine's metadata has key "${extra}", which this CLI cannot store in the metadata directory`, 1);
  return o;
}

/** The texts of the directory's existing files, by key (missing files are left out). */
export function readExistingFiles(dir: string): Map<MetadataFileKey, string> {
  const out = new Map<MetadataFileKey, string>();
  for (const [key, [name]] of Object.entries(METADATA_FILES) as [MetadataFileKey, (typeof METADATA_FILES)[MetadataFileKey]][]) {
    const text = readProjectFile(join(dir, name));
    if (text !== undefined) out.set(key, text);
  }
  return out;
}

/**
 * Renders each file of the directory from a canonical document; `undefined` content means "empty" (prunable).
 * `existing` holds the texts of the files being replaced (a string is the old `actions.graphql`), whose comments are
 * carried over (cli.md §4.10); `onDroppedComments` is told, per file name, how many comment lines had nothing left to
 * belong to. An empty key whose old file had a header keeps it above the empty content.
 */
export function renderFiles(
  doc: JsonObject,
  existing?: string | ReadonlyMap<MetadataFileKey, string>,
  onDroppedComments?: (n: number, file: string) => void,
  before?: JsonObject | null,
): Map<MetadataFileKey, string | undefined> {
  const given = typeof existing === 'string' ? new Map<MetadataFileKey, string>([['actionsGraphql', existing]]) : (existing ?? new Map<MetadataFileKey, string>());
  const old = withSchemaHeaders(given);
  const out = new Map<MetadataFileKey, string | undefined>();
  const dropped = (key: MetadataFileKey, n: number): void => {
    if (n > 0) onDroppedComments?.(n, METADATA_FILES[key][0]);
  };
  /** `oldValue`: the canonical value the existing file holds; `verify` says whether a text means the new value. */
  const yamlFile = (key: MetadataFileKey, value: unknown, oldValue?: unknown, verify?: (text: string) => boolean): void => {
    const empty = METADATA_FILES[key][1];
    const carried = value === undefined
      ? carryComments(empty, old.get(key))
      : updatedYaml(value, given.has(key) ? old.get(key) : undefined, verify ? oldValue : undefined, verify ?? (() => false));
    dropped(key, carried.dropped);
    out.set(key, value === undefined && carried.text === empty ? undefined : carried.text);
  };
  const list = (key: MetadataFileKey, name: string): void => {
    const v = doc[name] as Json[] | undefined;
    const was = before?.[name] as Json[] | undefined;
    yamlFile(key, v && v.length > 0 ? v : undefined, before ? (was ?? []) : undefined, before ? (t) => sameCanonical(t, name, v) : undefined);
  };
  yamlFile('version', { version: 2 }, before ? { version: 2 } : undefined, before ? (t) => sameCanonical(t, 'version', { version: 2 }) : undefined);
  list('tables', 'tables');
  list('functions', 'functions');
  list('allowList', 'allowlist');
  list('remoteSchemas', 'remote_schemas');
  list('queryCollections', 'query_collections');
  list('cronTriggers', 'cron_triggers');
  list('inheritedRoles', 'inherited_roles');
  list('restEndpoints', 'rest_endpoints');
  const limits = doc['api_limits'] as JsonObject | undefined;
  yamlFile('apiLimits', limits, before ? (before['api_limits'] ?? {}) : undefined, before ? (t) => sameCanonical(t, 'api_limits', limits) : undefined);
  const actions = doc['actions'] as JsonObject[] | undefined;
  const customTypes = doc['custom_types'] as JsonObject | undefined;
  if ((actions?.length ?? 0) > 0 || customTypes) {
    const split = splitActions(actions, customTypes, old.get('actionsGraphql'));
    const sdlKept = before && given.has('actionsGraphql') && jsonEqual(before['actions'] ?? [], actions ?? []) && jsonEqual(before['custom_types'] ?? {}, customTypes ?? {});
    if (!sdlKept) dropped('actionsGraphql', split.droppedComments);
    // Unchanged actions and types keep actions.graphql as written, its order of definitions included.
    out.set('actionsGraphql', sdlKept ? given.get('actionsGraphql') : split.sdl);
    const was = before ? splitActions(before['actions'] as JsonObject[] | undefined, before['custom_types'] as JsonObject | undefined).yaml : undefined;
    // What the old file held beyond the engine's form (an enum's `values`) is kept: only the rest must mean the new value.
    yamlFile('actionsYaml', split.yaml, was, before ? (t) => {
      try {
        return jsonEqual(projected(parse(t), split.yaml), split.yaml);
      } catch {
        return false;
      }
    } : undefined);
  } else {
    out.set('actionsGraphql', undefined);
    yamlFile('actionsYaml', undefined);
  }
  return out;
}

const SCHEMA_HEADER = /^# yaml-language-server: \$schema=(\S*?)[^/\s]+\.schema\.json[ \t]*\r?\n/;

/**
 * A YAML file that is missing (removed by `--prune`, say) in a directory whose other files start with a schema line
 * gets the same line, naming its own schema: the next export recreates it with the header (issue 19).
 */
function withSchemaHeaders(old: ReadonlyMap<MetadataFileKey, string>): ReadonlyMap<MetadataFileKey, string> {
  const base = [...old.values()].map((t) => SCHEMA_HEADER.exec(t)?.[1]).find((b) => b !== undefined);
  if (base === undefined) return old;
  const out = new Map(old);
  for (const [key, [name]] of Object.entries(METADATA_FILES) as [MetadataFileKey, (typeof METADATA_FILES)[MetadataFileKey]][]) {
    if (!out.has(key) && name.endsWith('.yaml')) out.set(key, `# yaml-language-server: $schema=${base}${name.replace(/\.yaml$/, '')}.schema.json\n\n`);
  }
  return out;
}

/** Whether rendered content holds only the empty value of its file (comments aside), so that `--prune` removes it. */
export function isEmptyContent(key: MetadataFileKey, content: string | undefined): boolean {
  if (content === undefined) return true;
  if (key === 'actionsGraphql' || key === 'version') return false;
  const empty = METADATA_FILES[key][1];
  if (content === empty) return true;
  try {
    return JSON.stringify(parse(content)) === JSON.stringify(parse(empty));
  } catch {
    return false;
  }
}

export interface ExportReport {
  created: string[];
  updated: string[];
  removed: string[];
  unchanged: string[];
}

const tmpName = (dir: string, kind: 'tmp' | 'old') => join(dirname(dir), `.${basename(dir)}.engine-${kind}-${randomBytes(4).toString('hex')}`);

/** Cleans up after an interrupted export; returns a warning when the old directory had to be restored. */
export function recoverDirectory(dir: string): string | null {
  const parent = dirname(dir);
  if (!existsSync(parent)) return null;
  const base = basename(dir);
  let warning: string | null = null;
  for (const e of readdirSync(parent)) {
    if (e.startsWith(`.${base}.engine-tmp-`)) rmSync(join(parent, e), { recursive: true, force: true });
  }
  const old = readdirSync(parent).filter((e) => e.startsWith(`.${base}.engine-old-`));
  if (!existsSync(dir) && old[0]) {
    renameSync(join(parent, old[0]), dir);
    warning = `restored ${base}/ from an interrupted export`;
  }
  for (const e of readdirSync(parent)) {
    if (e.startsWith(`.${base}.engine-old-`)) rmSync(join(parent, e), { recursive: true, force: true });
  }
  return warning;
}

/**
 * What `writeMetadataDir` writes: each file's name and content, or null for a file to remove (pruned, or an optional
 * file that would only say "nothing here").
 */
export function plannedFiles(dir: string, files: Map<MetadataFileKey, string | undefined>, prune: boolean): Map<string, string | null> {
  const next = new Map<string, string | null>();
  for (const [key, content] of files) {
    const [name, empty] = METADATA_FILES[key];
    const pruneIt = prune && key !== 'version' && isEmptyContent(key, content);
    // An optional file is not added to a project just to say "nothing here"; one that exists is kept up to date.
    const skipIt = OPTIONAL_FILES.has(key) && isEmptyContent(key, content) && readProjectFile(join(dir, name)) === undefined;
    next.set(name, pruneIt || skipIt ? null : (content ?? empty));
  }
  return next;
}

/** Writes the rendered files into `dir` atomically (cli.md §4.11). */
export function writeMetadataDir(dir: string, files: Map<MetadataFileKey, string | undefined>, prune: boolean): ExportReport {
  return writeTree(dir, plannedFiles(dir, files, prune));
}

/**
 * Writes files into `dir` atomically (cli.md §4.11): a sibling temporary directory gets a copy of the old one, the new
 * files (`next`: path relative to `dir`, `/`-separated, → content; null removes it and the directories it leaves
 * empty), then replaces it with two renames. Nothing is written when no file changes.
 */
export function writeTree(dir: string, next: ReadonlyMap<string, string | null>): ExportReport {
  const report: ExportReport = { created: [], updated: [], removed: [], unchanged: [] };
  for (const [name, content] of next) {
    const old = readProjectFile(join(dir, name)) ?? null;
    if (content === null) {
      if (old !== null) report.removed.push(name);
    } else if (old === null) report.created.push(name);
    else if (old === content) report.unchanged.push(name);
    else report.updated.push(name);
  }
  if (report.created.length + report.updated.length + report.removed.length === 0 && existsSync(dir)) return report;
  const tmp = tmpName(dir, 'tmp');
  try {
    if (existsSync(dir)) cpSync(dir, tmp, { recursive: true });
    else mkdirSync(tmp, { recursive: true });
    for (const [name, content] of next) {
      const path = join(tmp, name);
      if (content !== null) {
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, content);
        continue;
      }
      rmSync(path, { force: true });
      for (let d = dirname(path); d.startsWith(`${tmp}${sep}`) && readdirSync(d).length === 0; d = dirname(d)) rmSync(d, { recursive: true });
    }
    if (!existsSync(dir)) {
      renameSync(tmp, dir);
      return report;
    }
    const old = tmpName(dir, 'old');
    renameSync(dir, old);
    try {
      renameSync(tmp, dir);
    } catch (e) {
      renameSync(old, dir);
      throw e;
    }
    rmSync(old, { recursive: true, force: true });
    return report;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
