import { resolve } from 'node:path';
import { CliError } from '../../../errors.js';
import type { PoolSettings } from '../../../db/postgres-config.js';
import type { Environment } from '../../config/environment.js';

/**
 * `engine serve` in a config version 3 project: the pool written in `databases/databases.yaml` fills what no flag or
 * variable set (flags and variables win, as everywhere). A value that is no pool setting stops the start, as a bad
 * variable does.
 */
export async function withMetadataPool<T extends { pool?: PoolSettings }>(settings: T, env: Environment, cwd = process.cwd()): Promise<T> {
  if (!env.projectDir) return settings;
  // The metadata's readers (two YAML parsers) load for a project only: a bare `engine serve` starts without them.
  const [{ isLayoutV3 }, { metadataPool }] = await Promise.all([import('./read.js'), import('./pool-settings.js')]);
  const dir = resolve(env.projectDir, env.configValue('metadata_directory') ?? 'metadata');
  if (!isLayoutV3(dir, cwd)) return settings;
  const found = metadataPool(dir, cwd, (file, key, reason) => {
    throw new CliError('config-invalid', `invalid value for "${key}" in ${file}: ${reason}`, 1);
  });
  if (!found) return settings;
  return { ...settings, pool: { ...found.pool, ...settings.pool } };
}
