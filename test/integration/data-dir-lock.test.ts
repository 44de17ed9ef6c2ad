/**
 * The embedded data directory's lock (issue 28 point 3): real processes starting at once on one directory — empty,
 * with a stale lock, after the holder was killed — never both hold it; an empty or garbled lock is held. The real
 * `engine serve` races are in test/e2e/serve-lock.test.ts.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { acquireDataDirLock } from '../../src/db/lock-file.js';
import { CliError } from '../../src/errors.js';
import type { Logger } from '../../src/logger.js';

const MODULE = pathToFileURL(resolve('dist/db/lock-file.js')).href;

/** A process that takes the lock of the directory it is sent, answers `ok <pid>` or the error's code, and holds it. */
const SCRIPT = `
import { acquireDataDirLock } from ${JSON.stringify(MODULE)};
import { createInterface } from 'node:readline';
const logger = { debug() {}, info() {}, warn() {}, error() {} };
let release = null;
for await (const line of createInterface({ input: process.stdin })) {
  const [cmd, dir] = line.split(' ');
  if (cmd === 'take') {
    try { release = await acquireDataDirLock(dir, dir, logger); console.log('ok'); }
    catch (e) { console.log(e.code ?? String(e)); }
  } else if (cmd === 'release') { release?.(); release = null; console.log('released'); }
}
`;

class Starter {
  readonly child: ChildProcessWithoutNullStreams;
  private buffer = '';
  private waiting: ((line: string) => void)[] = [];
  constructor() {
    this.child = spawn(process.execPath, ['--input-type=module', '-e', SCRIPT]);
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (d: string) => {
      this.buffer += d;
      let nl: number;
      while ((nl = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        this.waiting.shift()?.(line);
      }
    });
  }
  send(line: string): Promise<string> {
    const answer = new Promise<string>((r) => this.waiting.push(r));
    this.child.stdin.write(`${line}\n`);
    return answer;
  }
  async kill(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const closed = new Promise<void>((r) => this.child.on('close', () => r()));
    this.child.kill('SIGKILL');
    await closed;
  }
}

const starters: Starter[] = [];
afterAll(async () => {
  await Promise.all(starters.map((s) => s.kill()));
});

const base = await mkdtemp(join(tmpdir(), 'engine-lock-'));
let dirs = 0;
const freshDir = (): string => {
  const dir = join(base, `d${dirs++}`);
  mkdirSync(dir);
  return dir;
};

async function deadPid(): Promise<number> {
  const p = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  await new Promise<void>((r) => p.on('close', () => r()));
  return p.pid as number;
}

const warnings: string[] = [];
const logger: Logger = { debug() {}, info() {}, warn: (m: string) => warnings.push(m), error() {} } as unknown as Logger;

async function lockError(dir: string): Promise<CliError> {
  const e = await acquireDataDirLock(dir, dir, logger).then(() => null, (x: unknown) => x);
  expect(e).toBeInstanceOf(CliError);
  return e as CliError;
}

