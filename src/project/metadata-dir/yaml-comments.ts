import { Composer, isCollection, isMap, isScalar, isSeq, LineCounter, Parser, type CST, type Document, type Node } from 'yaml';

/**
 * Comment preservation for the YAML files of the metadata directory (cli.md §4.10). The comments of an existing file are
 * attached to paths of keys and sequence items; the newly rendered text (the exact output of `toYaml`) is then re-read to
 * find where each path now stands, and the comments are written there: a block above a line at the indentation of the
 * outermost key or item starting on it, trailing comments at the end of the line where their key or item starts, the
 * header above everything followed by one blank line. Text without comments is never touched, so output without
 * comments stays byte-identical to `toYaml`, and output with comments re-reads to the same attachments (idempotent).
 */

/** The result of carrying comments over: the new text and the number of comment lines that had no node left. */
export interface CarriedComments {
  text: string;
  dropped: number;
}

/** A key or sequence item: its path (§4.10 identity), nesting depth, and where it starts. */
interface Site {
  path: string;
  depth: number;
  line: number;
  col: number;
}

/** A node a trailing comment may belong to: where its value ends. */
interface End {
  path: string;
  depth: number;
  offset: number;
}

interface Shape {
  ok: boolean;
  sites: Site[];
  ends: End[];
  lines: LineCounter;
}

/** The comments of an existing file, attached (§4.10). */
interface Attached {
  header: string[];
  /** Comment blocks above a key or item, with the line they started on (for ordering). */
  above: { path: string; line: number; texts: string[] }[];
  trailing: { path: string; offset: number; text: string }[];
  /** Comment lines that belong to nothing. */
  unattached: number;
}

const segment = (kind: string, value: unknown): string => `${kind}${JSON.stringify(value)}`;

/** `{schema, name}` or a string (= schema `public`) as `[schema, name]`; else null. */
function qualified(v: unknown): [string, string] | null {
  if (typeof v === 'string') return ['public', v];
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    if (typeof o['name'] === 'string') return [typeof o['schema'] === 'string' ? o['schema'] : 'public', o['name']];
  }
  return null;
}

/**
 * The identity of a sequence item (§4.10): tables and functions by `schema.name` (a string name is in `public`),
 * permissions by `role`, allow-list items by `collection`, others by `name`; scalars by their value; anything else by
 * its index. Repeated identities among siblings are numbered.
 */
function identity(item: unknown, doc: Document, index: number): string {
  if (isMap(item)) {
    const value = (key: string): unknown => {
      const pair = item.items.find((p) => isScalar(p.key) && p.key.value === key);
      const v = pair?.value as Node | null | undefined;
      return v && typeof v === 'object' && 'toJS' in v ? v.toJS(doc, { maxAliasCount: 1000 }) : undefined;
    };
    for (const key of ['table', 'function']) {
      const q = qualified(value(key));
      if (q) return segment(`${key}:`, q);
    }
    for (const key of ['role', 'collection', 'name']) {
      const v = value(key);
      if (v !== undefined && (v === null || typeof v !== 'object')) return segment(`${key}:`, v);
    }
    return `#${index}`;
  }
  if (isScalar(item)) return segment('=', item.toJS(doc, { maxAliasCount: 1000 }));
  return `#${index}`;
}

