/**
 * The rules of the files of engine-api.md §6.5 that are not shapes (shapes-others.ts): cron schedules, and the names
 * of the query collections that allow-list entries refer to.
 */
import { isObj } from './shapes-core.js';

/** The names of the query collections of a file's value (malformed entries are reported elsewhere). */
export function collectionNames(value: unknown): Set<string> {
  const items = Array.isArray(value) ? value : [];
  return new Set(items.filter(isObj).map((q) => q['name']).filter((n): n is string => typeof n === 'string'));
}

/** The cron syntax rule is the model's (engine and project tool agree on it). */
export { cronProblems } from '../../metadata/kinds/cron-triggers.js';
