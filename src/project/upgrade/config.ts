import { isMap, isScalar, parseDocument, type Document, type Node, type Pair, type YAMLMap } from 'yaml';

/**
 * Step 6 of `engine migrate config` (cli.md §5.16): config.yaml edited in place — `version: 2`,
 * `metadata_directory: metadata` if absent, `actions.kind` and `actions.handler_webhook_baseurl` where absent. The
 * edits are splices of the original text (comments, order, quoting and unknown keys stay as written); when the
 * layout defeats them, the yaml Document API does the edit (comments kept, layout normalised).
 */

const PARSE = { schema: 'core', uniqueKeys: true, prettyErrors: false } as const;

export const ACTION_DEFAULTS = { kind: 'synchronous', handler_webhook_baseurl: 'http://localhost:3000' } as const;

interface Splice { start: number; end: number; text: string }

const keyName = (p: Pair): string => (isScalar(p.key) ? String(p.key.value) : '');
const columnOf = (text: string, offset: number): number => offset - (text.lastIndexOf('\n', offset - 1) + 1);
const lineStart = (text: string, offset: number): number => text.lastIndexOf('\n', offset - 1) + 1;
const pairOf = (map: YAMLMap, key: string): Pair | undefined => map.items.find((p) => keyName(p) === key) as Pair | undefined;
const isNullNode = (n: unknown): boolean => n === null || n === undefined || (isScalar(n) && n.value === null);

/** Start of the line after the one holding `offset - 1` (a line break is added at the end of a file without one). */
function lineAfter(text: string, offset: number, eol: string): { at: number; prefix: string } {
  if (offset > 0 && text[offset - 1] === '\n') return { at: offset, prefix: '' };
  const nl = text.indexOf('\n', offset);
  return nl < 0 ? { at: text.length, prefix: text.length === 0 ? '' : eol } : { at: nl + 1, prefix: '' };
}

/** Lines appended after the last item of a block mapping. */
function appendToBlock(text: string, map: YAMLMap, lines: string[], indent: number, eol: string): Splice {
  const last = map.items[map.items.length - 1] as Pair;
  const node = (last.value ?? last.key) as Node | null;
  const end = node?.range?.[1] ?? map.range?.[1] ?? text.length;
  const { at, prefix } = lineAfter(text, end, eol);
  return { start: at, end: at, text: prefix + lines.map((l) => `${' '.repeat(indent)}${l}${eol}`).join('') };
}

/** What the upgrade sets: the version, and (from version 1) the keys version 2 needs. */
interface Target {
  version: 2 | 3;
  /** Only `version` changes (version 2 → 3). */
  onlyVersion: boolean;
}

/** The next splice to make, or null when everything is done; throws 'layout' when splicing cannot do it. */
function nextSplice(text: string, doc: Document, eol: string, to: Target): Splice | null {
  const root = doc.contents as Node | null;
  if (isNullNode(root)) {
    const { at, prefix } = lineAfter(text, text.length, eol);
    return { start: at, end: at, text: `${prefix}version: ${to.version}${eol}` };
  }
  if (!isMap(root) || root.flow) throw new Error('layout');
  const first = root.items[0]?.key as Node | undefined;
  const indent = first?.range ? columnOf(text, first.range[0]) : 0;
  const version = pairOf(root, 'version');
  if (!version) {
    const at = first?.range ? lineStart(text, first.range[0]) : 0;
    return { start: at, end: at, text: `${' '.repeat(indent)}version: ${to.version}${eol}` };
  }
  const vNode = version.value as Node | null;
  if (!isScalar(vNode) || !vNode.range) throw new Error('layout');
  if (vNode.value !== to.version || vNode.source !== String(to.version)) {
    if (vNode.range[0] === vNode.range[1]) throw new Error('layout');
    const end = text[vNode.range[1] - 1] === '\n' ? vNode.range[1] - 1 : vNode.range[1];
    return { start: vNode.range[0], end, text: String(to.version) };
  }
  if (to.onlyVersion) return null;
  if (!pairOf(root, 'metadata_directory')) return appendToBlock(text, root, ['metadata_directory: metadata'], indent, eol);
  const actions = pairOf(root, 'actions');
  const missing = (m: YAMLMap | null) => (Object.keys(ACTION_DEFAULTS) as (keyof typeof ACTION_DEFAULTS)[]).filter((k) => !m || !pairOf(m, k));
  const entries = (keys: string[]) => keys.map((k) => `${k}: ${ACTION_DEFAULTS[k as keyof typeof ACTION_DEFAULTS]}`);
  if (!actions) {
    return appendToBlock(text, root, ['actions:', ...entries(missing(null)).map((l) => `  ${l}`)], indent, eol);
  }
  const aNode = actions.value as Node | null;
  if (isNullNode(aNode)) {
    const keyNode = actions.key as Node;
    const colon = text.indexOf(':', keyNode.range?.[1] ?? 0);
    const valueEnd = (aNode as Node | null)?.range?.[1] ?? colon + 1;
    const { at, prefix } = lineAfter(text, valueEnd, eol);
    const rest = text.slice(valueEnd, at).replace(/^[ \t]+/, '');
    const kept = rest.startsWith('#') ? ` ${rest}` : rest;
    const lines = entries(missing(null)).map((l) => `${' '.repeat(indent + 2)}${l}${eol}`).join('');
    return { start: colon + 1, end: at, text: kept + prefix + lines };
  }
  if (!isMap(aNode)) return null;
  const todo = missing(aNode);
  if (todo.length === 0) return null;
  if (aNode.flow) {
    const close = (aNode.range?.[1] ?? 0) - 1;
    if (text[close] !== '}') throw new Error('layout');
    const sep = aNode.items.length > 0 && !text.slice(0, close).trimEnd().endsWith(',') ? ', ' : '';
    return { start: close, end: close, text: sep + entries(todo).join(', ') };
  }
  const firstChild = aNode.items[0]?.key as Node | undefined;
  const childIndent = firstChild?.range ? columnOf(text, firstChild.range[0]) : indent + 2;
  return appendToBlock(text, aNode, entries(todo), childIndent, eol);
}

