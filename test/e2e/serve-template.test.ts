/**
 * End-to-end: the first `engine serve` on a machine builds the data-directory template (seconds of initdb) and says
 * so on stderr; later starts, even on a new data directory, copy it and say nothing more (issue 37 item 6). A cache
 * directory of the test's own stands for a new machine.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from './cli-helpers.js';
import { run, stopAll, type Proc } from './process-helpers.js';

afterEach(stopAll);

const LISTENING = /^Engine listening on (http:\/\/127\.0\.0\.1:\d+)$/m;

async function listening(p: Proc): Promise<string> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const m = LISTENING.exec(p.out());
    if (m) return m[1] as string;
    if (p.child.exitCode !== null || Date.now() > deadline) throw new Error(`no listening line\nstdout: ${p.out()}\nstderr: ${p.err()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('engine serve: the first start on a machine', { timeout: 180_000 }, () => {
  it('says that it builds the template, once; a second new data directory starts without it', async () => {
    const cwd = await tempDir();
    const cache = join(cwd, 'cache');
    const env = { ENGINE_CACHE_DIR: cache, ENGINE_GRAPHQL_ADMIN_SECRET: 's' };
    const first = run(['serve', '--port', '0', '--data-dir', join(cwd, 'a')], cwd, env);
    await listening(first);
    const lines = first.lines();
    expect(lines[0]).toBe(`Starting embedded PostgreSQL in ${join(cwd, 'a')}…`);
    expect(lines[1]).toMatch(new RegExp(`^First start on this machine: building the data-directory template in ${cache}/pglite-[^ ]+ \\(once; later starts copy it\\)…$`));
    expect(lines[2]).toMatch(/^Ready in \d+\.\d s$/);
    expect(lines).toHaveLength(3);
    expect(readdirSync(cache).some((n) => n.startsWith('pglite-'))).toBe(true);
    first.child.kill('SIGTERM');
    await first.closed;

    const second = run(['serve', '--port', '0', '--data-dir', join(cwd, 'b')], cwd, env);
    await listening(second);
    expect(second.lines()).toEqual([`Starting embedded PostgreSQL in ${join(cwd, 'b')}…`, expect.stringMatching(/^Ready in \d+\.\d s$/)]);
  });
});
