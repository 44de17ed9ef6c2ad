import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, linkSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { uptime } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CliError } from '../errors.js';
import type { Logger } from '../logger.js';

/**
 * PGlite does not stop a second process from opening the same directory, so the engine holds `<dir>/engine.pid`.
 *
 * Every lock file is written whole under a private name and published with link(), which fails when the name exists:
 * nobody ever sees a lock without its pid. A lock is held while its pid runs; an empty or unreadable one is held too,
 * since nothing proves its owner gone, unless it was written before the system started (a power loss can leave the
 * file empty: it is not synced, which would cost a start several milliseconds). A lock whose pid is dead is removed only by the holder of a claim on that very
 * file (`engine.pid.claim-<inode>-<mtime>`, itself such a lock): two starters can never both remove a stale lock and
 * each publish its own, and a claim left by a starter that died is stale in turn.
 */

const LOCK = 'engine.pid';
/** Claims of claims: each level needs a starter to die within microseconds of the previous one. */
const MAX_DEPTH = 3;
/** How long a starter waits for another one's takeover in progress (it takes microseconds). */
const CLAIM_WAIT_MS = 2_000;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const code = (e: unknown): string | undefined => (e as NodeJS.ErrnoException).code;

/** A lock file as found: who holds it (null: empty, garbled or unreadable) and what makes this file unique. */
interface Found {
  pid: number | null;
  id: string;
  /** Written before the system started: no process of that time runs. */
  beforeBoot: boolean;
}

/** A second of margin for the clock's and uptime's rounding. */
const bootedAt = (): number => Date.now() - uptime() * 1000 - 1000;

/** null: the file does not exist. */
function inspect(file: string): Found | null {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    if (code(e) === 'ENOENT') return null;
    return { pid: null, id: '', beforeBoot: false };
  }
  try {
    const st = fstatSync(fd, { bigint: true });
    const text = readFileSync(fd, 'utf8');
    const pid = /^[1-9]\d{0,9}\n?$/.test(text) ? Number.parseInt(text, 10) : null;
    // The inode alone may be reused by the next lock; with its mtime and pid it names one file.
    return { pid, id: `${st.ino}-${st.mtimeNs}-${pid ?? ''}`, beforeBoot: Number(st.mtimeMs) < bootedAt() };
  } catch {
    return { pid: null, id: '', beforeBoot: false };
  } finally {
    closeSync(fd);
  }
}

/** Publishes a file holding this process's pid at `file`; false when the name is taken. */
function publish(dir: string, file: string): boolean {
  const tmp = join(dir, `${LOCK}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(tmp, 'wx');
  try {
    writeSync(fd, `${process.pid}\n`);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(tmp, file);
    return true;
  } catch (e) {
    if (code(e) === 'EEXIST') return false;
    throw e;
  } finally {
    unlinkSync(tmp);
  }
}

/** `held`: by a live process, by a lock naming none, or by another starter's takeover (in progress or abandoned). */
type Outcome = { held: false } | { held: 'pid'; pid: number } | { held: 'unknown' | 'takeover' };

/** Makes `file` this process's, taking it over when its owner is gone; otherwise says who holds it. */
async function take(dir: string, file: string, depth: number, onStale: (pid: number | null) => void): Promise<Outcome> {
  const deadline = Date.now() + CLAIM_WAIT_MS;
  for (;;) {
    if (publish(dir, file)) return { held: false };
    const found = inspect(file);
    if (found === null) continue;
    if (found.pid === null && !found.beforeBoot) return { held: 'unknown' };
    // This very process's pid: a lock left by an earlier engine of this process (an in-process restart).
    if (found.pid !== null && found.pid !== process.pid && isAlive(found.pid)) return { held: 'pid', pid: found.pid };
    if (depth >= MAX_DEPTH) return { held: 'takeover' };
    const claim = join(dir, `${LOCK}.claim-${found.id}`);
    const c = await take(dir, claim, depth + 1, () => {});
    if (c.held) {
      // Another starter is taking this lock over: wait for its outcome.
      if (c.held !== 'pid' || Date.now() > deadline) return { held: 'takeover' };
      await sleep(5);
      continue;
    }
    try {
      // Only the claim's holder removes this file, and its owner is dead: it is still the file judged stale,
      // unless an earlier claimant already replaced it.
      if (inspect(file)?.id === found.id) {
        onStale(found.pid);
        unlinkSync(file);
      }
    } finally {
      unlinkSync(claim);
    }
  }
}

const locked = (shownDir: string, by: string, hint?: string): CliError =>
  new CliError('data-dir-locked', `data directory ${shownDir} is in use by another engine${by}`, 1, hint === undefined ? {} : { hint });

/** Holds `<dir>/engine.pid` for this process; the returned function releases it. */
export async function acquireDataDirLock(dir: string, shownDir: string, logger: Logger): Promise<() => void> {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, LOCK);
  const stale = (pid: number | null) => logger.warn(`taking over the stale lock of data directory ${shownDir} (${
    pid === null ? 'written before the system started' : `pid ${pid} is not running`})`);
  const outcome = await take(dir, file, 0, stale);
  if (outcome.held === 'pid') throw locked(shownDir, ` (pid ${outcome.pid})`);
  if (outcome.held === 'unknown') {
    throw locked(shownDir, '', `${join(shownDir, LOCK)} names no process; if no engine uses this directory, remove the file`);
  }
  if (outcome.held === 'takeover') {
    throw locked(shownDir, '', `another engine is taking its stale lock over; if none is, remove ${join(shownDir, `${LOCK}.claim-*`)}`);
  }
  const mine = inspect(file)?.id;
  return () => {
    // Only our own file: after a forced takeover by hand, the new owner's lock stays.
    if (mine !== undefined && inspect(file)?.id === mine) unlinkSync(file);
  };
}
