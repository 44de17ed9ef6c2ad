import { rmSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { isMap, isScalar, isSeq, parseDocument, stringify, YAMLMap, YAMLSeq, type Node } from 'yaml';
import type { Group } from '../metadata-dir/actions-sdl.js';
import { atomicWrite } from './codegen.js';
import { METADATA_FILES } from '../metadata-dir/build.js';
import { readProjectBytes } from '../project-file.js';

/**
 * The file writes of `engine actions create` (cli.md §5.10 step 6, §4.11): actions.yaml gets the new entries inserted
 * as text where its lists end (every existing byte and comment stays), both files are written through temporary
 * siblings, and their previous bytes are kept to restore them if a later step fails.
 */

export interface YamlAddition {
  action: { name: string; kind: string; handler: string };
  types: { name: string; group: Group }[];
}

/** A scalar as actions.yaml shows it: plain when that reads back as the same string, else double-quoted. */
function scalar(v: string): string {
  const plain = stringify(v, { lineWidth: 0 }).replace(/\n$/, '');
  return plain.includes('\n') ? JSON.stringify(v) : plain;
}

const keyName = (k: unknown): string => (isScalar(k) ? String(k.value) : '');

function valueAt(map: unknown, key: string): { found: boolean; node: Node | null; keyNode?: Node } {
  if (!isMap(map)) return { found: false, node: null };
  const pair = map.items.find((p) => keyName(p.key) === key);
  return pair ? { found: true, node: (pair.value as Node | null) ?? null, keyNode: pair.key as Node } : { found: false, node: null };
}

/** The block lines of one sequence item (a mapping) at the dash column `indent`. */
function itemLines(fields: [string, string | [string, string][]][], indent: number): string {
  const pad = ' '.repeat(indent);
  return fields.map(([k, v], i) => {
    const head = `${pad}${i === 0 ? '- ' : '  '}${k}:`;
    if (typeof v === 'string') return `${head} ${scalar(v)}\n`;
    return `${head}\n${v.map(([k2, v2]) => `${pad}    ${k2}: ${scalar(v2)}\n`).join('')}`;
  }).join('');
}

/**
 * Inserts one item at the end of the list at `path` (`['actions']`, `['custom_types', 'objects']`) by editing text;
 * null when the list is not a block list, an empty flow list or null (the caller falls back to a Document edit).
 */
function insertItem(text: string, path: string[], fields: [string, string | [string, string][]][]): string | null {
  const doc = parseDocument(text);
  let parent: unknown = doc.contents;
  for (const k of path.slice(0, -1)) parent = valueAt(parent, k).node;
  const at = valueAt(parent, path[path.length - 1] as string);
  if (!at.found || !at.keyNode?.range) return null;
  const lineStart = (o: number) => text.lastIndexOf('\n', o - 1) + 1;
  const keyCol = at.keyNode.range[0] - lineStart(at.keyNode.range[0]);
  const node = at.node;
  if (isSeq(node) && !node.flow && node.items.length > 0 && node.range) {
    const dashCol = node.range[0] - lineStart(node.range[0]);
    const last = node.items[node.items.length - 1] as Node;
    let end = last.range?.[1] ?? node.range[1];
    while (end > 0 && /\s/.test(text[end - 1] as string)) end--;
    const nl = text.indexOf('\n', end);
    const insertAt = nl < 0 ? text.length : nl + 1;
    const prefix = nl < 0 ? '\n' : '';
    return text.slice(0, insertAt) + prefix + itemLines(fields, dashCol) + text.slice(insertAt);
  }
  const empty = (isSeq(node) && node.flow && node.items.length === 0) || node === null || (isScalar(node) && node.value === null);
  if (!empty) return null;
  const items = itemLines(fields, keyCol + 2).replace(/\n$/, '');
  if (node?.range && node.range[1] > node.range[0]) {
    return `${text.slice(0, node.range[0]).replace(/[ \t]+$/, '')}\n${items}${text.slice(node.range[1])}`;
  }
  // `key:` with nothing after it: the items go on the following lines.
  const colon = text.indexOf(':', at.keyNode.range[1]);
  const nl = text.indexOf('\n', colon);
  return nl < 0 ? `${text}\n${items}\n` : `${text.slice(0, nl)}\n${items}${text.slice(nl)}`;
}

/** The same insertion through the Document API (block style), for shapes the text edit does not handle. */
function insertWithDocument(text: string, path: string[], item: Record<string, unknown>): string {
  const doc = parseDocument(text);
  if (!isMap(doc.contents)) doc.contents = new YAMLMap() as never;
  let map = doc.contents as unknown as YAMLMap;
  for (const k of path.slice(0, -1)) {
    let next = map.get(k, true) as unknown;
    if (!isMap(next)) {
      next = new YAMLMap();
      map.set(k, next);
    }
    map = next as YAMLMap;
  }
  const last = path[path.length - 1] as string;
  let seq = map.get(last, true) as unknown;
  if (!isSeq(seq)) {
    seq = new YAMLSeq();
    map.set(last, seq);
  }
  (seq as YAMLSeq).flow = false;
  (seq as YAMLSeq).add(doc.createNode(item));
  return doc.toString({ lineWidth: 0 });
}

function addItem(text: string, path: string[], fields: [string, string | [string, string][]][]): string {
  const item = Object.fromEntries(fields.map(([k, v]) => [k, typeof v === 'string' ? v : Object.fromEntries(v)]));
  const before = parseDocument(text).toJS() as Record<string, unknown> | null;
  const expected = structuredClone(before ?? {}) as Record<string, unknown>;
  let m = expected;
  for (const k of path.slice(0, -1)) m = (m[k] ??= {}) as Record<string, unknown>;
  const key = path[path.length - 1] as string;
  m[key] = [...(Array.isArray(m[key]) ? (m[key] as unknown[]) : []), item];
  const edited = insertItem(text, path, fields);
  if (edited !== null) {
    const doc = parseDocument(edited);
    if (doc.errors.length === 0 && isDeepStrictEqual(doc.toJS(), expected)) return edited;
  }
  return insertWithDocument(text, path, item);
}

/** actions.yaml with the new action and its custom types appended (created from the §4.1 skeleton when missing). */
export function addToActionsYaml(existing: string | null, add: YamlAddition): string {
  let text = existing === null || existing.trim() === '' ? METADATA_FILES.actionsYaml[1] : existing;
  text = addItem(text, ['actions'], [['name', add.action.name], ['definition', [['kind', add.action.kind], ['handler', add.action.handler]]]]);
  for (const t of add.types) text = addItem(text, ['custom_types', t.group], [['name', t.name]]);
  return text;
}

/** Files written together: each one's previous bytes (null: it did not exist), to put back on failure. */
export class FileSet {
  private readonly previous = new Map<string, Buffer | null>();

  write(path: string, content: string): void {
    if (!this.previous.has(path)) this.previous.set(path, readProjectBytes(path) ?? null);
    atomicWrite(path, content);
  }

  /** Every file back to its previous bytes (removed if it did not exist); best effort, synchronous. */
  restore(): void {
    for (const [path, bytes] of this.previous) {
      try {
        if (bytes === null) rmSync(path, { force: true });
        else atomicWrite(path, bytes);
      } catch {
        // Keep restoring the others; the original failure is the one reported.
      }
    }
  }
}
