// Deep imports: the whole `graphql` index costs ~50 ms to load; every build and export pays for what it imports.
import { Kind } from 'graphql/language/kinds.js';
import { parse, parseType, parseValue } from 'graphql/language/parser.js';
import { print } from 'graphql/language/printer.js';
import { TokenKind } from 'graphql/language/tokenKind.js';
import type {
  ASTNode, ConstDirectiveNode, DocumentNode, FieldDefinitionNode, NameNode, StringValueNode, Token, TypeNode,
} from 'graphql/language/ast.js';
import { compareCodePoints, isObject, type Json, type JsonObject } from '../../metadata/json.js';

/**
 * The actions split (cli.md §4.9): `actions` and `custom_types` back into `actions.graphql` and the `actions.yaml` value,
 * keeping the comments of the existing `actions.graphql` that still have an element to belong to (§4.10).
 */

export interface SplitResult {
  sdl: string;
  /** The `actions.yaml` value. */
  yaml: JsonObject;
  /** Comment lines of the existing SDL that had no element left (`comments-dropped`). */
  droppedComments: number;
}

const nameNode = (value: string): NameNode => ({ kind: Kind.NAME, value });

const readsBack = (text: string, value: string): boolean => {
  try {
    const back = parseValue(text);
    return back.kind === Kind.STRING && back.value === value;
  } catch {
    return false;
  }
};

/**
 * A description as a block string when that reads back as the same text — printed at the top level and indented inside
 * a definition (every line after the first) — else as a quoted string.
 */
function description(value: Json | undefined): StringValueNode | undefined {
  if (typeof value !== 'string') return undefined;
  const printed = print({ kind: Kind.STRING, value, block: true });
  const block = readsBack(printed, value) && readsBack(printed.replace(/\n/g, '\n    '), value);
  return { kind: Kind.STRING, value, block };
}

function typeNode(t: Json | undefined): TypeNode {
  const s = String(t);
  try {
    return parseType(s);
  } catch {
    return { kind: Kind.NAMED_TYPE, name: nameNode(s) };
  }
}

const str = (o: JsonObject, k: string): string => String(o[k] ?? '');
const items = (v: Json | undefined): JsonObject[] => (Array.isArray(v) ? v.filter(isObject) : []);
const byName = (a: JsonObject, b: JsonObject): number => compareCodePoints(str(a, 'name'), str(b, 'name'));
const lines = (n: ASTNode | undefined): number => (n ? print(n).split('\n').length : 0);

/** Comments of the existing file, keyed by the element they belong to (§4.10). */
interface Comments {
  header: string[];
  above: Map<string, string[]>;
  head: Map<string, string[]>;
  end: Map<string, string[]>;
  total: number;
}

interface Element { key: string; start: number; end: number; headLine: number; endLine: number }

