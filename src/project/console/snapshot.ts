import { renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, basename, join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { parse } from 'yaml';
import { CliError } from '../../errors.js';
import { canonicalDocument } from '../../metadata/document.js';
import { jsonEqual } from '../../metadata/diff.js';
import type { JsonObject } from '../../metadata/json.js';
import type { ProjectConfig } from '../config/config.js';
import { buildMetadata, layoutOf, METADATA_FILES } from '../metadata-dir/build.js';
import { databaseFiles } from '../metadata-dir/layout-v3/read.js';
import { updatedYaml } from '../metadata-dir/export.js';
import { readProjectFile } from '../project-file.js';

/**
 * The project's metadata as `engine console` last read or wrote it, kept between edits: at 2,000 tables, parsing and
 * validating every file for each edit costs seconds, while an edit changes one table. The snapshot is valid as long as
 * the files' stamp (size, mtime and inode of each) is the one it was taken at; anything else rebuilds it.
 */
export interface ProjectSnapshot {
  stamp: string;
  /** The canonical document (engine-api.md §6) the files hold. */
  document: JsonObject;
  /** Each table (`schema.name`) as written (not canonical) and where: a file of its own, or an item of a list file. */
  tables: Map<string, TableSource>;
  /** How many items the version 2 tables.yaml lists (each cut out of it must be one of them). */
  listed: number;
}

export interface TableSource {
  written: unknown;
  file: string;
  /** Its index in the list of a version 2 tables.yaml; null for a file that holds only this table. */
  item: number | null;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every file a build of the metadata directory reads, stamped: a change made by anyone (an editor, git) shows. */
export function stampOf(config: ProjectConfig): string {
  const dir = config.metadataDirectory;
  const paths = [...Object.values(METADATA_FILES).map(([name]) => join(dir, name)), ...(config.version === 3 ? databaseFiles(dir, config.baseDir) : [])];
  return paths.map((p) => {
    const s = statSync(p, { throwIfNoEntry: false });
    return s ? `${p}\t${s.size}\t${s.mtimeMs}\t${s.ino}` : `${p}\t-`;
  }).join('\n');
}

/** Builds the project's metadata (every file parsed and validated); an invalid project is refused, as before any edit. */
export function takeSnapshot(config: ProjectConfig): ProjectSnapshot {
  const stamp = stampOf(config);
  const b = buildMetadata(config.metadataDirectory, config.baseDir, layoutOf(config.version));
  if (!b.document) {
    const first = b.problems.list.find((p) => p.severity === 'error');
    throw new CliError('metadata-invalid', `the project's metadata has errors${first ? `: ${first.message}` : ''}`, 1, {
      hint: "run 'engine metadata validate' and correct the files first",
    });
  }
  const tables = new Map<string, TableSource>();
  let listed = 0;
  const v2 = b.sources.get('tables');
  if (config.version !== 3 && v2 && Array.isArray(v2.value)) {
    listed = v2.value.length;
    const file = resolve(config.baseDir, v2.file);
    (v2.value as unknown[]).forEach((written, item) => {
      const key = isObj(written) ? tableKey(written['table']) : undefined;
      if (key !== undefined) tables.set(key, { written, file, item });
    });
  } else if (config.version === 3) {
    // Version 3 keeps a table in a file of its own (`!include`d): the sources are every file parsed.
    for (const src of b.sources.values()) {
      const key = isObj(src.value) ? tableKey(src.value['table']) : undefined;
      if (key !== undefined && !tables.has(key)) tables.set(key, { written: src.value, file: resolve(config.baseDir, src.file), item: null });
    }
  }
  return { stamp, document: b.document, tables, listed };
}

/** The snapshot of `cached` when the files are still those it was taken of, else a new one. */
export function currentSnapshot(config: ProjectConfig, cached: ProjectSnapshot | null): ProjectSnapshot {
  return cached && cached.stamp === stampOf(config) ? cached : takeSnapshot(config);
}

export const tableKey = (t: unknown): string | undefined => {
  if (typeof t === 'string') return `public.${t}`;
  return isObj(t) && typeof t['name'] === 'string' ? `${typeof t['schema'] === 'string' ? t['schema'] : 'public'}.${t['name']}` : undefined;
};

/** One table entry in canonical form (the document's); null when it is not a valid one, or the parser's error with `strict`. */
export function canonicalTable(entry: unknown, strict = false): JsonObject | null {
  try {
    const tables = canonicalDocument({ version: 2, tables: [entry] })['tables'];
    return Array.isArray(tables) && isObj(tables[0]) ? (tables[0] as JsonObject) : null;
  } catch (e) {
    if (strict) throw e;
    return null;
  }
}

/** Lines starting a top-level item of a block sequence written at column 0 (`- …` or a lone `-`). */
function itemStarts(text: string): number[] {
  return [...text.matchAll(/^-(?=[ \t]|\r?$)/gm)].map((m) => m.index ?? 0);
}

const sameTables = (text: string, value: unknown[]): boolean => {
  try {
    const parsed: unknown = parse(text);
    const a = canonicalDocument({ version: 2, tables: Array.isArray(parsed) ? parsed : [parsed] })['tables'];
    return jsonEqual(a, canonicalDocument({ version: 2, tables: value })['tables']);
  } catch {
    return false;
  }
};

/**
 * The new text of the file holding a table (`where`) with its entry rewritten to `after`, only that entry's
 * changed lines touched (the writer of `metadata export`, yaml-splice.ts, on that entry alone), or null when the file
 * is not laid out so that the entry can be cut out safely (a flow-style list, a list not at column 0…): the caller then
 * writes the whole document. Each cut is checked to mean exactly the entry before and after.
 */
export function rewriteTable(snapshot: ProjectSnapshot, where: TableSource, after: unknown): { file: string; before: string; text: string } | null {
  const text = readProjectFile(where.file);
  if (text === undefined || text.startsWith('\uFEFF')) return null;
  let start = 0;
  let end = text.length;
  if (where.item !== null) {
    const starts = itemStarts(text);
    if (starts.length !== snapshot.listed) return null;
    start = starts[where.item] as number;
    end = starts[where.item + 1] ?? text.length;
    // Blank lines and comments at column 0 before the next item are that item's (export keeps them above it).
    for (;;) {
      const line = text.lastIndexOf('\n', end - 2) + 1;
      if (line <= start) break;
      const content = text.slice(line, end);
      if (content.trim() !== '' && !content.startsWith('#')) break;
      end = line;
    }
  }
  const cut = text.slice(start, end);
  const wrap = (v: unknown) => (where.item === null ? v : [v]);
  if (!sameTables(cut, [where.written])) return null;
  // Spliced in place when it can be (only the changed lines), else the entry rendered anew in the file's style with
  // its comments carried: the export writer's two ways, on this entry alone.
  const written = updatedYaml(wrap(after), cut, wrap(where.written), (t) => sameTables(t, [after]));
  if (!sameTables(written.text, [after])) return null;
  return { file: where.file, before: text, text: text.slice(0, start) + written.text + text.slice(end) };
}

/** Replaces one file atomically (a sibling written, then renamed over it): a reader sees the old text or the new. */
export function replaceFile(file: string, text: string): void {
  const tmp = join(dirname(file), `.${basename(file)}.engine-tmp-${randomBytes(4).toString('hex')}`);
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, file);
  } finally {
    rmSync(tmp, { force: true });
  }
}
