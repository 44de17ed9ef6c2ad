import { CliError } from '../../errors.js';
import { readProjectFile } from '../project-file.js';
import type { Problem } from '../problems.js';

export interface EnvFile {
  vars: Map<string, string>;
  /** `envfile-invalid-line` warnings: `<file>:<line>: ignoring invalid line (expected KEY=VALUE)`. */
  warnings: string[];
  /** The same warnings as problems (code `envfile-invalid-line`); the message carries the position (cli.md §6). */
  problems: Problem[];
}

const LINE = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=([^]*)$/;

/** What may follow a closing quote: nothing, or a comment. */
const AFTER_QUOTE = /^\s*(?:#.*)?$/;

/** The value of `KEY=<raw>`, or null when the line is invalid (cli.md §2.3). */
function parseValue(raw: string): string | null {
  const v = raw.trimStart();
  if (v.startsWith("'")) {
    const end = v.indexOf("'", 1);
    return end < 0 || !AFTER_QUOTE.test(v.slice(end + 1)) ? null : v.slice(1, end);
  }
  if (v.startsWith('"')) {
    let out = '';
    for (let i = 1; i < v.length; i++) {
      const c = v[i];
      if (c === '"') return AFTER_QUOTE.test(v.slice(i + 1)) ? out : null;
      if (c === '\\' && i + 1 < v.length) {
        const n = v[++i];
        out += n === 'n' ? '\n' : n === 't' ? '\t' : n === '"' ? '"' : n === '\\' ? '\\' : `\\${n}`;
      } else out += c;
    }
    return null;
  }
  // An unquoted value ends at ` #` (a comment); `=` followed by ` #…` is an empty value.
  const hash = raw.search(/\s#/);
  return (hash < 0 ? raw : raw.slice(0, hash)).trim();
}

/** Parses a `.env` file (cli.md §2.3): no expansion, later duplicates win. */
export function parseEnvFile(text: string, shownPath: string): EnvFile {
  const vars = new Map<string, string>();
  const warnings: string[] = [];
  const problems: Problem[] = [];
  text.replace(/^\uFEFF/, '').split(/\r?\n/).forEach((line, i) => {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    const m = LINE.exec(line);
    const value = m ? parseValue(m[2] ?? '') : null;
    if (!m || value === null) {
      const message = `${shownPath}:${i + 1}: ignoring invalid line (expected KEY=VALUE)`;
      warnings.push(message);
      problems.push({ severity: 'warning', code: 'envfile-invalid-line', message });
      return;
    }
    vars.set(m[1] as string, value);
  });
  return { vars, warnings, problems };
}

/**
 * Reads the env file (`found`: it exists); the default one may be absent, an explicitly named one must exist. One that
 * exists but cannot be read is `unreadable-project-file`, named or not: its variables may be the admin secret.
 */
export function loadEnvFile(path: string, shownPath: string, explicit: boolean, cwd = process.cwd()): EnvFile & { found: boolean } {
  const text = readProjectFile(path, { cwd });
  if (text === undefined) {
    if (explicit) throw new CliError('envfile-not-found', `env file "${shownPath}" not found`, 1);
    return { vars: new Map(), warnings: [], problems: [], found: false };
  }
  return { ...parseEnvFile(text, shownPath), found: true };
}
