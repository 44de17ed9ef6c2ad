import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import jsyaml from 'js-yaml';
import type { Position, Problems } from './problems.js';
import { lineColumn, nonPrintableIndex, nonPrintableMessage } from './project-file.js';

/**
 * One YAML file of a project with its positions: values are read with the Document API so that every key and
 * item can be located (`file:line:col`) and comments survive rewriting.
 */
export interface YamlSource {
  /** The path as messages show it (cli.md conventions). */
  file: string;
  text: string;
  doc: Document;
  lines: LineCounter;
  /** The plain JS value (aliases resolved); undefined for an empty file. */
  value: unknown;
  /**
   * For a value assembled from several files (`!include`, config version 3): where a path of `value` is written, the
   * file and the path inside it. Positions are then those of that file (a `key` position at an include point stays on
   * the including file's key).
   */
  through?: (path: (string | number)[], key: boolean) => { src: YamlSource; path: (string | number)[] };
}

function fullParse(text: string): { doc: Document; lines: LineCounter } {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, strict: true, prettyErrors: false, schema: 'core' });
  return { doc, lines };
}

/**
 * Parses YAML text; syntax problems (one document, core tags, no duplicate keys) are added to `problems`.
 * Values come from js-yaml, several times faster on large files; the position-keeping Document of the
 * `yaml` package is built only when a position is asked for (a problem to report, an object to locate),
 * and it also words the syntax errors, so messages and positions are the same either way.
 */
export function parseYaml(file: string, raw: string, problems: Problems): YamlSource | null {
  const text = raw.replace(/^\uFEFF/, '');
  // The `yaml` package (the reference for errors) reads control characters as text: binary data is no YAML.
  const bad = nonPrintableIndex(text);
  if (bad >= 0) {
    problems.error('yaml-parse-error', nonPrintableMessage(text, bad), { file, ...lineColumn(text, bad) });
    return null;
  }
  let value: unknown;
  try {
    value = jsyaml.load(text, { schema: jsyaml.CORE_SCHEMA, json: false });
  } catch (e) {
    const mark = (e as { mark?: { line?: unknown; column?: unknown }; reason?: unknown }).mark;
    if (text.length > SLICE_ABOVE && typeof mark?.line === 'number' && typeof mark.column === 'number') {
      // The `yaml` package words errors better, but its Document of a large file costs gigabytes: js-yaml's error.
      const reason = (e as { reason?: unknown }).reason;
      problems.error('yaml-parse-error', typeof reason === 'string' ? reason : String(e), { file, line: mark.line + 1, column: mark.column + 1 });
      return null;
    }
    return slowParse(file, text, problems);
  }
  let parsed: { doc: Document; lines: LineCounter } | null = null;
  const full = () => (parsed ??= fullParse(text));
  return {
    file, text, value: value === null ? undefined : value,
    get doc() {
      return full().doc;
    },
    get lines() {
      return full().lines;
    },
  };
}

function slowParse(file: string, text: string, problems: Problems): YamlSource | null {
  const { doc, lines } = fullParse(text);
  const errs = [...doc.errors];
  if (errs.length > 0) {
    for (const e of errs) {
      const p = lines.linePos(e.pos[0]);
      problems.error('yaml-parse-error', e.message.split('\n')[0] ?? e.message, { file, line: p.line, column: p.col });
    }
    return null;
  }
  // More than one document in a file is an error (cli.md §4.1).
  if (/^---\s*$/m.test(text.slice(doc.range?.[2] ?? text.length))) {
    const p = lines.linePos(doc.range?.[2] ?? 0);
    problems.error('yaml-parse-error', 'expected a single YAML document', { file, line: p.line, column: p.col });
    return null;
  }
  // Valid for the `yaml` package though not for js-yaml: its reading is the reference.
  return { file, text, doc, lines, value: doc.contents === null ? undefined : doc.toJS({ maxAliasCount: 1000 }) };
}

/** The node at a path of keys and indexes, or the deepest existing ancestor. */
export function nodeAt(src: YamlSource, path: (string | number)[]): Node | null {
  let node: unknown = src.doc.contents;
  for (const k of path) {
    if (isMap(node)) {
      const pair = node.items.find((it) => isScalar(it.key) && String(it.key.value) === String(k));
      if (!pair) break;
      node = pair.value;
    } else if (isSeq(node) && typeof k === 'number' && node.items[k] !== undefined) {
      node = node.items[k];
    } else break;
  }
  return (node as Node | null) ?? null;
}

