import { join } from 'node:path';
import type { PoolSettings } from '../../../db/postgres-config.js';
import { shownPath } from '../../config/environment.js';
import { Problems } from '../../problems.js';
import { readProjectFile } from '../../project-file.js';
import { isObj } from '../../validate/core.js';
import { parseYaml } from '../../yaml-source.js';

/**
 * The pool of the database entry of `databases/databases.yaml` (the incumbent's `configuration.connection_info`):
 * `engine serve` in a version 3 project takes it as the pool of `--database-url` where no flag or variable sets one
 * (issue 29, the incumbent's projects keep their pool). Seconds as the incumbent writes them.
 */

/** `pool_settings` keys engine honours → the PoolSettings field; `retries` and `total_max_connections` it has no use for. */
export const POOL_SETTING_KEYS: Readonly<Record<string, 'max' | 'idleTimeoutMs' | 'acquireTimeoutMs' | 'lifetimeMs'>> = {
  max_connections: 'max', idle_timeout: 'idleTimeoutMs', pool_timeout: 'acquireTimeoutMs', connection_lifetime: 'lifetimeMs',
};

/** `connection_info` keys engine honours besides `database_url`. */
export const HONOURED_CONNECTION_KEYS = ['pool_settings', 'use_prepared_statements'];

/** Why a pool setting's value is not one, or null. */
export function poolSettingReason(key: string, v: unknown): string | null {
  if (key === 'max_connections') return typeof v === 'number' && Number.isSafeInteger(v) && v >= 1 ? null : 'expected a positive integer';
  if (key in POOL_SETTING_KEYS) return typeof v === 'number' && Number.isFinite(v) && v >= 0 && v * 1000 <= 2_147_483_647 ? null : 'expected a number of seconds ≥ 0';
  return null;
}

/** A `connection_info` mapping's pool; `bad` receives each value that is not one (key as `pool_settings.<k>`). */
export function poolOfConnectionInfo(info: Record<string, unknown>, bad: (key: string, reason: string) => void): PoolSettings {
  const pool: PoolSettings = {};
  const ps = info['pool_settings'];
  if (isObj(ps)) {
    for (const [k, field] of Object.entries(POOL_SETTING_KEYS)) {
      const v = ps[k];
      if (v === undefined || v === null) continue;
      const reason = poolSettingReason(k, v);
      if (reason !== null) bad(`pool_settings.${k}`, reason);
      else pool[field] = field === 'max' ? (v as number) : Math.round((v as number) * 1000);
    }
  }
  const prepared = info['use_prepared_statements'];
  if (prepared === false) pool.preparedStatements = false;
  else if (prepared !== undefined && prepared !== null && prepared !== true) bad('use_prepared_statements', 'expected true or false');
  return pool;
}

/**
 * The pool written in `<metadataDir>/databases/databases.yaml` for its first database, with the file as shown; null
 * when there is none (no such file, or one that does not parse: metadata validation reports that).
 */
export function metadataPool(metadataDir: string, cwd: string, bad: (file: string, key: string, reason: string) => void): { pool: PoolSettings; file: string } | null {
  const path = join(metadataDir, 'databases', 'databases.yaml');
  const file = shownPath(path, cwd);
  let text: string | undefined;
  try {
    text = readProjectFile(path, { cwd });
  } catch {
    return null;
  }
  if (text === undefined) return null;
  const src = parseYaml(file, text, new Problems());
  const value = src?.value;
  const first: unknown = Array.isArray(value) ? (value as unknown[])[0] : undefined;
  const conf = isObj(first) ? first['configuration'] : undefined;
  const info = isObj(conf) ? conf['connection_info'] : undefined;
  if (!isObj(info)) return null;
  const pool = poolOfConnectionInfo(info, (key, reason) => bad(file, key, reason));
  return Object.keys(pool).length > 0 ? { pool, file } : null;
}
