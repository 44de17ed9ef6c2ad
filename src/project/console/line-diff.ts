/**
 * A unified diff of one file's old and new text, as git would show the change a console edit makes. The console's
 * writes change one contiguous region (one table's lines), so one hunk — the lines between the common start and the
 * common end, with three lines of context — is the whole diff; an empty string when nothing changes.
 */
export function lineDiff(before: string, after: string, name: string, context = 3): string {
  if (before === after) return '';
  const lines = (t: string) => (t.endsWith('\n') ? t.slice(0, -1) : t).split('\n');
  const a = lines(before);
  const b = lines(after);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const from = Math.max(0, start - context);
  const toA = Math.min(a.length, endA + context);
  const toB = Math.min(b.length, endB + context);
  const out = [
    `--- a/${name}`, `+++ b/${name}`,
    `@@ -${from + 1},${toA - from} +${from + 1},${toB - from} @@`,
    ...a.slice(from, start).map((l) => ` ${l}`),
    ...a.slice(start, endA).map((l) => `-${l}`),
    ...b.slice(start, endB).map((l) => `+${l}`),
    ...a.slice(endA, toA).map((l) => ` ${l}`),
  ];
  return `${out.join('\n')}\n`;
}