/** Every key and sequence item of a document with its path, and every node a trailing comment may follow. */
function shape(text: string, lines: LineCounter, tokens: CST.Token[]): Shape {
  const docs = [...new Composer({ keepSourceTokens: true, uniqueKeys: false, strict: false }).compose(tokens, true, text.length)];
  const doc = docs[0];
  const result: Shape = { ok: docs.length === 1 && doc !== undefined && doc.errors.length === 0, sites: [], ends: [], lines };
  if (!result.ok || !doc) return result;
  const pos = (offset: number) => {
    const p = lines.linePos(offset);
    return { line: p.line - 1, col: p.col - 1 };
  };
  const isBlock = (n: unknown): boolean => isCollection(n) && !n.flow;
  const value = (node: unknown, path: string, depth: number): void => {
    if (!node || typeof node !== 'object') return;
    const range = (node as Node).range;
    if (!isBlock(node) && range) result.ends.push({ path, depth, offset: range[1] });
    collection(node, path, depth);
  };
  const collection = (node: unknown, path: string, depth: number): void => {
    if (isMap(node)) {
      for (const pair of node.items) {
        const key = pair.key;
        if (!isScalar(key) || !key.range) continue;
        const p = `${path}/${segment('', String(key.value))}`;
        result.sites.push({ path: p, depth: depth + 1, ...pos(key.range[0]) });
        result.ends.push({ path: p, depth: depth + 1, offset: key.range[1] });
        value(pair.value, p, depth + 1);
      }
    } else if (isSeq(node)) {
      // A block sequence item starts at its "-" indicator, which may stand on a line of its own.
      const src = node.srcToken;
      const indicators = src?.type === 'block-seq'
        ? src.items.flatMap((it) => it.start.filter((t) => t.type === 'seq-item-ind').map((t) => t.offset))
        : [];
      const seen = new Map<string, number>();
      node.items.forEach((item, i) => {
        const range = (item as Node | null)?.range;
        if (!range) return;
        let id = identity(item, doc, i);
        const n = seen.get(id) ?? 0;
        seen.set(id, n + 1);
        if (n > 0) id += `~${n}`;
        const p = `${path}/${id}`;
        const start = indicators.length === node.items.length ? (indicators[i] as number) : range[0];
        result.sites.push({ path: p, depth: depth + 1, ...pos(start) });
        value(item, p, depth + 1);
      });
    }
  };
  const root = doc.contents;
  if (isBlock(root)) collection(root, '', 0);
  else if (root?.range) {
    result.sites.push({ path: '', depth: 0, ...pos(root.range[0]) });
    value(root, '', 0);
  }
  return result;
}

/** The CST of a YAML text, its line starts recorded. */
function tokenize(text: string): { lines: LineCounter; tokens: CST.Token[] } {
  const lines = new LineCounter();
  return { lines, tokens: [...new Parser(lines.addNewLine).parse(text)] };
}

/** Every comment token of a CST (offset and text), in order. */
function commentTokens(tokens: CST.Token[]): { offset: number; text: string }[] {
  const out: { offset: number; text: string }[] = [];
  const walk = (t: unknown): void => {
    if (Array.isArray(t)) {
      for (const x of t) walk(x);
    } else if (t && typeof t === 'object') {
      const o = t as Record<string, unknown>;
      if (o['type'] === 'comment' && typeof o['offset'] === 'number' && typeof o['source'] === 'string') {
        out.push({ offset: o['offset'], text: o['source'].trimEnd() });
      }
      for (const v of Object.values(o)) if (v && typeof v === 'object') walk(v);
    }
  };
  walk(tokens);
  return out.sort((a, b) => a.offset - b.offset);
}

/** Attaches the comments of an existing file to paths (cli.md §4.10). */
function attach(raw: string): Attached {
  const text = raw.replace(/^\uFEFF/, '');
  const result: Attached = { header: [], above: [], trailing: [], unattached: 0 };
  const cst = tokenize(text);
  const tokens = commentTokens(cst.tokens);
  if (tokens.length === 0) return result;
  const s = shape(text, cst.lines, cst.tokens);
  const lineTexts = text.split('\n').map((l) => l.replace(/\r$/, ''));
  const full = new Map<number, string>();
  const trailing: { offset: number; line: number; text: string }[] = [];
  for (const c of tokens) {
    const p = s.lines.linePos(c.offset);
    const line = p.line - 1;
    if ((lineTexts[line] ?? '').slice(0, p.col - 1).trim() === '') full.set(line, c.text);
    else trailing.push({ offset: c.offset, line, text: c.text });
  }
  // A "---" before any content ends a header like a blank line.
  const first = lineTexts.findIndex((l, i) => !full.has(i) && l.trim() !== '');
  const docStart = first >= 0 && lineTexts[first]?.trim() === '---' ? first : -1;
  const kind = (line: number): 'blank' | 'comment' | 'content' | 'eof' => {
    if (line >= lineTexts.length) return 'eof';
    if (full.has(line)) return 'comment';
    const t = (lineTexts[line] ?? '').trim();
    return t === '' || line === docStart ? 'blank' : 'content';
  };

  // The header: the leading comment lines up to the last one followed by a blank line (or the end of the file).
  let headerEnd = -1;
  for (let i = 0; kind(i) === 'blank' || kind(i) === 'comment'; i++) {
    if (kind(i) === 'comment' && (kind(i + 1) === 'blank' || kind(i + 1) === 'eof')) headerEnd = i;
  }
  for (let i = 0; i <= headerEnd; i++) {
    if (kind(i) === 'comment') result.header.push((full.get(i) ?? '').trim());
    else if (result.header.length > 0 && result.header[result.header.length - 1] !== '') result.header.push('');
  }

  // The outermost key or item starting on each line.
  const outermost = new Map<number, Site>();
  for (const site of s.sites) {
    const o = outermost.get(site.line);
    if (!o || site.depth < o.depth) outermost.set(site.line, site);
  }
  const lines = [...full.keys()].filter((l) => l > headerEnd).sort((a, b) => a - b);
  for (let i = 0; i < lines.length; ) {
    const first = lines[i] as number;
    let last = first;
    while (lines[i + 1] === last + 1) last = lines[++i] as number;
    i++;
    const texts: string[] = [];
    for (let l = first; l <= last; l++) texts.push(full.get(l) ?? '');
    const site = kind(last + 1) === 'content' ? outermost.get(last + 1) : undefined;
    if (site) result.above.push({ path: site.path, line: first, texts });
    else result.unattached += texts.length;
  }

  // A trailing comment belongs to the node ending last before it on its line (the deepest one on a tie).
  const endsByLine = new Map<number, End[]>();
  for (const e of s.ends) {
    const line = s.lines.linePos(e.offset).line - 1;
    endsByLine.set(line, [...(endsByLine.get(line) ?? []), e]);
  }
  for (const c of trailing) {
    let best: End | undefined;
    for (const e of endsByLine.get(c.line) ?? []) {
      if (e.offset > c.offset) continue;
      if (!best || e.offset > best.offset || (e.offset === best.offset && e.depth > best.depth)) best = e;
    }
    if (best) result.trailing.push({ path: best.path, offset: c.offset, text: c.text });
    else result.unattached++;
  }
  return result;
}

