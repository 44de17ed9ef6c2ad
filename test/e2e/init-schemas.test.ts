/**
 * End-to-end: the `$schema` lines `engine init` writes work for a teammate who clones the project (issue 37 item 9):
 * in a fresh clone, without engine installed, every line names a file that exists and holds the package's schema.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { cli, removeTempDirs, show, tempDir } from './cli-helpers.js';

afterEach(removeTempDirs);

const PACKAGE_SCHEMAS = fileURLToPath(new URL('../../schemas/', import.meta.url));
const LINE = /^# yaml-language-server: \$schema=(\S+)\n/;

function git(cwd: string, ...args: string[]): void {
  const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd, encoding: 'utf8' });
  expect(r.status, `git ${args.join(' ')}: ${r.stderr}`).toBe(0);
}

function yamlFiles(dir: string): string[] {
  return ['config.yaml', ...readdirSync(join(dir, 'metadata')).filter((n) => n.endsWith('.yaml')).map((n) => `metadata/${n}`)];
}

describe.skipIf(spawnSync('git', ['--version']).status !== 0)('engine init: $schema lines in a clone', () => {
  it('every YAML file names a schema the clone holds, with the bytes of the package', async () => {
    const root = await tempDir();
    const repo = join(root, 'repo');
    git(root, 'init', '-q', repo);
    const init = await cli(['init', 'app'], { cwd: repo });
    expect(init.code, show(init)).toBe(0);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-qm', 'init');
    git(root, 'clone', '-q', repo, 'clone');
    const app = join(root, 'clone', 'app');
    const files = yamlFiles(app);
    expect(files).toHaveLength(9);
    for (const rel of files) {
      const m = LINE.exec(readFileSync(join(app, rel), 'utf8'));
      expect(m, rel).not.toBeNull();
      const target = resolve(dirname(join(app, rel)), (m as RegExpExecArray)[1] as string);
      expect(target.startsWith(`${app}/`), `${rel} names a file inside the project: ${target}`).toBe(true);
      const name = target.slice(target.lastIndexOf('/') + 1);
      expect(readFileSync(target, 'utf8'), rel).toBe(readFileSync(join(PACKAGE_SCHEMAS, name), 'utf8'));
    }
  });
});
