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

/** The five fields of a cron schedule with their ranges; day of week 0–7 (0 and 7 are Sunday, as in cron). */
const CRON_FIELDS: [string, number, number][] = [
  ['minute', 0, 59], ['hour', 0, 23], ['day-of-month', 1, 31], ['month', 1, 12], ['day-of-week', 0, 7],
];
const CRON_ITEM = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/;

function cronFieldOk(text: string, min: number, max: number): boolean {
  return text.split(',').every((item) => {
    const m = CRON_ITEM.exec(item);
    if (!m) return false;
    if (m[4] !== undefined && Number(m[4]) < 1) return false;
    if (m[1] === '*') return true;
    const from = Number(m[2]);
    const to = m[3] === undefined ? from : Number(m[3]);
    return from >= min && to <= max && from <= to;
  });
}

/**
 * The problems of a cron schedule: five whitespace-separated fields of numbers, `*`, ranges `a-b`, lists `a,b` and
 * steps `/n` (n ≥ 1), each within its range. `<f>` of `field "<f>" is out of range` is the field's name
 * (`minute`, …, `day-of-week`); a field that is not of that syntax is reported the same way, one message per field.
 */
export function cronProblems(schedule: string): string[] {
  const fields = schedule.trim().split(/\s+/).filter((f) => f !== '');
  if (fields.length !== CRON_FIELDS.length) {
    return [`invalid cron schedule "${schedule}": expected 5 fields (minute hour day-of-month month day-of-week)`];
  }
  return CRON_FIELDS.flatMap(([name, min, max], i) =>
    cronFieldOk(fields[i] as string, min, max) ? [] : [`invalid cron schedule "${schedule}": field "${name}" is out of range`]);
}
