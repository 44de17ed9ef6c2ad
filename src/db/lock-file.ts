import { mkdirSync, openSync, readFileSync, rmSync, writeFileSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { CliError } from '../errors.js';
import type { Logger } from '../logger.js';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * PGlite does not stop a second process from opening the same directory, so the engine holds
 * `<dir>/engine.pid`. A lock whose pid is dead is stale and taken over with a warning.
 */
export function acquireDataDirLock(dir: string, shownDir: string, logger: Logger): () => void {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'engine.pid');
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeFileSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return () => {
        try {
          if (readFileSync(file, 'utf8').trim() === String(process.pid)) rmSync(file, { force: true });
        } catch {
          // already gone
        }
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const pid = Number.parseInt(readFileSync(file, 'utf8').trim(), 10);
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid)) {
      throw new CliError('data-dir-locked', `data directory ${shownDir} is in use by another engine (pid ${pid})`, 1);
    }
    logger.warn(`taking over the stale lock of data directory ${shownDir} (pid ${Number.isNaN(pid) ? 'unknown' : pid} is not running)`);
    rmSync(file, { force: true });
  }
  throw new CliError('data-dir-locked', `data directory ${shownDir} is in use by another engine`, 1);
}
