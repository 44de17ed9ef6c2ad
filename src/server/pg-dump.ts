import { ApiError } from '../errors.js';
import { cleanDump, dumpDatabase, dumpOptions, DumpUnavailableError } from '../db/dump.js';
import type { Database } from '../db/database.js';

/**
 * `POST /v1alpha1/pg_dump` (the incumbent's endpoint, which its `migrate create --from-server` calls): body
 * `{"opts": [<pg_dump options>], "clean_output": <bool>}`, answer the dump as SQL text. Admin only; the options are
 * limited to selecting schemas and tables and leaving out owners and privileges (src/db/dump.ts).
 */
export async function pgDumpRequest(db: Database, body: unknown): Promise<string> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ApiError(400, 'parse-failed', '$', 'expected an object');
  const { opts, clean_output: clean } = body as Record<string, unknown>;
  let args: string[];
  try {
    args = dumpOptions(opts ?? []);
  } catch (e) {
    throw new ApiError(400, 'invalid-params', '$.opts', (e as Error).message);
  }
  if (clean !== undefined && typeof clean !== 'boolean') throw new ApiError(400, 'parse-failed', '$.clean_output', 'expected a boolean');
  try {
    const sql = await dumpDatabase(db, args);
    return clean ? cleanDump(sql) : sql;
  } catch (e) {
    if (e instanceof DumpUnavailableError) throw new ApiError(400, 'pg-dump-unavailable', '$', e.message);
    throw e;
  }
}