/** The position of the value at `path` (of its key when `key` is set), or of the deepest existing ancestor. */
export function positionAt(src: YamlSource, path: (string | number)[], key = false): Position {
  if (src.through) {
    const at = src.through(path, key);
    return positionAt(at.src, at.path, key);
  }
  const big = typeof path[0] === 'number' && src.text.length > SLICE_ABOVE;
  if (big && path.length === 1 && !key) {
    // An item itself (where every table, function, … is reported): where its content starts on the `-` line.
    const start = itemStart(src, path[0] as number);
    const dash = start ? /^-[ \t]*(?=[^\s#])/.exec(src.text.slice(start.offset, start.offset + 256)) : null;
    if (start && dash) return { file: src.file, line: start.line, column: dash[0].length + 1 };
  }
  const item = big ? topItem(src, path[0] as number) : null;
  if (item) {
    const p = positionIn(item.doc, item.lines, [0, ...path.slice(1)], key);
    return { file: src.file, line: p.line + item.line - 1, column: p.column };
  }
  return { file: src.file, ...positionIn(src.doc, src.lines, path, key) };
}

function positionIn(doc: Document, lines: LineCounter, path: (string | number)[], key: boolean): { line: number; column: number } {
  let offset = 0;
  let node: unknown = doc.contents;
  for (const k of path) {
    if (isMap(node)) {
      const pair = node.items.find((it) => isScalar(it.key) && String(it.key.value) === String(k));
      if (!pair) break;
      offset = (key && k === path[path.length - 1] ? (pair.key as Node).range?.[0] : (pair.value as Node | null)?.range?.[0]) ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof k === 'number' && node.items[k] !== undefined) {
      node = node.items[k];
      offset = (node as Node).range?.[0] ?? offset;
    } else break;
  }
  if (path.length === 0) offset = (node as Node | null)?.range?.[0] ?? 0;
  const p = lines.linePos(offset);
  return { line: p.line, column: p.col };
}

/**
 * Above this size a position inside a top-level list is found in its item alone: the position-keeping Document of
 * the whole file costs about 70 times the text (a 49 MB tables.yaml took more than 3.5 GB), one item's almost nothing.
 */
const SLICE_ABOVE = 2 * 1024 * 1024;

/** Where each item of a top-level block sequence starts (offsets), per source; null when the file is not one. */
const itemStarts = new WeakMap<YamlSource, { offsets: number[]; lines: number[] } | null>();

/**
 * The `index`-th item of a top-level block sequence written at column 0 (as export writes every list file), parsed on
 * its own, and the line it starts on. In such a sequence a line starting with `-` and a blank at column 0 always begins
 * an item: nested content, block scalars and continued flow scalars are indented. Null (use the whole Document) when
 * the file has another shape, which the item count given by the parser also catches.
 */
function topItem(src: YamlSource, index: number): { doc: Document; lines: LineCounter; line: number } | null {
  const cached = lastItem.get(src);
  if (cached?.index === index) return cached.item;
  const start = itemStart(src, index);
  if (!start) return null;
  const { doc, lines } = fullParse(src.text.slice(start.offset, start.end));
  const item = doc.errors.length > 0 ? null : { doc, lines, line: start.line };
  // Positions are asked for object by object, so several in a row fall in the same item.
  lastItem.set(src, { index, item });
  return item;
}

const lastItem = new WeakMap<YamlSource, { index: number; item: { doc: Document; lines: LineCounter; line: number } | null }>();

/** The offsets and first line of the `index`-th item of a top-level block sequence at column 0 (see topItem). */
function itemStart(src: YamlSource, index: number): { offset: number; end: number; line: number } | null {
  let starts = itemStarts.get(src);
  if (starts === undefined) {
    starts = null;
    const first = /^(?!#)\S.*$/m.exec(src.text);
    if (Array.isArray(src.value) && first && /^-(\s|$)/.test(first[0])) {
      const offsets = [...src.text.matchAll(/^-(?=[ \t\r\n]|$)/gm)].map((m) => m.index);
      if (offsets.length === src.value.length) {
        // The line of each start, counted in one pass.
        const lines: number[] = [];
        let line = 1;
        let at = 0;
        for (const o of offsets) {
          for (let i = src.text.indexOf('\n', at); i >= 0 && i < o; i = src.text.indexOf('\n', i + 1)) line++;
          at = o;
          lines.push(line);
        }
        starts = { offsets, lines };
      }
    }
    itemStarts.set(src, starts);
  }
  const offset = starts?.offsets[index];
  if (!starts || offset === undefined) return null;
  return { offset, end: starts.offsets[index + 1] ?? src.text.length, line: starts.lines[index] ?? 1 };
}

/**
 * A position computed on first read: recording where every object is costs nothing until one is reported
 * (positions need the full Document, which is parsed only then).
 */
export function lazyPosition(src: YamlSource, path: (string | number)[], key = false): Position {
  let p: Position | null = null;
  const get = () => (p ??= positionAt(src, path, key));
  return {
    get file() {
      return src.through ? src.through(path, key).src.file : src.file;
    },
    get line() {
      return get().line;
    },
    get column() {
      return get().column;
    },
  };
}
