import { join, posix, relative, sep } from 'node:path';
import { isObject, type Json, type JsonObject } from '../../../metadata/json.js';
import { METADATA_FILES, type MetadataFileKey } from '../build.js';
import { plannedFiles, readExistingFiles, renderFiles, sameCanonical, toYaml, updatedYaml, writeTree, type ExportReport } from '../export.js';
import { jsonEqual } from '../../../metadata/diff.js';
import { parse } from 'yaml';
import { Problems } from '../../problems.js';
import { readProjectFile } from '../../project-file.js';
import { carryComments } from '../yaml-comments.js';
import { includeTarget, loadFile, type IncludeTree } from './includes.js';
import { databaseFiles, DATABASES_DIR, DATABASES_FILE } from './read.js';

/**
 * Export in the config version 3 layout: `databases/databases.yaml` with the one database entry (its name, kind and
 * configuration kept as written), a list file `databases/<db>/tables/tables.yaml` of `"!include <schema>_<name>.yaml"`
 * and one file per table beside it; functions the same under `functions/`. A table keeps the file it was in, with its
 * comments; the files of tables that no longer exist are removed.
 */

/** `<schema>.<name>` of a table or function entry (its `table`/`function` QName), or undefined. */
function identity(item: unknown, key: 'table' | 'function'): string | undefined {
  const q = isObject(item) ? item[key] : undefined;
  if (typeof q === 'string') return `public.${q}`;
  return isObject(q) && typeof q['name'] === 'string' ? `${typeof q['schema'] === 'string' ? q['schema'] : 'public'}.${q['name']}` : undefined;
}

/** A file that held a table or function: where (relative to the metadata directory, `/`-separated) and its text. */
interface ItemFile {
  path?: string;
  text: string;
}

export interface ExistingV3 {
  /** Texts of the top-level files (tables and functions aside). */
  top: Map<MetadataFileKey, string>;
  databasesText?: string;
  /** databases.yaml as written (includes not followed). */
  databases?: unknown[];
  /** The list files the database entry included, relative. */
  lists: Partial<Record<'tables' | 'functions', ItemFile>>;
  /** Identity → the file of each table and function, its text in mapping form (for its comments). */
  items: Record<'tables' | 'functions', Map<string, ItemFile>>;
  /** Relative paths of the files reached from databases.yaml, and the files the new layout replaces: removed unless written. */
  replaced: Set<string>;
  /** Relative paths of the other files under `databases/`: a new table's file never takes their name. */
  others: Set<string>;
}

/** A directory without files yet. */
export const noExisting = (): ExistingV3 => ({ top: new Map(), lists: {}, items: { tables: new Map(), functions: new Map() }, replaced: new Set(), others: new Set() });

const rel = (dir: string, abs: string): string => relative(dir, abs).split(sep).join('/');

/** What export needs of a version 3 directory: its texts and which file holds which table (problems are not reported). */
export function readExistingV3(dir: string): ExistingV3 {
  const top = readExistingFiles(dir);
  top.delete('tables');
  top.delete('functions');
  const out: ExistingV3 = { ...noExisting(), top };
  const dbPath = join(dir, DATABASES_DIR, DATABASES_FILE);
  const text = readProjectFile(dbPath);
  if (text === undefined) return out;
  out.databasesText = text;
  const read = new Set<string>();
  const tree = loadFile(dbPath, { metadataDir: dir, cwd: dir, problems: new Problems(), read, sources: new Map(), failed: [] });
  if (Array.isArray(tree?.src.value)) out.databases = tree.src.value;
  for (const f of read) if (f !== dbPath) out.replaced.add(rel(dir, f));
  for (const f of databaseFiles(dir)) if (!read.has(f)) out.others.add(rel(dir, f).toLowerCase());
  for (const key of ['tables', 'functions'] as const) {
    const list = tree?.includes.get(JSON.stringify([0, key]));
    if (!list) continue;
    out.lists[key] = { path: rel(dir, list.path), text: list.src.text };
    const value = Array.isArray(list.value) ? list.value : [];
    value.forEach((item, i) => {
      const id = identity(item, key === 'tables' ? 'table' : 'function');
      const file: IncludeTree | undefined = list.includes.get(JSON.stringify([i]));
      if (id !== undefined && file && !out.items[key].has(id)) out.items[key].set(id, { path: rel(dir, file.path), text: file.src.text });
    });
  }
  return out;
}

/**
 * What a version 2 directory holds, as the version 3 export sees it (`engine config upgrade --to 3`): the top-level
 * files, and each table's and function's comments taken from tables.yaml and functions.yaml.
 */
export function existingFromV2(dir: string, doc: JsonObject): ExistingV3 {
  const top = readExistingFiles(dir);
  const out: ExistingV3 = { ...noExisting(), top };
  for (const key of ['tables', 'functions'] as const) {
    const old = top.get(key);
    top.delete(key);
    if (old === undefined) continue;
    out.replaced.add(METADATA_FILES[key][0]);
    for (const item of (doc[key] ?? []) as JsonObject[]) {
      const id = identity(item, key === 'tables' ? 'table' : 'function');
      if (id !== undefined) out.items[key].set(id, { text: itemText(carryComments(toYaml([item]), old).text) });
    }
  }
  return out;
}

