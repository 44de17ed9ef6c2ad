import type { Queryable } from '../../db/database.js';
import type { Json } from '../../metadata/json.js';
import { LIVE_INSTANCES } from './instance.js';

/** The action_log statements of the asynchronous action worker (engine-api.md §5.2.4). */

export interface ClaimedCall {
  id: string;
  action_name: string;
  /** The stored `input` as PostgreSQL writes jsonb (the digits as stored). */
  input: string;
  request_headers: { name: string; value: string }[];
  session_variables: Record<string, string>;
  request_query: string | null;
}

export type CallOutcome = { id: string; ok: true; payload: Json } | { id: string; ok: false; errors: Json };

/**
 * A row is free when it is `created`, or `processing` under an instance that holds no advisory lock: a crashed (or
 * stopped) one. A live instance keeps its rows however slow their handlers are.
 */
const FREE = `("l"."status" = 'created' OR ("l"."status" = 'processing'
  AND ("l"."locked_by" IS NULL OR "l"."locked_by" NOT IN (${LIVE_INSTANCES}))))`;

/**
 * Marks up to `limit` free calls of the given actions `processing` for instance `me`, oldest first, in one
 * statement; FOR UPDATE SKIP LOCKED, so that concurrent instances never claim the same row.
 */
export async function claimCalls(db: Queryable, me: number, actions: string[], limit: number): Promise<ClaimedCall[]> {
  if (actions.length === 0 || limit <= 0) return [];
  const rows = await db.query<ClaimedCall & Record<string, unknown>>(
    `WITH c AS (
       SELECT "l"."id" FROM "engine_catalog"."action_log" AS "l"
        WHERE "l"."status" IN ('created', 'processing') AND ${FREE} AND "l"."action_name" = ANY($1::text[])
        ORDER BY "l"."created_at" LIMIT $2 FOR UPDATE SKIP LOCKED)
     UPDATE "engine_catalog"."action_log" AS "l" SET "status" = 'processing', "locked_by" = $3 FROM c WHERE "l"."id" = c."id"
     RETURNING "l"."id"::text AS "id", "l"."action_name", "l"."input_payload"::text AS "input", "l"."request_headers",
       "l"."session_variables", "l"."request_query", "l"."created_at"`,
    [actions, limit, me],
  );
  return rows.sort((a, b) => Number(a['created_at']) - Number(b['created_at']) || (a.id < b.id ? -1 : 1));
}

/** Writes the outcome of calls, only where this instance still holds the row (else its new owner decides). */
export async function recordCalls(db: Queryable, me: number, outcomes: CallOutcome[]): Promise<void> {
  if (outcomes.length === 0) return;
  const rows = outcomes.map((o) => (o.ok ? { id: o.id, payload: o.payload, errors: null, status: 'completed' } : { id: o.id, payload: null, errors: o.errors, status: 'error' }));
  await db.query(
    `UPDATE "engine_catalog"."action_log" AS "l" SET "status" = x."status", "response_payload" = x."payload",
        "errors" = x."errors", "locked_by" = NULL
       FROM jsonb_to_recordset($1::jsonb) AS x("id" uuid, "payload" jsonb, "errors" jsonb, "status" text)
      WHERE "l"."id" = x."id" AND "l"."status" = 'processing' AND "l"."locked_by" = $2`,
    [JSON.stringify(rows), me],
  );
}

/** Gives back calls this instance claimed but did not make (a stop): `created` again, for any instance. */
export async function releaseCalls(db: Queryable, me: number, ids?: string[]): Promise<void> {
  await db.query(
    `UPDATE "engine_catalog"."action_log" SET "status" = 'created', "locked_by" = NULL
      WHERE "status" = 'processing' AND "locked_by" = $1 AND ($2::uuid[] IS NULL OR "id" = ANY($2::uuid[]))`,
    [me, ids ?? null],
  );
}