describe('data directory lock', { timeout: 120_000 }, () => {
  it('processes starting at once: exactly one holds the directory (no lock, a stale one, a holder killed)', async () => {
    for (let i = 0; i < 4; i++) starters.push(new Starter());
    const dead = await deadPid();
    let holder: Starter | null = null;
    for (let round = 0; round < 30; round++) {
      const dir = freshDir();
      const kind = round % 3;
      if (kind === 1) writeFileSync(join(dir, 'engine.pid'), `${dead}\n`);
      if (kind === 2 && holder) {
        // The previous round's holder dies holding a lock of this directory.
        const victim: Starter = holder;
        expect(await victim.send(`take ${dir}`)).toBe('ok');
        await victim.kill();
        starters[starters.indexOf(victim)] = new Starter();
      }
      const answers = await Promise.all(starters.map((s) => s.send(`take ${dir}`)));
      expect(answers.filter((a) => a === 'ok'), `round ${round}: ${answers.join(' ')}`).toHaveLength(1);
      expect(answers.filter((a) => a !== 'ok').every((a) => a === 'data-dir-locked')).toBe(true);
      holder = starters[answers.indexOf('ok')] as Starter;
      expect(readFileSync(join(dir, 'engine.pid'), 'utf8')).toBe(`${holder.child.pid}\n`);
      // Nothing of the race is left behind but the lock.
      expect(readdirSync(dir)).toEqual(['engine.pid']);
      for (const s of starters) if (s !== holder) expect(await s.send(`take ${dir}`)).toBe('data-dir-locked');
      expect(await holder.send('release')).toBe('released');
      expect(existsSync(join(dir, 'engine.pid'))).toBe(false);
    }
  });

  it('an empty, garbled or unreadable lock is held: data-dir-locked with a hint, the file left as it was', async () => {
    for (const text of ['', '\n', 'abc\n', '12 34\n', '-5\n']) {
      const dir = freshDir();
      writeFileSync(join(dir, 'engine.pid'), text);
      const e = await lockError(dir);
      expect([e.code, e.message, e.exitCode]).toEqual(['data-dir-locked', `data directory ${dir} is in use by another engine`, 1]);
      expect(e.location.hint).toBe(`${join(dir, 'engine.pid')} names no process; if no engine uses this directory, remove the file`);
      expect(readFileSync(join(dir, 'engine.pid'), 'utf8')).toBe(text);
      expect(readdirSync(dir)).toEqual(['engine.pid']);
    }
  });

  it('an empty lock written before the system started (a power loss) is taken over with a warning', async () => {
    const dir = freshDir();
    writeFileSync(join(dir, 'engine.pid'), '');
    utimesSync(join(dir, 'engine.pid'), new Date('2001-01-01'), new Date('2001-01-01'));
    warnings.length = 0;
    const release = await acquireDataDirLock(dir, dir, logger);
    expect(warnings).toEqual([`taking over the stale lock of data directory ${dir} (written before the system started)`]);
    expect(readFileSync(join(dir, 'engine.pid'), 'utf8')).toBe(`${process.pid}\n`);
    release();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a live holder: data-dir-locked naming its pid; a dead one is taken over with a warning', async () => {
    const dir = freshDir();
    const other = new Starter();
    starters.push(other);
    expect(await other.send(`take ${dir}`)).toBe('ok');
    const e = await lockError(dir);
    expect([e.code, e.message]).toEqual(['data-dir-locked', `data directory ${dir} is in use by another engine (pid ${other.child.pid})`]);
    await other.kill();
    warnings.length = 0;
    const release = await acquireDataDirLock(dir, dir, logger);
    expect(warnings).toEqual([`taking over the stale lock of data directory ${dir} (pid ${other.child.pid} is not running)`]);
    expect(readFileSync(join(dir, 'engine.pid'), 'utf8')).toBe(`${process.pid}\n`);
    release();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a takeover abandoned by a starter that died is taken over in turn; one in progress is waited for', async () => {
    const dir = freshDir();
    const dead = await deadPid();
    writeFileSync(join(dir, 'engine.pid'), `${dead}\n`);
    const st = statSync(join(dir, 'engine.pid'), { bigint: true });
    const claim = join(dir, `engine.pid.claim-${st.ino}-${st.mtimeNs}-${dead}`);
    writeFileSync(claim, `${await deadPid()}\n`);
    const release = await acquireDataDirLock(dir, dir, logger);
    expect(readFileSync(join(dir, 'engine.pid'), 'utf8')).toBe(`${process.pid}\n`);
    expect(readdirSync(dir)).toEqual(['engine.pid']);
    release();

    // A claim held by a live process that never finishes: the starter gives up without touching the lock.
    writeFileSync(join(dir, 'engine.pid'), `${dead}\n`);
    const again = statSync(join(dir, 'engine.pid'), { bigint: true });
    const held = join(dir, `engine.pid.claim-${again.ino}-${again.mtimeNs}-${dead}`);
    const live = new Starter();
    starters.push(live);
    writeFileSync(held, `${live.child.pid}\n`);
    const e = await lockError(dir);
    expect([e.code, e.message]).toEqual(['data-dir-locked', `data directory ${dir} is in use by another engine`]);
    expect(e.location.hint).toBe(`another engine is taking its stale lock over; if none is, remove ${join(dir, 'engine.pid.claim-*')}`);
    expect(readFileSync(join(dir, 'engine.pid'), 'utf8')).toBe(`${dead}\n`);
    expect(readdirSync(dir).sort()).toEqual(['engine.pid', held.slice(dir.length + 1)]);
  });
});
