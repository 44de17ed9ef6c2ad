import type { ApiError } from '../../../errors.js';
import { gqlError } from '../errors.js';
import type { NestedPaths } from './nested-insert.js';

/**
 * Where a nested insert's failure is reported (issue 30.1): its statement raises `nested:<level>:<ordinal>:<kind>`,
 * turned here into the incumbent's error and path.
 */

/** The path of object `ord` (1-based) of level `id`, as the incumbent names it. */
function objectPath(n: NestedPaths, id: number, ord: number): string {
  const l = n.levels[id];
  if (!l || l.parent < 0) return `${n.root}[${ord - 1}]`;
  const parent = objectPath(n, l.parent, l.po[ord - 1] ?? 1);
  return l.before ? `${parent}.${l.rel}.data` : `${parent}.${l.rel}.data[${l.index[ord - 1] ?? 0}]`;
}

/** The error a nested insert's statement raised (`nested:<level>:<ordinal>:<kind>`), or null for another message. */
export function nestedFailure(n: NestedPaths, message: string): ApiError | null {
  const m = /^nested:(\d+):(\d+):(\w+)$/.exec(message);
  if (!m) return null;
  const id = Number(m[1]);
  const ord = Number(m[2]);
  const kind = m[3] as string;
  const l = n.levels[id];
  if (!l) return null;
  if (kind === 'insert' || kind === 'update') {
    // The incumbent writes a level without relationships as one statement: its error names the whole list.
    const path = l.parent < 0 ? objectPath(n, id, ord) : l.leaf || l.before ? `${objectPath(n, l.parent, l.po[ord - 1] ?? 1)}.${l.rel}.data` : objectPath(n, id, ord);
    return gqlError('permission-error', path, `check constraint of an ${kind} permission has failed`);
  }
  if (kind === 'rows') {
    if (l.before) return gqlError('not-supported', `${objectPath(n, l.parent, l.po[ord - 1] ?? 1)}.${l.rel}`, `cannot proceed to insert object relation "${l.rel}" since insert to table "${l.table}" affects zero rows`);
    return gqlError('not-supported', objectPath(n, id, ord), `cannot proceed to insert array relations since insert to table "${l.table}" affects zero rows`);
  }
  return gqlError('unexpected', '$', `a row of table "${l.table}" written by the nested insert was changed before its permission check (by a trigger); nothing was written`);
}
