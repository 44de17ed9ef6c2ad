/**
 * Reading the engine's JSON answers without JSON.parse: a stream takes rows apart (issue 32.4) and must pass every value
 * on exactly as the service wrote it — a bigint or numeric past 2^53 would lose digits in a JS number.
 */

const WS = new Set([' ', '\t', '\n', '\r']);

function skipWs(t: string, i: number): number {
  while (i < t.length && WS.has(t[i] as string)) i++;
  return i;
}

/** The end (exclusive) of the JSON value starting at `i`. */
export function valueEnd(t: string, i: number): number {
  const ch = t[i];
  if (ch === '"') {
    for (let j = i + 1; j < t.length; j++) {
      if (t[j] === '\\') j++;
      else if (t[j] === '"') return j + 1;
    }
    throw new Error('unterminated JSON string');
  }
  if (ch === '{' || ch === '[') {
    let depth = 0;
    for (let j = i; j < t.length; j++) {
      const c = t[j];
      if (c === '"') j = valueEnd(t, j) - 1;
      else if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') {
        if (--depth === 0) return j + 1;
      }
    }
    throw new Error('unterminated JSON value');
  }
  let j = i;
  while (j < t.length && !WS.has(t[j] as string) && t[j] !== ',' && t[j] !== '}' && t[j] !== ']') j++;
  return j;
}

/** The members of the object at `i`, each key decoded and its value as written. */
export function members(t: string, i = skipWs(t, 0)): { key: string; value: string }[] {
  if (t[i] !== '{') throw new Error('not a JSON object');
  const out: { key: string; value: string }[] = [];
  let j = skipWs(t, i + 1);
  if (t[j] === '}') return out;
  for (;;) {
    const keyEnd = valueEnd(t, j);
    const key = JSON.parse(t.slice(j, keyEnd)) as string;
    j = skipWs(t, keyEnd);
    if (t[j] !== ':') throw new Error('malformed JSON object');
    const start = skipWs(t, j + 1);
    const end = valueEnd(t, start);
    out.push({ key, value: t.slice(start, end) });
    j = skipWs(t, end);
    if (t[j] === '}') return out;
    if (t[j] !== ',') throw new Error('malformed JSON object');
    j = skipWs(t, j + 1);
  }
}

/** The elements of the array at `i`, as written. */
export function elements(t: string, i = skipWs(t, 0)): string[] {
  if (t[i] !== '[') throw new Error('not a JSON array');
  const out: string[] = [];
  let j = skipWs(t, i + 1);
  if (t[j] === ']') return out;
  for (;;) {
    const end = valueEnd(t, j);
    out.push(t.slice(j, end));
    j = skipWs(t, end);
    if (t[j] === ']') return out;
    if (t[j] !== ',') throw new Error('malformed JSON array');
    j = skipWs(t, j + 1);
  }
}