/** A one-item list as written by toYaml (comments carried) → the item as a mapping; a file header is left out. */
function itemText(list: string): string {
  const lines = list.split('\n');
  const dash = lines.findIndex((l) => l.startsWith('-'));
  const body = lines.slice(Math.max(dash, 0));
  // Comment lines just above the item belong to it: keep them.
  for (let i = dash - 1; i >= 0 && (lines[i] ?? '').startsWith('#'); i--) body.unshift(lines[i] as string);
  return body.map((l) => (l.startsWith('- ') ? l.slice(2) : l.startsWith('  ') ? l.slice(2) : l)).join('\n');
}

/** The database entry of a project that had none (written like the incumbent's, with the engine's variable). */
const NEW_DATABASE: JsonObject = {
  name: 'default',
  kind: 'postgres',
  configuration: { connection_info: { database_url: { from_env: 'ENGINE_GRAPHQL_DATABASE_URL' } } },
};

export interface RenderedV3 {
  /** Top-level files, as renderFiles gives them. */
  top: Map<MetadataFileKey, string | undefined>;
  /** Files under `databases/` (relative, `/`-separated) → content, or null to remove. */
  nested: Map<string, string | null>;
}

/**
 * Renders a canonical document in the version 3 layout. `onDroppedComments` is told, per file (relative path), how many
 * comment lines had nothing left to belong to.
 */
export function renderV3(
  doc: JsonObject, existing: ExistingV3, onDroppedComments?: (n: number, file: string) => void, before?: JsonObject | null,
): RenderedV3 {
  const dropped = (n: number, file: string) => {
    if (n > 0) onDroppedComments?.(n, file);
  };
  const top = renderFiles(doc, existing.top, onDroppedComments, before);
  top.delete('tables');
  top.delete('functions');
  const version = carryComments(toYaml({ version: 3 }), existing.top.get('version'));
  dropped(version.dropped, METADATA_FILES.version[0]);
  top.set('version', version.text);

  const nested = new Map<string, string | null>();
  const [first, ...others] = existing.databases ?? [];
  const entry: JsonObject = isObject(first) ? { ...first } : { ...NEW_DATABASE };
  const name = typeof entry['name'] === 'string' && entry['name'] !== '' ? entry['name'].replace(/[\\/]/g, '_') : 'default';
  const dbDir = DATABASES_DIR;
  for (const key of ['tables', 'functions'] as const) {
    const items = (doc[key] ?? []) as JsonObject[];
    if (key === 'functions' && items.length === 0 && !('functions' in entry)) continue;
    const target = includeTarget(entry[key]);
    const listPath = existing.lists[key]?.path ?? (target !== undefined ? posix.normalize(`${dbDir}/${target}`) : `${dbDir}/${name}/${key}/${key}.yaml`);
    entry[key] = `!include ${posix.relative(dbDir, listPath)}`;
    const listDir = posix.dirname(listPath);
    // Tables that keep their file keep it even when a new table would be named the same.
    const used = new Set([...existing.others, ...items.flatMap((item) => existing.items[key].get(identity(item, key === 'tables' ? 'table' : 'function') ?? '')?.path?.toLowerCase() ?? [])]);
    const includes: string[] = [];
    for (const item of items) {
      const id = identity(item, key === 'tables' ? 'table' : 'function') ?? '';
      const old = existing.items[key].get(id);
      const path = old?.path ?? freeName(listDir, id, used);
      used.add(path.toLowerCase());
      const was = before ? ((before[key] ?? []) as JsonObject[]).find((b) => identity(b, key === 'tables' ? 'table' : 'function') === id) : undefined;
      const carried = updatedYaml(item, old?.text, was, (t) => sameCanonical(`- ${t.replace(/\n(?=.)/g, '\n  ')}`, key, [item]));
      dropped(carried.dropped, path);
      nested.set(path, carried.text);
      includes.push(`!include ${posix.relative(listDir, path)}`);
    }
    const oldList = existing.lists[key]?.text;
    const list = updatedYaml(includes, oldList, oldList === undefined ? undefined : parsed(oldList), (t) => jsonEqual(parsed(t), includes));
    dropped(list.dropped, listPath);
    nested.set(listPath, list.text);
  }
  const entries = [entry, ...(others as Json[])];
  const databases = updatedYaml(entries, existing.databasesText, existing.databases, (t) => jsonEqual(parsed(t), entries));
  dropped(databases.dropped, `${dbDir}/${DATABASES_FILE}`);
  nested.set(`${dbDir}/${DATABASES_FILE}`, databases.text);
  for (const f of existing.replaced) if (!nested.has(f)) nested.set(f, null);
  return { top, nested };
}

/** A YAML text's value, or undefined when it does not parse. */
function parsed(text: string): unknown {
  try {
    return parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** `<schema>_<name>.yaml` in `dir` (as the incumbent names them), made unique when two entries would share it. */
function freeName(dir: string, id: string, used: Set<string>): string {
  const dot = id.indexOf('.');
  const base = `${id.slice(0, dot)}_${id.slice(dot + 1)}`.replace(/[\\/\0]/g, '_');
  let path = `${dir}/${base}.yaml`;
  for (let n = 2; used.has(path.toLowerCase()); n++) path = `${dir}/${base}_${n}.yaml`;
  return path;
}

/** Export into a version 3 directory (cli.md §4.8 and §4.11, with the layout above); `--prune` acts on the top-level files. */
export function exportV3(
  dir: string, doc: JsonObject, existing: ExistingV3, prune: boolean, onDroppedComments?: (n: number, file: string) => void, before?: JsonObject | null,
): ExportReport {
  const r = renderV3(doc, existing, onDroppedComments, before);
  return writeTree(dir, new Map([...plannedFiles(dir, r.top, prune), ...r.nested]));
}
