/** Edit distance, for "did you mean" suggestions (cli.md §2.5, §6). A leaf module: the CLI's start-up imports it. */
export function levenshtein(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur[j] = Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
    }
    prev = cur;
  }
  return prev[b.length] ?? 0;
}

/**
 * The candidate nearest to `word` within `maxDistance`, ties broken in code-point order; undefined when none is that
 * close. One rule for every "did you mean" of the CLI (commands, config keys, metadata keys, operators).
 */
export function nearest(word: string, candidates: Iterable<string>, maxDistance = Infinity): string | undefined {
  let best: string | undefined;
  let bestDistance = maxDistance + 1;
  for (const c of [...candidates].sort()) {
    const d = levenshtein(word, c);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}