/** The value config.yaml must have afterwards: the old one with the upgrade's keys set. */
function expected(before: Document, to: Target): string {
  const js = (before.toJS() ?? {}) as Record<string, unknown>;
  js['version'] = to.version;
  if (to.onlyVersion) return sortedJson(js);
  if (!('metadata_directory' in js)) js['metadata_directory'] = 'metadata';
  const actions = js['actions'];
  const a = (actions === null || actions === undefined ? {} : actions) as Record<string, unknown>;
  if (typeof a === 'object' && !Array.isArray(a)) {
    for (const [k, v] of Object.entries(ACTION_DEFAULTS)) if (!(k in a)) a[k] = v;
    js['actions'] = a;
  }
  return sortedJson(js);
}

/** JSON with keys sorted at every level: the comparison is about values, not key order. */
function sortedJson(v: unknown): string {
  const sort = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(sort);
    if (typeof x !== 'object' || x === null) return x;
    return Object.fromEntries(Object.keys(x).sort().map((k) => [k, sort((x as Record<string, unknown>)[k])]));
  };
  return JSON.stringify(sort(v));
}

const valueOf = (text: string): string | null => {
  const doc = parseDocument(text, PARSE);
  return doc.errors.length > 0 ? null : sortedJson(doc.toJS() ?? {});
};

/**
 * The new text of config.yaml (cli.md §5.16 step 6), at config version `version`; `onlyVersion` when the project is at
 * version 2 already (2 → 3 changes nothing else).
 */
export function upgradeConfigText(text: string, version: 2 | 3 = 2, onlyVersion = false): string {
  const to: Target = { version, onlyVersion };
  const bom = text.startsWith('\uFEFF') ? '\uFEFF' : '';
  const body = text.slice(bom.length);
  const eol = body.includes('\r\n') ? '\r\n' : '\n';
  const before = parseDocument(body, PARSE);
  if (before.errors.length > 0) throw new Error(`config.yaml does not parse: ${before.errors[0]?.message ?? ''}`);
  const want = expected(before, to);
  let next = body;
  try {
    for (let i = 0; i < 8; i++) {
      const s = nextSplice(next, parseDocument(next, PARSE), eol, to);
      if (!s) break;
      next = next.slice(0, s.start) + s.text + next.slice(s.end);
    }
    if (valueOf(next) === want) return bom + next;
  } catch (e) {
    if (!(e instanceof Error) || e.message !== 'layout') throw e;
  }
  const doc = parseDocument(body, PARSE);
  doc.set('version', version);
  if (!onlyVersion) {
    if (!doc.has('metadata_directory')) doc.set('metadata_directory', 'metadata');
    if (!isMap(doc.get('actions'))) doc.set('actions', doc.createNode({}));
    for (const [k, v] of Object.entries(ACTION_DEFAULTS)) if (!doc.hasIn(['actions', k])) doc.setIn(['actions', k], v);
  }
  const out = doc.toString({ lineWidth: 0 });
  if (valueOf(out) !== want) throw new Error('could not update config.yaml');
  return bom + out;
}
