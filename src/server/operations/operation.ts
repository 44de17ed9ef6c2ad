import type { Json } from '../../metadata/json.js';
import type { OpContext } from '../context.js';

/** One operation of the metadata API: how to read its args and what it does. */
export interface Operation<A = unknown> {
  /** Writing operations take the metadata lock and are subject to the consistency rules (column W, §4.0). */
  write: boolean;
  /** A reading operation that still takes the metadata lock, because it swaps in a rebuilt shared cache. */
  locks?: boolean;
  parse(args: Json, path: string): A;
  run(ctx: OpContext, args: A): Promise<Json>;
}

export const op = <A>(o: Operation<A>): Operation<unknown> => o as Operation<unknown>;

export const SUCCESS: Json = { message: 'success' };
