import { existsSync, readFileSync } from 'node:fs';
import { CliError } from '../errors.js';

export interface EnvFile {
  vars: Map<string, string>;
  /** `envfile-invalid-line` warnings: `<file>:<line>: ignoring invalid line (expected KEY=VALUE)`. */
  warnings: string[];
}

const LINE = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/;

function unquote(raw: string): string | null {
  const v = raw.trim();
  if (v.startsWith("'")) {
    const end = v.indexOf("'", 1);
    return end < 0 ? null : v.slice(1, end);
  }
  if (v.startsWith('"')) {
    let out = '';
    for (let i = 1; i < v.length; i++) {
      const c = v[i];
      if (c === '"') return out;
      if (c === '\\' && i + 1 < v.length) {
        const n = v[++i];
        out += n === 'n' ? '\n' : n === 't' ? '\t' : n === '"' ? '"' : n === '\\' ? '\\' : `\\${n}`;
      } else out += c;
    }
    return null;
  }
  const hash = v.indexOf(' #');
  return (hash < 0 ? v : v.slice(0, hash)).trim();
}

/** Parses a `.env` file (cli.md §2.3): no expansion, later duplicates win. */
export function parseEnvFile(text: string, shownPath: string): EnvFile {
  const vars = new Map<string, string>();
  const warnings: string[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '' || line.trim().startsWith('#')) return;
    const m = LINE.exec(line);
    const value = m ? unquote(m[2] ?? '') : null;
    if (!m || value === null) {
      warnings.push(`${shownPath}:${i + 1}: ignoring invalid line (expected KEY=VALUE)`);
      return;
    }
    vars.set(m[1] as string, value);
  });
  return { vars, warnings };
}

/** Reads the env file; the default one may be absent, an explicitly named one must exist. */
export function loadEnvFile(path: string, shownPath: string, explicit: boolean): EnvFile {
  if (!existsSync(path)) {
    if (explicit) throw new CliError('envfile-not-found', `env file "${shownPath}" not found`, 1);
    return { vars: new Map(), warnings: [] };
  }
  return parseEnvFile(readFileSync(path, 'utf8'), shownPath);
}
