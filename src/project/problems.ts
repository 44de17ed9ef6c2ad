/** A finding of offline validation (cli.md §4.13, §5.5): a code of §6, a severity and, where known, a position. */
export interface Position {
  file: string;
  line: number;
  column: number;
}

export interface Problem {
  severity: 'error' | 'warning';
  code: string;
  message: string;
  file?: string;
  line?: number;
  column?: number;
}

/** Collects every problem of every file: validation reports all of them at once, never only the first. */
export class Problems {
  readonly list: Problem[] = [];

  error(code: string, message: string, at?: Position): void {
    this.list.push({ severity: 'error', code, message, ...(at ?? {}) });
  }

  warn(code: string, message: string, at?: Position): void {
    this.list.push({ severity: 'warning', code, message, ...(at ?? {}) });
  }

  get errors(): Problem[] {
    return this.list.filter((p) => p.severity === 'error');
  }

  get warnings(): Problem[] {
    return this.list.filter((p) => p.severity === 'warning');
  }

  /** Ordered by file, line, column (cli.md §5.5). */
  sorted(): Problem[] {
    return sortProblems(this.list);
  }
}

export const sortProblems = (list: readonly Problem[]): Problem[] => [...list].sort((a, b) =>
  (a.file ?? '').localeCompare(b.file ?? '') || (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));

/**
 * The one format of a problem, wherever it is printed (validate, apply, migrations): `<file>:<line>:<col>: <severity>:
 * <message> [<code>]`, as compilers write it, so editors and CI annotations can jump to it.
 */
export function formatProblem(p: Problem): string {
  const where = p.file ? `${p.file}:${p.line ?? 1}:${p.column ?? 1}: ` : '';
  return `${where}${p.severity}: ${p.message} [${p.code}]`;
}
