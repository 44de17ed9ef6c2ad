import { parseFailed } from '../errors.js';
import { pathIndex, pathKey } from '../metadata/json.js';

/**
 * PostgreSQL's text and jsonb cannot hold U+0000, and UTF-8 cannot encode a UTF-16 surrogate that is not part of a
 * pair. JSON.parse turns the escapes `\u0000` and `\ud800` into exactly those, so every string of a parsed request
 * body (object keys too) is checked once, before anything reaches the database, instead of failing there with a 500.
 */

// Any NUL or surrogate; the slow, exact check below only runs for the rare string this matches.
// eslint-disable-next-line no-control-regex -- NUL is exactly what this looks for
const SUSPECT = /[\u0000\ud800-\udfff]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const hex = (unit: number): string => `\\u${unit.toString(16).padStart(4, '0')}`;

/** Why PostgreSQL cannot store `s`, or null when it can. */
export function unstorableReason(s: string): string | null {
  if (!SUSPECT.test(s)) return null;
  if (s.includes('\u0000')) return 'a NUL character (\\u0000)';
  const lone = LONE_SURROGATE.exec(s);
  return lone ? `a lone surrogate (${hex(lone[0].charCodeAt(0))})` : null;
}

interface Frame {
  value: unknown;
  parent: Frame | null;
  /** Key or index in the parent; unused at the root. */
  step: string | number;
}

function pathOf(frame: Frame, root: string): string {
  const steps: (string | number)[] = [];
  for (let f: Frame | null = frame; f?.parent; f = f.parent) steps.push(f.step);
  let path = root;
  for (const s of steps.reverse()) path = typeof s === 'number' ? pathIndex(path, s) : pathKey(path, s);
  return path;
}

/**
 * Throws 400 `parse-failed` at the first string (in document order) that PostgreSQL cannot store. A bad object key
 * is reported at the object holding it, so that the path itself stays printable. Iterative: any depth is safe.
 * Every JSON route calls this on its parsed body (engine-api.md §1.6).
 */
export function checkStorableStrings(body: unknown, root = '$'): void {
  const stack: Frame[] = [{ value: body, parent: null, step: 0 }];
  for (let frame = stack.pop(); frame; frame = stack.pop()) {
    if (frame.parent && typeof frame.step === 'string') {
      const reason = unstorableReason(frame.step);
      if (reason) throw parseFailed(pathOf(frame.parent, root), `object key contains ${reason}, which PostgreSQL cannot store`);
    }
    const v = frame.value;
    if (typeof v === 'string') {
      const reason = unstorableReason(v);
      if (reason) throw parseFailed(pathOf(frame, root), `string contains ${reason}, which PostgreSQL cannot store`);
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], parent: frame, step: i });
    } else if (typeof v === 'object' && v !== null) {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i] as string;
        stack.push({ value: (v as Record<string, unknown>)[k], parent: frame, step: k });
      }
    }
  }
}
