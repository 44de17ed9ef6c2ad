/**
 * A small Mustache renderer (spec v1.3: variables, sections, inverted sections, comments, set delimiters, standalone
 * lines) used by `actions codegen` (cli.md §7.2). Values are never HTML-escaped: `{{x}}`, `{{{x}}}` and `{{&x}}` are
 * the same. Partials and lambdas are not supported (the shipped templates need neither).
 */

type Node =
  | { type: 'text'; text: string }
  | { type: 'var'; name: string }
  | { type: 'section'; name: string; inverted: boolean; children: Node[] };

export class TemplateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TemplateError';
  }
}

/** Tags that may stand alone on a line, which is then removed entirely (spec: "Standalone Lines"). */
const STANDALONE = new Set(['#', '^', '/', '!', '=']);

/** Parses a template into a tree; unbalanced or malformed tags are a TemplateError. */
export function parseTemplate(template: string): Node[] {
  const root: Node[] = [];
  const stack: { name: string; children: Node[] }[] = [{ name: '', children: root }];
  let open = '{{';
  let close = '}}';
  let pos = 0;
  const lineOf = (offset: number): number => template.slice(0, offset).split('\n').length;
  const push = (n: Node): void => void (stack[stack.length - 1] as { children: Node[] }).children.push(n);
  const pushText = (text: string): void => {
    if (text !== '') push({ type: 'text', text });
  };

  while (pos < template.length) {
    const start = template.indexOf(open, pos);
    if (start < 0) {
      pushText(template.slice(pos));
      break;
    }
    const contentStart = start + open.length;
    let kind: string;
    let raw: string;
    let tagEnd: number;
    if (template[contentStart] === '{' && open === '{{') {
      // {{{name}}}: the same as {{&name}} (nothing is escaped anyway).
      const end = template.indexOf(`}${close}`, contentStart);
      if (end < 0) throw new TemplateError(`unclosed tag at line ${lineOf(start)}`);
      kind = '&';
      raw = template.slice(contentStart + 1, end);
      tagEnd = end + 1 + close.length;
    } else {
      const end = template.indexOf(close, contentStart);
      if (end < 0) throw new TemplateError(`unclosed tag at line ${lineOf(start)}`);
      const sigil = template[contentStart] ?? '';
      kind = ['#', '^', '/', '!', '=', '&', '>'].includes(sigil) ? sigil : '';
      raw = template.slice(contentStart + kind.length, end);
      tagEnd = end + close.length;
    }
    let body = raw.trim();
    if (kind === '=') body = body.replace(/=$/, '').trim();

    // Standalone: only whitespace before the tag on its line and only whitespace up to the line break after it.
    let textEnd = start;
    let next = tagEnd;
    if (STANDALONE.has(kind)) {
      const lineStart = template.lastIndexOf('\n', start - 1) + 1;
      const after = /^[ \t]*(\r?\n|$)/.exec(template.slice(tagEnd));
      if (after && /^[ \t]*$/.test(template.slice(lineStart, start))) {
        textEnd = lineStart;
        next = tagEnd + after[0].length;
      }
    }
    pushText(template.slice(pos, textEnd));
    pos = next;

    switch (kind) {
      case '!':
        break;
      case '=': {
        const parts = body.split(/\s+/);
        if (parts.length !== 2 || !parts[0] || !parts[1]) throw new TemplateError(`invalid delimiters "${raw}" at line ${lineOf(start)}`);
        [open, close] = [parts[0], parts[1]];
        break;
      }
      case '>':
        throw new TemplateError(`partials are not supported ("${raw}" at line ${lineOf(start)})`);
      case '#':
      case '^': {
        const section: Node = { type: 'section', name: body, inverted: kind === '^', children: [] };
        push(section);
        stack.push({ name: body, children: section.children });
        break;
      }
      case '/': {
        const top = stack.pop();
        if (!top || stack.length === 0 || top.name !== body) {
          throw new TemplateError(`unexpected closing tag "${body}" at line ${lineOf(start)}`);
        }
        break;
      }
      default:
        if (body === '') throw new TemplateError(`empty tag at line ${lineOf(start)}`);
        push({ type: 'var', name: body });
    }
  }
  if (stack.length > 1) throw new TemplateError(`unclosed section "${(stack[stack.length - 1] as { name: string }).name}"`);
  return root;
}

/** Looks a (dotted) name up the context stack; `.` is the current context. */
function lookup(stack: unknown[], name: string): unknown {
  if (name === '.') return stack[stack.length - 1];
  const [first, ...rest] = name.split('.');
  let value: unknown;
  let found = false;
  for (let i = stack.length - 1; i >= 0; i--) {
    const ctx = stack[i];
    if (ctx !== null && typeof ctx === 'object' && (first as string) in ctx) {
      value = (ctx as Record<string, unknown>)[first as string];
      found = true;
      break;
    }
  }
  if (!found) return undefined;
  for (const part of rest) {
    if (value === null || value === undefined || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

const falsy = (v: unknown): boolean => v === undefined || v === null || v === false || v === '' || v === 0 || (Array.isArray(v) && v.length === 0);

function renderNodes(nodes: Node[], stack: unknown[]): string {
  let out = '';
  for (const n of nodes) {
    if (n.type === 'text') out += n.text;
    else if (n.type === 'var') {
      const v = lookup(stack, n.name);
      out += v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
    } else {
      const v = lookup(stack, n.name);
      if (n.inverted) {
        if (falsy(v)) out += renderNodes(n.children, stack);
      } else if (Array.isArray(v)) {
        for (const item of v) out += renderNodes(n.children, [...stack, item]);
      } else if (!falsy(v)) {
        out += renderNodes(n.children, typeof v === 'object' ? [...stack, v] : stack);
      }
    }
  }
  return out;
}

/** Renders `template` with `view` (Mustache semantics, no HTML escaping). */
export function renderTemplate(template: string, view: unknown): string {
  return renderNodes(parseTemplate(template), [view]);
}
