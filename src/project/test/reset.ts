import { existsSync, renameSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { acquireDataDirLock } from '../../db/lock-file.js';
import { silentLogger } from '../../logger.js';
import { startEphemeralEngine, type ProjectSources } from './ephemeral.js';

/**
 * `engine db reset` (issue 33 point 5): the embedded dev database in `dataDir` is dropped and built again from the
 * project's migrations, metadata and seeds. The directory's lock is taken first, so a running `engine serve` on it
 * makes the reset fail (its error, `data-dir-locked`) before anything is removed; the old directory is moved aside
 * under the lock and deleted, then the new one is filled by an engine that runs only for that.
 */
export async function resetDataDir(dataDir: string, shown: string, src: ProjectSources): Promise<{ removed: boolean }> {
  let removed = false;
  if (existsSync(dataDir)) {
    const release = await acquireDataDirLock(dataDir, shown, src.logger ?? silentLogger);
    const trash = `${dataDir}.reset-${randomBytes(4).toString('hex')}`;
    try {
      renameSync(dataDir, trash);
    } finally {
      // The lock file moved with the directory: releasing it may find nothing to remove.
      try {
        release();
      } catch {
        // nothing held any more
      }
    }
    rmSync(trash, { recursive: true, force: true });
    removed = true;
  }
  const engine = await startEphemeralEngine({ ...src, dataDir });
  await engine.close();
  return { removed };
}
