import { sortKeysDeep, type Json } from '../../metadata/json.js';

/** Pretty JSON with sorted keys: two values that differ only in key order print the same lines. */
export function jsonLines(v: Json): string[] {
  return JSON.stringify(sortKeysDeep(v), null, 2).split('\n');
}

/**
 * A line diff of expected → actual (`- ` expected only, `+ ` actual only, `  ` both), by longest common subsequence.
 * Test values are small (a response of a case); inputs over 2,000 lines each are shown whole, without alignment.
 */
export function lineDiff(expected: string[], actual: string[]): string[] {
  const n = expected.length;
  const m = actual.length;
  if (n > 2000 || m > 2000) return [...expected.map((l) => `- ${l}`), ...actual.map((l) => `+ ${l}`)];
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i]![j] = expected[i] === actual[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && expected[i] === actual[j]) {
      out.push(`  ${expected[i]}`);
      i++;
      j++;
    } else if (j < m && (i === n || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) {
      out.push(`+ ${actual[j]}`);
      j++;
    } else {
      out.push(`- ${expected[i]}`);
      i++;
    }
  }
  return out;
}

/** The diff of two JSON values. */
export function jsonDiff(expected: Json, actual: Json): string[] {
  return lineDiff(jsonLines(expected), jsonLines(actual));
}