/** Collects the comments of `text` and the elements they belong to. */
export function collectComments(text: string): Comments {
  const c: Comments = { header: [], above: new Map(), head: new Map(), end: new Map(), total: 0 };
  let doc: DocumentNode;
  try {
    doc = parse(text.replace(/^\uFEFF/, ''));
  } catch {
    // Unparsable or comments only: keep the leading comment block when a blank line (or the end) follows it.
    const ls = text.replace(/^\uFEFF/, '').split(/\r?\n/);
    c.total = ls.filter((l) => /^\s*#/.test(l)).length;
    let i = 0;
    while (i < ls.length && (ls[i] ?? '').trim() === '') i++;
    const from = i;
    while (i < ls.length && /^\s*#/.test(ls[i] ?? '')) i++;
    if (i > from && (ls[i] ?? '').trim() === '') c.header = ls.slice(from, i).map((l) => l.trim());
    return c;
  }
  const elements: Element[] = [];
  const add = (key: string, n: ASTNode, name: NameNode): void => {
    if (!n.loc || !name.loc || elements.some((e) => e.key === key)) return;
    elements.push({
      key, start: n.loc.start, end: n.loc.end, headLine: name.loc.startToken.line, endLine: n.loc.endToken.line,
    });
  };
  for (const def of doc.definitions) {
    if (def.kind === Kind.OBJECT_TYPE_DEFINITION || def.kind === Kind.OBJECT_TYPE_EXTENSION) {
      if (def.name.value === 'Mutation' || def.name.value === 'Query') {
        const first = def.fields?.[0];
        if (first) add(`block:${first.name.value}`, def, def.name);
        for (const f of def.fields ?? []) add(`action:${f.name.value}`, f, f.name);
        continue;
      }
      if (def.kind === Kind.OBJECT_TYPE_EXTENSION || def.name.value === 'Query' || def.name.value === 'Subscription') continue;
    }
    if (def.kind === Kind.OBJECT_TYPE_DEFINITION || def.kind === Kind.INPUT_OBJECT_TYPE_DEFINITION ||
        def.kind === Kind.ENUM_TYPE_DEFINITION || def.kind === Kind.SCALAR_TYPE_DEFINITION) {
      const t = def.name.value;
      add(`def:${t}`, def, def.name);
      if (def.kind === Kind.ENUM_TYPE_DEFINITION) for (const v of def.values ?? []) add(`value:${t}.${v.name.value}`, v, v.name);
      else if (def.kind !== Kind.SCALAR_TYPE_DEFINITION) for (const f of def.fields ?? []) add(`field:${t}.${f.name.value}`, f, f.name);
    }
  }
  const push = (m: Map<string, string[]>, k: string, v: string[]): void => void m.set(k, [...(m.get(k) ?? []), ...v]);
  const nextToken = (t: Token): Token | null => {
    let n = t.next;
    while (n && n.kind === TokenKind.COMMENT) n = n.next;
    return n;
  };
  let block: Token[] = [];
  let blockLeading = false;
  let seenToken = false;
  const endBlock = (): void => {
    if (block.length === 0) return;
    const last = block[block.length - 1] as Token;
    const next = nextToken(last);
    const owner = next && next.line === last.line + 1 ? elements.find((e) => e.start === next.start) : undefined;
    const text = block.map((t) => `#${t.value}`);
    if (owner && !c.above.has(owner.key)) c.above.set(owner.key, text);
    else if (blockLeading) c.header.push(...(c.header.length > 0 ? [''] : []), ...text);
    block = [];
  };
  for (let t: Token | null = doc.loc?.startToken ?? null; t; t = t.next) {
    if (t.kind !== TokenKind.COMMENT) {
      if (t.kind !== TokenKind.SOF && t.kind !== TokenKind.EOF) seenToken = true;
      continue;
    }
    c.total++;
    const prev = t.prev;
    if (!prev || prev.kind === TokenKind.SOF || prev.line < t.line) {
      const last = block[block.length - 1];
      if (!(last && last.line === t.line - 1 && last.next === t)) {
        endBlock();
        blockLeading = !seenToken;
      }
      block.push(t);
      continue;
    }
    endBlock();
    const owner = elements.filter((e) => e.start <= prev.start && prev.start < e.end).sort((a, b) => b.start - a.start)[0];
    if (!owner) continue;
    if (prev.line === owner.headLine) push(c.head, owner.key, [`#${t.value}`]);
    else if (prev.line === owner.endLine) push(c.end, owner.key, [`#${t.value}`]);
  }
  endBlock();
  return c;
}

/** Prints elements with the comments that belong to them, counting the comments kept. */
class Printer {
  kept = 0;
  constructor(readonly c: Comments) {}

  private take(m: Map<string, string[]>, key: string): string[] {
    const v = m.get(key) ?? [];
    m.delete(key);
    this.kept += v.length;
    return v;
  }

  /** `text` preceded by its comment block; trailing comments on its head line (after the description) and last line. */
  element(key: string, text: string, headIndex: number): string[] {
    const ls = text.split('\n');
    const head = this.take(this.c.head, key);
    const end = this.take(this.c.end, key);
    if (head.length > 0) ls[headIndex] += ` ${head.join(' ')}`;
    if (end.length > 0) ls[ls.length - 1] += ` ${end.join(' ')}`;
    return [...this.take(this.c.above, key), ...ls];
  }

  /** A definition with a `{…}` block of children, laid out as `print` lays it out (2-space indent). */
  block(key: string, desc: StringValueNode | undefined, opening: string, children: { key: string; node: ASTNode & { description?: StringValueNode } }[]): string {
    const body = children.flatMap((ch) => this.element(ch.key, print(ch.node), lines(ch.node.description)).map((l) => `  ${l}`));
    const text = [...(desc ? [print(desc)] : []), opening, ...body, '}'].join('\n');
    return this.element(key, text, lines(desc)).join('\n');
  }
}

const deprecated: ConstDirectiveNode = { kind: Kind.DIRECTIVE, name: nameNode('deprecated') };

/** Splits `actions` and `custom_types` into the two files (cli.md §4.9), keeping the comments of `existingSdl` (§4.10). */
export function splitActions(actions: JsonObject[] | undefined, customTypes: JsonObject | undefined, existingSdl?: string): SplitResult {
  const comments = collectComments(existingSdl ?? '');
  const p = new Printer(comments);
  const parts: string[] = [];
  const yActions: Json[] = [];
  for (const a of [...(actions ?? [])].sort(byName)) {
    const name = str(a, 'name');
    const d = isObject(a['definition']) ? a['definition'] : {};
    const field: FieldDefinitionNode = {
      kind: Kind.FIELD_DEFINITION, name: nameNode(name), type: typeNode(d['output_type']),
      arguments: items(d['arguments']).map((arg) => ({
        kind: Kind.INPUT_VALUE_DEFINITION, name: nameNode(str(arg, 'name')), type: typeNode(arg['type']),
        description: description(arg['description']),
      })),
    };
    const root = d['type'] === 'query' ? 'Query' : 'Mutation';
    parts.push(p.block(`block:${name}`, undefined, `type ${root} {`, [{ key: `action:${name}`, node: field }]));
    const def: JsonObject = { kind: d['kind'] ?? 'synchronous' };
    for (const k of ['handler', 'forward_client_headers', 'headers', 'timeout']) if (d[k] !== undefined) def[k] = d[k] as Json;
    const y: JsonObject = { name, definition: def };
    if (a['permissions'] !== undefined) y['permissions'] = a['permissions'];
    if (a['comment'] !== undefined) y['comment'] = a['comment'];
    yActions.push(y);
  }
  const ct = customTypes ?? {};
  const group = (k: string): JsonObject[] => items(ct[k]).sort(byName);
  for (const t of group('scalars')) {
    const desc = description(t['description']);
    const node = { kind: Kind.SCALAR_TYPE_DEFINITION, name: nameNode(str(t, 'name')), description: desc } as const;
    parts.push(p.element(`def:${str(t, 'name')}`, print(node), lines(desc)).join('\n'));
  }
  for (const t of group('enums')) {
    const n = str(t, 'name');
    parts.push(p.block(`def:${n}`, description(t['description']), `enum ${n} {`, items(t['values']).map((v) => ({
      key: `value:${n}.${str(v, 'value')}`,
      node: {
        kind: Kind.ENUM_VALUE_DEFINITION, name: nameNode(str(v, 'value')), description: description(v['description']),
        directives: v['is_deprecated'] === true ? [deprecated] : [],
      },
    }))));
  }
  const fields = (n: string, t: JsonObject, kind: Kind.FIELD_DEFINITION | Kind.INPUT_VALUE_DEFINITION) =>
    items(t['fields']).map((f) => ({
      key: `field:${n}.${str(f, 'name')}`,
      node: { kind, name: nameNode(str(f, 'name')), type: typeNode(f['type']), description: description(f['description']) },
    }));
  for (const t of group('input_objects')) {
    const n = str(t, 'name');
    parts.push(p.block(`def:${n}`, description(t['description']), `input ${n} {`, fields(n, t, Kind.INPUT_VALUE_DEFINITION)));
  }
  for (const t of group('objects')) {
    const n = str(t, 'name');
    parts.push(p.block(`def:${n}`, description(t['description']), `type ${n} {`, fields(n, t, Kind.FIELD_DEFINITION)));
  }
  const header = parts.length > 0 ? comments.header : [];
  p.kept += header.filter((l) => l !== '').length;
  const sdl = parts.length === 0 ? '' : `${header.length > 0 ? `${header.join('\n')}\n\n` : ''}${parts.join('\n\n')}\n`;
  const entries = (k: string, withRelationships = false): Json[] => group(k).map((t) => {
    const out: JsonObject = { name: str(t, 'name') };
    if (withRelationships && t['relationships'] !== undefined) out['relationships'] = t['relationships'];
    return out;
  });
  const yaml: JsonObject = {
    actions: yActions,
    custom_types: { enums: entries('enums'), input_objects: entries('input_objects'), objects: entries('objects', true), scalars: entries('scalars') },
  };
  return { sdl, yaml, droppedComments: comments.total - p.kept };
}