/** The number of comment lines of a YAML text. */
export function countYamlComments(text: string): number {
  return commentTokens(tokenize(text.replace(/^\uFEFF/, '')).tokens).length;
}

/**
 * Writes the comments of `existing` (an earlier version of the file) into `rendered` (the new text as `toYaml` writes
 * it) per cli.md §4.10: the header on top, each other comment at the key or item with the same path, or dropped and
 * counted when that path no longer exists. Without an existing file or comments, `rendered` is returned unchanged.
 */
export function carryComments(rendered: string, existing: string | undefined): CarriedComments {
  if (existing === undefined || !existing.includes('#')) return { text: rendered, dropped: 0 };
  const attached = attach(existing);
  let dropped = attached.unattached;
  if (attached.header.length + attached.above.length + attached.trailing.length === 0) return { text: rendered, dropped };
  const cst = tokenize(rendered);
  const s = shape(rendered, cst.lines, cst.tokens);
  const sites = new Map<string, Site>();
  const outermost = new Map<number, Site>();
  for (const site of s.sites) {
    if (!sites.has(site.path)) sites.set(site.path, site);
    const o = outermost.get(site.line);
    if (!o || site.depth < o.depth) outermost.set(site.line, site);
  }
  const above = new Map<number, { line: number; texts: string[] }[]>();
  for (const block of attached.above) {
    const site = sites.get(block.path);
    if (!site) {
      dropped += block.texts.length;
      continue;
    }
    above.set(site.line, [...(above.get(site.line) ?? []), block]);
  }
  const after = new Map<number, { offset: number; text: string }[]>();
  for (const c of attached.trailing) {
    const site = sites.get(c.path);
    if (!site) {
      dropped++;
      continue;
    }
    after.set(site.line, [...(after.get(site.line) ?? []), c]);
  }

  const out: string[] = [];
  const lines = rendered.split('\n');
  lines.forEach((line, i) => {
    const blocks = above.get(i);
    if (blocks) {
      const indent = ' '.repeat(outermost.get(i)?.col ?? 0);
      for (const b of [...blocks].sort((x, y) => x.line - y.line)) for (const t of b.texts) out.push(`${indent}${t.trim()}`);
    }
    const comments = after.get(i);
    out.push(comments ? `${line} ${[...comments].sort((x, y) => x.offset - y.offset).map((c) => c.text.trim()).join(' ')}` : line);
  });
  const header = attached.header[attached.header.length - 1] === '' ? attached.header.slice(0, -1) : attached.header;
  const body = out.join('\n');
  return { text: header.length > 0 ? `${header.join('\n')}\n\n${body}` : body, dropped };
}
