import { readFileSync } from 'node:fs';

/** The lines of the object starting at `line` (of a file's `lines`): it and the following lines indented deeper (at most 20). */
export function objectLines(lines: string[], line: number): string[] {
  const first = lines[line - 1] ?? '';
  const indent = first.length - first.trimStart().length;
  const out = [first];
  for (let i = line; i < lines.length; i++) {
    const l = lines[i] as string;
    if (l.trim() !== '' && l.length - l.trimStart().length <= indent) break;
    out.push(l);
  }
  while (out.length > 1 && (out[out.length - 1] as string).trim() === '') out.pop();
  return out.length > 20 ? [...out.slice(0, 20), `… (${out.length - 20} more lines)`] : out;
}

/** A file's lines, split once per file: an engine that rejects thousands of objects names them all. */
export function lineReader(known: (file: string) => string | undefined): (file: string) => string[] | undefined {
  const cache = new Map<string, string[] | undefined>();
  return (file) => {
    if (!cache.has(file)) cache.set(file, (known(file) ?? readText(file))?.split(/\r?\n/));
    return cache.get(file);
  };
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** A line of source and a caret under `column` (1-based), tabs kept so the caret lines up. */
export function caretLines(line: string, column: number): string[] {
  const pad = [...line].slice(0, Math.max(0, column - 1)).map((c) => (c === '\t' ? '\t' : ' ')).join('');
  return [line, `${pad}^`];
}
