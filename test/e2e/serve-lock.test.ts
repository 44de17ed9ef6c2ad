/**
 * Issue 28 point 3 with the real bin: `engine serve` processes started at once on one embedded data directory — new,
 * or with a stale lock — never both serve it; an empty `engine.pid` is held. The lock's own races, many rounds of
 * them, are in test/integration/data-dir-lock.test.ts.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from './cli-helpers.js';
import { finished, run, stopAll, type Proc } from './process-helpers.js';

afterEach(stopAll);

const LISTENING = /^Engine listening on (http:\/\/127\.0\.0\.1:\d+)$/m;

/** Resolves with the URL once `p` listens, or null once it exits. */
async function outcome(p: Proc): Promise<string | null> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const m = LISTENING.exec(p.out());
    if (m) return m[1] as string;
    if (p.child.exitCode !== null || p.child.signalCode !== null) return null;
    if (Date.now() > deadline) throw new Error(`neither listening nor ended\nstderr: ${p.err()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('engine serve: simultaneous starts on one data directory', { timeout: 300_000 }, () => {
  it('exactly one engine serves; the others fail with data-dir-locked (new directory, stale lock)', async () => {
    const cwd = await tempDir();
    const dead = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    await new Promise<void>((r) => dead.on('close', () => r()));
    for (const [round, stale] of [[0, false], [1, true]] as const) {
      const dataDir = join(cwd, `data${round}`);
      if (stale) {
        mkdirSync(dataDir, { recursive: true });
        writeFileSync(join(dataDir, 'engine.pid'), `${dead.pid}\n`);
      }
      const ps = [0, 1, 2].map(() => run(['serve', '--port', '0', '--data-dir', dataDir, '--admin-secret', 's'], cwd));
      const urls = await Promise.all(ps.map(outcome));
      expect(urls.filter((u) => u !== null), `round ${round}`).toHaveLength(1);
      const winner = ps[urls.findIndex((u) => u !== null)] as Proc;
      for (const p of ps) {
        if (p === winner) continue;
        expect(await finished(p)).toBe(1);
        expect(p.lines()).toContain(`error: data directory ${dataDir} is in use by another engine (pid ${winner.child.pid})`);
      }
      expect(readFileSync(join(dataDir, 'engine.pid'), 'utf8')).toBe(`${winner.child.pid}\n`);
      winner.child.kill('SIGTERM');
      expect(await finished(winner)).toBe(0);
    }
  });

  it('an empty engine.pid is held: data-dir-locked with a hint, exit 1, the file unchanged', async () => {
    const cwd = await tempDir();
    const dataDir = join(cwd, 'data');
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, 'engine.pid'), '');
    const p = run(['serve', '--port', '0', '--data-dir', dataDir], cwd);
    expect(await finished(p)).toBe(1);
    expect(p.out()).toBe('');
    expect(p.lines().slice(-2)).toEqual([
      `error: data directory ${dataDir} is in use by another engine`,
      `hint: ${join(dataDir, 'engine.pid')} names no process; if no engine uses this directory, remove the file`,
    ]);
    expect(readFileSync(join(dataDir, 'engine.pid'), 'utf8')).toBe('');
  });
});
