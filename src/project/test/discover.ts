import { readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { CliError } from '../../errors.js';
import { shownPath } from '../project-file.js';
import { readProjectFile } from '../project-file.js';
import { parseTestFile, type TestFile } from './format.js';

export const TEST_FILE = /\.test\.ya?ml$/;

function walk(dir: string, out: string[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const p = join(dir, entry.name);
    if (entry.isDirectory()) walk(p, out);
    else if (entry.isFile() && TEST_FILE.test(entry.name)) out.push(p);
  }
}

/**
 * The test files named by `paths` (files, or directories searched for `*.test.yaml`), by default the project's
 * `tests/` directory; in path order, so runs and reports are the same every time.
 */
export function findTestFiles(projectDir: string, paths: string[], cwd = process.cwd()): string[] {
  const roots = paths.length > 0 ? paths.map((p) => resolve(cwd, p)) : [join(projectDir, 'tests')];
  const files: string[] = [];
  for (const root of roots) {
    let st;
    try {
      st = statSync(root);
    } catch {
      throw new CliError('file-not-found', `"${shownPath(root, cwd)}" not found`, 1, { hint: paths.length > 0 ? 'give test files or directories' : 'put cases in tests/*.test.yaml' });
    }
    if (st.isDirectory()) walk(root, files);
    else files.push(root);
  }
  if (files.length === 0) throw new CliError('no-tests', `no test files (*.test.yaml) under ${roots.map((r) => shownPath(r, cwd)).join(', ')}`, 1);
  return [...new Set(files)];
}

/** Reads and checks every file before anything runs: a broken file fails the run at once, at its position. */
export function loadTestFiles(files: string[], cwd = process.cwd()): TestFile[] {
  return files.map((f) => {
    const text = readProjectFile(f, { cwd }) ?? '';
    return parseTestFile(relative(cwd, f) || f, text);
  });
}
