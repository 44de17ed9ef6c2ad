import { readFileSync, statSync } from 'node:fs';
import { isMap, isScalar, parseDocument, stringify, type Document, type Node, type Pair, type YAMLMap } from 'yaml';
import { atomicWrite } from './codegen.js';

/**
 * `actions use-codegen` (cli.md §5.12): sets `actions.codegen.framework` and `actions.codegen.output_dir` in
 * config.yaml, changing nothing else. The yaml Document API locates the nodes; the edit itself is a splice of the
 * original text, so every other byte (comments, quoting, blank lines, layout) stays as written (§4.10).
 */

const PARSE = { schema: 'core', uniqueKeys: true, prettyErrors: false } as const;

/** One change of the text: replace `[start, end)` by `text`. */
interface Splice { start: number; end: number; text: string }

const apply = (text: string, s: Splice): string => text.slice(0, s.start) + s.text + text.slice(s.end);

/**
 * A string as a YAML scalar that reads back as the same string: `${` is written `$${` so that config.yaml's
 * interpolation (§2.4) gives the value back; plain when possible, else double-quoted (always, in flow context).
 */
export function yamlScalar(value: string, flow: boolean): string {
  const v = value.replace(/\$\{/g, () => '$${');
  if (flow || /[\n\r\t]/.test(v)) return JSON.stringify(v);
  return stringify(v, { lineWidth: 0 }).replace(/\n$/, '');
}

const keyName = (p: Pair): string => (isScalar(p.key) ? String(p.key.value) : '');

/** Column of `offset` (spaces since the start of its line). */
const columnOf = (text: string, offset: number): number => offset - (text.lastIndexOf('\n', offset - 1) + 1);

/** The offset of the start of the line after the one holding `offset - 1` (appending a line break if needed). */
function lineAfter(text: string, offset: number, eol: string): { at: number; prefix: string } {
  if (offset > 0 && text[offset - 1] === '\n') return { at: offset, prefix: '' };
  const nl = text.indexOf('\n', offset);
  return nl < 0 ? { at: text.length, prefix: text.length === 0 ? '' : eol } : { at: nl + 1, prefix: '' };
}

/** Block lines `key:` … ending in `leaf: value` for the path `keys` (the last one is the leaf). */
function blockLines(keys: string[], value: string, indent: number, step: number, eol: string): string {
  return keys.map((k, i) => `${' '.repeat(indent + i * step)}${k}:${i === keys.length - 1 ? ` ${yamlScalar(value, false)}` : ''}${eol}`).join('');
}

/** `key: {key: value}` for flow context. */
function flowEntry(keys: string[], value: string): string {
  const [first, ...rest] = keys;
  return `${first}: ${rest.length === 0 ? yamlScalar(value, true) : `{${flowEntry(rest, value)}}`}`;
}

/** The splice that sets `path` to `value` in `text`, whose parsed document is `doc`; null when it cannot splice. */
function spliceFor(text: string, doc: Document, path: string[], value: string, eol: string): Splice | null {
  const root = doc.contents as Node | null;
  if (root === null || (isScalar(root) && root.value === null)) {
    // Empty file, or comments only: append the whole path.
    const { at, prefix } = lineAfter(text, text.length, eol);
    return { start: at, end: at, text: prefix + blockLines(path, value, 0, 2, eol) };
  }
  let map: YAMLMap = root as YAMLMap;
  let step = 2;
  let parentIndent = 0;
  for (let i = 0; i < path.length; i++) {
    if (!isMap(map)) return null;
    const key = path[i] as string;
    const rest = path.slice(i);
    const pair = map.items.find((p) => keyName(p) === key);
    const firstKey = map.items[0]?.key as Node | undefined;
    const indent = firstKey?.range ? columnOf(text, firstKey.range[0]) : parentIndent;
    if (i > 0 && indent > parentIndent) step = indent - parentIndent;
    if (!pair) {
      if (map.flow) {
        const close = (map.range?.[1] ?? 0) - 1;
        if (text[close] !== '}') return null;
        const before = text.slice(0, close).trimEnd();
        const sep = map.items.length > 0 && !before.endsWith(',') ? ', ' : '';
        return { start: close, end: close, text: `${sep}${flowEntry(rest, value)}` };
      }
      const last = map.items[map.items.length - 1] as Pair;
      const lastNode = (last.value ?? last.key) as Node | null;
      const end = lastNode?.range?.[1] ?? map.range?.[1] ?? text.length;
      const { at, prefix } = lineAfter(text, end, eol);
      return { start: at, end: at, text: prefix + blockLines(rest, value, indent, step, eol) };
    }
    const node = pair.value as Node | null;
    const range = node?.range;
    if (!range) return null;
    const keyNode = pair.key as Node;
    if (i === path.length - 1) {
      // The leaf: replace its value; an empty one (`key:`) gets ` value` after the colon; a block scalar keeps its
      // line break.
      if (map.flow) return { start: range[0], end: range[1], text: yamlScalar(value, true) };
      const scalar = yamlScalar(value, false);
      if (range[0] === range[1]) {
        const colon = text.indexOf(':', keyNode.range?.[1] ?? range[0]);
        return colon < 0 || colon > range[0] ? null : { start: colon + 1, end: colon + 1, text: ` ${scalar}` };
      }
      return { start: range[0], end: range[1], text: text[range[1] - 1] === '\n' ? `${scalar}${eol}` : scalar };
    }
    if (isScalar(node) && node.value === null) {
      // `actions:` or `actions: ~`: the value becomes the nested mapping (a block starting on the next line).
      if (map.flow) return { start: range[0], end: range[1], text: `{${flowEntry(path.slice(i + 1), value)}}` };
      const childIndent = columnOf(text, keyNode.range?.[0] ?? range[0]) + step;
      const colon = text.indexOf(':', keyNode.range?.[1] ?? range[0]);
      if (colon < 0 || colon > range[0]) return null;
      const { at, prefix } = lineAfter(text, range[1], eol);
      const trimmed = text.slice(range[1], at).replace(/^[ \t]+/, '');
      const kept = trimmed.startsWith('#') ? ` ${trimmed}` : trimmed;
      return { start: colon + 1, end: at, text: kept + prefix + blockLines(path.slice(i + 1), value, childIndent, step, eol) };
    }
    if (!isMap(node)) return null;
    parentIndent = indent;
    map = node;
  }
  return null;
}

/** The content of a document without `actions.codegen.framework`/`output_dir` (and mappings left empty or null). */
function otherContent(doc: Document): string {
  const js = doc.toJS() as unknown;
  const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (isRecord(js)) {
    const actions = js['actions'];
    if (isRecord(actions)) {
      const codegen = actions['codegen'];
      if (isRecord(codegen)) {
        delete codegen['framework'];
        delete codegen['output_dir'];
      }
      if (codegen === null || (isRecord(codegen) && Object.keys(codegen).length === 0)) delete actions['codegen'];
    }
    if (actions === null || (isRecord(actions) && Object.keys(actions).length === 0)) delete js['actions'];
  }
  return JSON.stringify(js ?? {});
}

/** Whether `text` sets both keys and otherwise holds what `before` holds. */
function verify(text: string, before: Document, settings: Record<'framework' | 'output_dir', string>): boolean {
  const doc = parseDocument(text, PARSE);
  if (doc.errors.length > 0) return false;
  const read = (key: string): unknown => {
    const v = doc.getIn(['actions', 'codegen', key]);
    return typeof v === 'string' ? v.replace(/\$\$\{/g, '${') : v;
  };
  if (read('framework') !== settings.framework || read('output_dir') !== settings.output_dir) return false;
  return otherContent(doc) === otherContent(before);
}

/**
 * The new text of config.yaml with both keys set. The splice keeps every other byte; when the layout defeats it
 * (unusual flow styles, document markers), the Document API does the edit (comments kept, layout normalised).
 */
export function setCodegenConfig(text: string, settings: Record<'framework' | 'output_dir', string>): string {
  const bom = text.startsWith('\uFEFF') ? '\uFEFF' : '';
  const body = text.slice(bom.length);
  const eol = body.includes('\r\n') ? '\r\n' : '\n';
  const before = parseDocument(body, PARSE);
  if (before.errors.length > 0) throw new Error(`config.yaml does not parse: ${before.errors[0]?.message ?? ''}`);
  let next: string | null = body;
  for (const key of ['framework', 'output_dir'] as const) {
    const doc = parseDocument(next, PARSE);
    const s = spliceFor(next, doc, ['actions', 'codegen', key], settings[key], eol);
    if (!s) {
      next = null;
      break;
    }
    next = apply(next, s);
  }
  if (next !== null && verify(next, before, settings)) return bom + next;
  const doc = parseDocument(body, PARSE);
  const escape = (v: string): string => v.replace(/\$\{/g, () => '$${');
  const current = doc.getIn(['actions']) as Node | null | undefined;
  if (!isMap(current)) doc.setIn(['actions'], doc.createNode({}));
  const codegen = doc.getIn(['actions', 'codegen']) as Node | null | undefined;
  if (!isMap(codegen)) doc.setIn(['actions', 'codegen'], doc.createNode({}));
  doc.setIn(['actions', 'codegen', 'framework'], escape(settings.framework));
  doc.setIn(['actions', 'codegen', 'output_dir'], escape(settings.output_dir));
  const out = doc.toString({ lineWidth: 0 });
  if (!verify(out, before, settings)) throw new Error('could not update actions.codegen in config.yaml');
  return bom + out;
}

/** Edits config.yaml in place (atomic: `<file>.engine-tmp-<random>` then a rename, §4.11); false when unchanged. */
export function writeCodegenConfig(configFile: string, settings: Record<'framework' | 'output_dir', string>): boolean {
  const text = readFileSync(configFile, 'utf8');
  const next = setCodegenConfig(text, settings);
  if (next === text) return false;
  atomicWrite(configFile, next, statSync(configFile).mode & 0o777);
  return true;
}
