import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import type { Position, Problems } from './problems.js';

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
}

/** Parses YAML text; syntax problems (one document, core tags, no duplicate keys) are added to `problems`. */
export function parseYaml(file: string, raw: string, problems: Problems): YamlSource | null {
  const text = raw.replace(/^\uFEFF/, '');
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, strict: true, prettyErrors: false, schema: 'core' });
  const errs = [...doc.errors];
  if (errs.length > 0) {
    for (const e of errs) {
      const p = lines.linePos(e.pos[0]);
      problems.error('yaml-parse-error', e.message.split('\n')[0] ?? e.message, { file, line: p.line, column: p.col });
    }
    return null;
  }
  // More than one document in a file is an error (cli.md §4.1).
  const more = /^---\s*$/m.test(text.slice(doc.range?.[2] ?? text.length));
  if (more) {
    const p = lines.linePos(doc.range?.[2] ?? 0);
    problems.error('yaml-parse-error', 'expected a single YAML document', { file, line: p.line, column: p.col });
    return null;
  }
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
  let offset = 0;
  let node: unknown = src.doc.contents;
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
  const p = src.lines.linePos(offset);
  return { file: src.file, line: p.line, column: p.col };
}
