import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { CliError } from '../../src/errors.js';
import { loadConfig, type LoadConfigOptions } from '../../src/project/config/config.js';

// Shared by the config-*.test.ts files: a temporary project per test and loadConfig/failure wrappers.

export let root: string;
export let proj: string;

/** Registers the hooks that give each test a fresh temporary `root` with an empty `proj` directory in it. */
export function useTempProject(): void {
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'engine-config-'));
    proj = join(root, 'proj');
    mkdirSync(proj);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));
}

export const write = (rel: string, text: string): string => {
  const p = join(root, rel);
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, text);
  return p;
};
export const project = (yaml: string, env?: string): void => {
  write('proj/config.yaml', yaml);
  if (env !== undefined) write('proj/.env', env);
};
export const load = (o: Partial<LoadConfigOptions> = {}) => loadConfig({ requireProject: true, cwd: proj, env: {}, ...o });

/** The CliError thrown by `f`, with its parts. */
export function failure(f: () => unknown) {
  try {
    f();
  } catch (e) {
    if (!(e instanceof CliError)) throw e;
    return { code: e.code, message: e.message, exit: e.exitCode, ...e.location };
  }
  throw new Error('expected a CliError');
}
