import { isMap, isScalar, isSeq, parseDocument, stringify, type Node, type Pair, type Scalar, type YAMLMap, type YAMLSeq } from 'yaml';
import { jsonEqual } from '../../metadata/diff.js';
import { carryComments } from './yaml-comments.js';

/**
 * Export that changes only what changed (issue 29): the existing text of a file is kept, and only the keys and sequence
 * items whose meaning changed are rewritten in place — in the file's own style (indentation, sequences indented or not
 * under their key, quotes, flow or block) — with the comments they held. What the engine leaves out but the file wrote
 * (`backend_only: false`, `insertion_order: null`, an action enum's `values`) stays. Whether a part changed is judged on
 * the canonical values: the file's, as built by the project tool, against the engine's.
 */

export interface YamlStyle {
  indent: number;
  indentSeq: boolean;
  singleQuote: boolean;
}

export const DEFAULT_STYLE: YamlStyle = { indent: 2, indentSeq: true, singleQuote: false };

/**
 * A value as YAML in a style. YAML 1.1 rules decide what is quoted, so that `y`, `n`, `yes`, `no`, `on` and `off` (booleans
 * to YAML 1.1 readers, the incumbent's included) are always quoted; the text reads the same as YAML 1.2.
 */
export function renderYaml(value: unknown, style: YamlStyle = DEFAULT_STYLE, flow = false): string {
  return stringify(value, {
    indent: style.indent, indentSeq: style.indentSeq, lineWidth: 0, singleQuote: style.singleQuote, blockQuote: 'literal',
    version: '1.1', ...(flow ? { collectionStyle: 'flow' as const } : {}),
  });
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `{schema, name}` or a string (schema `public`) as one text; else undefined. */
function qualified(v: unknown): string | undefined {
  if (typeof v === 'string') return JSON.stringify(['public', v]);
  if (isObj(v) && typeof v['name'] === 'string') return JSON.stringify([typeof v['schema'] === 'string' ? v['schema'] : 'public', v['name']]);
  return undefined;
}

/** The identity of a sequence item: what names it among its siblings (cli.md §4.10), or its index. */
function identity(v: unknown, index: number): string {
  if (isObj(v)) {
    for (const k of ['table', 'function']) {
      const q = qualified(v[k]);
      if (q !== undefined) return `${k}:${q}`;
    }
    for (const k of ['role', 'role_name', 'collection', 'name', 'value']) {
      const x = v[k];
      if (typeof x === 'string' || typeof x === 'number') return `${k}:${JSON.stringify(x)}`;
    }
    return `#${index}`;
  }
  return Array.isArray(v) ? `#${index}` : `=${JSON.stringify(v)}`;
}

/** Identities of a list, or null when two items share one. */
function identities(items: readonly unknown[]): string[] | null {
  const ids = items.map(identity);
  return new Set(ids).size === ids.length ? ids : null;
}

/** The style of an existing text: its indentation step, whether block sequences are indented under keys, its quotes. */
export function detectStyle(text: string): YamlStyle {
  const doc = parseDocument(text, { keepSourceTokens: true });
  const style = { ...DEFAULT_STYLE };
  let indent: number | undefined;
  let indentSeq: boolean | undefined;
  let single = 0;
  let double = 0;
  const col = (offset: number) => offset - (text.lastIndexOf('\n', offset - 1) + 1);
  const walk = (n: unknown): void => {
    if (isScalar(n)) {
      if (n.type === 'QUOTE_SINGLE') single++;
      if (n.type === 'QUOTE_DOUBLE') double++;
    } else if (isMap(n)) {
      for (const p of n.items) {
        const v = p.value as Node | null;
        const k = p.key as Node | null;
        walk(k);
        walk(v);
        if (!k?.range || !v || ((isMap(v) || isSeq(v)) && v.flow) || !v.range) continue;
        if (isMap(v) && indent === undefined && v.items[0]) {
          const first = (v.items[0].key as Node | null)?.range?.[0];
          if (first !== undefined && text.lastIndexOf('\n', first) > k.range[0]) indent = col(first) - col(k.range[0]);
        }
        if (isSeq(v) && indentSeq === undefined && v.items.length > 0) indentSeq = col(v.range[0]) > col(k.range[0]);
      }
    } else if (isSeq(n)) for (const it of n.items) walk(it);
  };
  walk(doc.contents);
  if (indent !== undefined && indent > 0) style.indent = indent;
  if (indentSeq !== undefined) style.indentSeq = indentSeq;
  style.singleQuote = single > double;
  return style;
}

/** Splices the changes between `oldValue` and `newValue` into `text`; null when the file cannot be edited in place. */
export function spliceYaml(
  text: string, oldValue: unknown, newValue: unknown, verify: (text: string) => boolean,
): { text: string; dropped: number } | null {
  if (jsonEqual(oldValue, newValue)) return { text, dropped: 0 };
  const doc = parseDocument(text, { keepSourceTokens: true });
  if (doc.errors.length > 0) return null;
  const s = new Splicer(text, detectStyle(text));
  const root = doc.contents;
  let edits: Edit[] | null = null;
  if (isMap(root) && !root.flow && isObj(oldValue) && isObj(newValue)) edits = s.map(root, oldValue, newValue);
  else if (isSeq(root) && !root.flow && Array.isArray(oldValue) && Array.isArray(newValue)) edits = s.seq(root, oldValue, newValue);
  if (!edits) return null;
  // From the end backwards; at one offset a replacement before insertions there, and insertions last-made first.
  const order = edits.map((e, i) => ({ e, i })).sort((a, b) => b.e.start - a.e.start || b.e.end - a.e.end || b.i - a.i);
  let out = text;
  for (const { e } of order) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return verify(out) ? { text: out, dropped: s.dropped } : null;
}

class Splicer {
  dropped = 0;
  constructor(readonly text: string, readonly style: YamlStyle) {}

  private lineStart(offset: number): number {
    return this.text.lastIndexOf('\n', offset - 1) + 1;
  }

  private lineEnd(offset: number): number {
    if (offset > 0 && this.text[offset - 1] === '\n') return offset;
    const i = this.text.indexOf('\n', offset);
    return i < 0 ? this.text.length : i + 1;
  }

  private col(offset: number): number {
    return offset - this.lineStart(offset);
  }

  private atLineStart(offset: number): boolean {
    return this.text.slice(this.lineStart(offset), offset).trim() === '';
  }

  /** Rendered lines placed at column `col` of a span starting there; ends with a newline. */
  private placed(rendered: string, col: number): string {
    const body = rendered.endsWith('\n') ? rendered : `${rendered}\n`;
    const pad = ' '.repeat(col);
    return body.split('\n').map((l, i) => (i === 0 || l === '' ? l : pad + l)).join('\n');
  }

  /** Replaces [start, end) with `value` rendered (as `{key: value}` or `[value]`), keeping the comments the span held. */
  private replace(start: number, end: number, rendered: string): Edit {
    const col = this.col(start);
    const old = (' '.repeat(col) + this.text.slice(start, end)).split('\n').map((l) => l.slice(Math.min(col, l.length - l.trimStart().length))).join('\n');
    const carried = carryComments(rendered, old);
    this.dropped += carried.dropped;
    return { start, end, text: this.placed(carried.text, col) };
  }

  /** Removes the lines of [start, end) and the comment lines just above them (counted as dropped). */
  private remove(start: number, end: number): Edit {
    let s = this.lineStart(start);
    for (;;) {
      const prev = this.lineStart(s - 1);
      if (s === 0 || !this.text.slice(prev, s).trim().startsWith('#')) break;
      s = prev;
      this.dropped++;
    }
    return { start: s, end: this.lineEnd(end), text: '' };
  }

  private insertAt(offset: number, col: number, rendered: string): Edit {
    return { start: offset, end: offset, text: ' '.repeat(col) + this.placed(rendered, col) };
  }

  /** Edits turning a value node into `n` in place, or null when its whole span must be rewritten. */
  private value(node: unknown, o: unknown, n: unknown): Edit[] | null {
    if (o !== undefined && jsonEqual(o, n)) return [];
    if (isMap(node) && !node.flow && isObj(o) && isObj(n)) return this.map(node, o, n);
    if (isSeq(node) && !node.flow && Array.isArray(o) && Array.isArray(n)) return this.seq(node, o, n);
    const range = (node as Node | null)?.range;
    if (!range || this.text.slice(range[0], range[1]).includes('\n')) return null;
    const scalar = isScalar(node) && (n === null || ['string', 'number', 'boolean'].includes(typeof n));
    const scalarType = isScalar(node) ? (node as Scalar).type : undefined;
    if (scalar && (scalarType === 'PLAIN' || scalarType === 'QUOTE_SINGLE' || scalarType === 'QUOTE_DOUBLE')) {
      const quoted = typeof n === 'string' && scalarType !== 'PLAIN';
      const r = stringify(n, {
        version: '1.1', lineWidth: 0,
        ...(quoted ? { defaultStringType: scalarType } : { singleQuote: this.style.singleQuote }),
      }).trimEnd();
      return r.includes('\n') ? null : [{ start: range[0], end: range[1], text: r }];
    }
    // A non-empty flow collection stays flow when it fits on its line.
    const flowNode = (isMap(node) || isSeq(node)) && node.flow && node.items.length > 0;
    if (flowNode && (isMap(node) ? isObj(n) : Array.isArray(n))) {
      let r = renderYaml(n, this.style, true).trimEnd();
      // `[a, b]` written without the spaces inside brackets stays so (when no quoted text could hold a bracket).
      if (!/^[[{] /.test(this.text.slice(range[0], range[1])) && !/['"]/.test(r)) r = r.replace(/([[{]) /g, '$1').replace(/ ([\]}])/g, '$1');
      return r.includes('\n') ? null : [{ start: range[0], end: range[1], text: r }];
    }
    return null;
  }

  map(map: YAMLMap, o: Obj, n: Obj): Edit[] | null {
    const edits: Edit[] = [];
    const pairs = map.items as Pair<unknown, unknown>[];
    const keys: string[] = [];
    for (const [i, pair] of pairs.entries()) {
      const key = pair.key as Node | null;
      if (!isScalar(key) || !key.range) return null;
      const k = String(key.value);
      keys.push(k);
      const start = key.range[0];
      const valueEnd = (pair.value as Node | null)?.range?.[1] ?? key.range[1];
      const end = this.lineEnd(valueEnd);
      if (!(k in n)) {
        // Left out by the engine and by the file's own canonical form: an explicit default the file keeps.
        if (!(k in o)) continue;
        if (!this.atLineStart(start)) {
          const next = pairs[i + 1]?.key as Node | null | undefined;
          if (!next?.range) return null;
          edits.push({ start, end: next.range[0], text: '' });
        } else edits.push(this.remove(start, end));
        continue;
      }
      const inner = this.value(pair.value, o[k], n[k]);
      edits.push(...(inner ?? [this.replace(start, end, renderYaml({ [k]: n[k] }, this.style))]));
    }
    const order = Object.keys(n);
    const first = pairs[0]?.key as Node | null | undefined;
    const col = first?.range ? this.col(first.range[0]) : 0;
    const last = pairs[pairs.length - 1];
    const tail = last ? this.lineEnd((last.value as Node | null)?.range?.[1] ?? (last.key as Node).range?.[1] ?? 0) : 0;
    for (const [i, k] of order.entries()) {
      if (keys.includes(k)) continue;
      // Before the first key the engine orders after it, when that one starts its line; else after the last key.
      const before = pairs.find((p) => order.indexOf(String((p.key as Scalar).value)) > i);
      const at = (before?.key as Node | undefined)?.range?.[0];
      const offset = at !== undefined && this.atLineStart(at) ? this.lineStart(at) : tail;
      edits.push(this.insertAt(offset, col, renderYaml({ [k]: n[k] }, this.style)));
    }
    return edits;
  }

  seq(seq: YAMLSeq, o: unknown[], n: unknown[]): Edit[] | null {
    const items = seq.items as unknown[];
    const src = seq.srcToken;
    const starts = src?.type === 'block-seq' ? src.items.flatMap((it) => it.start.filter((t) => t.type === 'seq-item-ind').map((t) => t.offset)) : [];
    const rawIds = identities(items.map((it) => (it && typeof it === 'object' && 'toJSON' in it ? (it as Node).toJSON() : it)));
    const oldIds = identities(o);
    const newIds = identities(n);
    if (!rawIds || !oldIds || !newIds || starts.length !== items.length) return null;
    const oldById = new Map(oldIds.map((id, i) => [id, o[i]]));
    const newById = new Map(newIds.map((id, i) => [id, n[i]]));
    const edits: Edit[] = [];
    for (const [i, item] of items.entries()) {
      const id = rawIds[i] as string;
      const start = starts[i] as number;
      const end = this.lineEnd((item as Node | null)?.range?.[1] ?? start + 1);
      if (!newById.has(id)) {
        edits.push(this.remove(start, end));
        continue;
      }
      const ni = newById.get(id);
      const oi = oldById.get(id);
      if (oi !== undefined && jsonEqual(oi, ni)) continue;
      const inner = isMap(item) && !item.flow && isObj(oi) && isObj(ni) ? this.map(item, oi, ni) : null;
      edits.push(...(inner ?? [this.replace(start, end, renderYaml([ni], this.style))]));
    }
    const col = starts[0] !== undefined ? this.col(starts[0]) : 0;
    const lastItem = items[items.length - 1] as Node | null | undefined;
    const tail = this.lineEnd(lastItem?.range?.[1] ?? (starts[starts.length - 1] ?? 0) + 1);
    for (const [j, id] of newIds.entries()) {
      if (rawIds.includes(id)) continue;
      // Before the next item (in the engine's order) the file already has; else after its last item.
      const next = newIds.slice(j + 1).map((x) => rawIds.indexOf(x)).find((x) => x >= 0);
      const at = next !== undefined ? starts[next] : undefined;
      const offset = at !== undefined && this.atLineStart(at) ? this.lineStart(at) : tail;
      edits.push(this.insertAt(offset, col, renderYaml([n[j]], this.style)));
    }
    return edits;
  }
}
