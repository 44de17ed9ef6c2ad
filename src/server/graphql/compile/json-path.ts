import { arrayLiteral } from '../../bool-exp/compile.js';
import { validationFailed } from '../errors.js';
import { VarRef, type GValue } from './values.js';

/**
 * The `path` argument of json/jsonb column fields (issue 30.4), in the incumbent's syntax: an optional `$`, then keys
 * (`a`, `.a`), indices (`[0]`) and quoted keys (`['a b']`, `["a b"]`, either after an optional dot). The cell answers
 * `cell #> '{keys…}'`: indices stay text, which `#>` reads as array positions.
 */

const NAME = /[\p{L}\p{N}_-]/u;

/** The path's elements, or null when it is not a path. */
export function parseJsonPath(text: string): string[] | null {
  if (text === '$') return [];
  const out: string[] = [];
  let i = text.startsWith('$') ? 1 : 0;
  const quoted = (q: string): string | null => {
    let s = '';
    for (i++; i < text.length; i++) {
      const ch = text[i] as string;
      if (ch === q) {
        i++;
        return s;
      }
      if (ch === '\\' && i + 1 < text.length) s += text[++i];
      else s += ch;
    }
    return null;
  };
  while (i < text.length) {
    const dot = text[i] === '.';
    if (dot) i++;
    if (text[i] === '[') {
      i++;
      const digits = /^\d+/.exec(text.slice(i));
      let el: string | null;
      if (digits) {
        el = String(Number(digits[0]));
        i += digits[0].length;
      } else if (text[i] === "'" || text[i] === '"') el = quoted(text[i] as string);
      else return null;
      if (el === null || text[i] !== ']') return null;
      i++;
      out.push(el);
      continue;
    }
    const start = i;
    // A name starts with a letter or underscore (a digit or hyphen first is no name).
    if (i < text.length && /[\p{L}_]/u.test(text[i] as string)) {
      for (i++; i < text.length && NAME.test(text[i] as string); i++);
    }
    if (i === start) return null;
    out.push(text.slice(start, i));
  }
  return out.length > 0 ? out : null;
}

export const jsonPathError = (path: string, text: string): Error =>
  validationFailed(path, `parse json path error: ${text}. Accept letters, digits, underscore (_) or hyphen (-) only. Use quotes enclosed in bracket (["..."]) if there is any special character`);

/** The `#>` operand of a path given as a literal: the elements as a text[] literal (null for the whole value). */
export function jsonPathLiteral(text: string, path: string): string | null {
  const els = parseJsonPath(text);
  if (els === null) throw jsonPathError(path, text);
  return els.length === 0 ? null : arrayLiteral(els);
}

/** What jsonPathSql needs of the statement builder (its type here would close an import cycle through bind.ts). */
interface PathParams {
  jsonPath(v: VarRef, path: string): string;
  value(v: string, type: string): string;
}

/** A json/jsonb cell under its field's `path` argument (absent or null: the whole cell). */
export function jsonPathSql(b: PathParams, cell: string, v: GValue | undefined, path: string): string {
  if (v === undefined || v === null) return cell;
  if (v instanceof VarRef) return `(${cell} #> ${b.jsonPath(v, path)})`;
  const lit = jsonPathLiteral(String(v), path);
  return lit === null ? cell : `(${cell} #> ${b.value(lit, 'text[]')})`;
}
