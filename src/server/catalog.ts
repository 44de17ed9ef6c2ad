import { createHash } from 'node:crypto';
import type { Queryable } from '../db/database.js';
import { METADATA_DDL } from './metadata-store.js';

/** Serialises start-up across instances sharing one database (any constant works; this one spells "engine"). */
export const STARTUP_LOCK_KEY = 0x656e67696e65;
/** The channel insert_event_log notifies. */
export const EVENTS_CHANNEL = 'engine_events';
/** The channel create_scheduled_event notifies. */
export const SCHEDULED_CHANNEL = 'engine_scheduled_events';
/** The channel an insert into action_log notifies (at commit), waking the action workers. */
export const ACTIONS_CHANNEL = 'engine_actions';

/* The catalog of engine-api.md §3.2; every statement is idempotent so that any instance may run it. */
const CATALOG_DDL = `
CREATE SCHEMA IF NOT EXISTS engine_catalog;
${METADATA_DDL}CREATE TABLE IF NOT EXISTS engine_catalog.event_log (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  schema_name text NOT NULL, table_name text NOT NULL, trigger_name text NOT NULL,
  payload jsonb NOT NULL,
  delivered boolean NOT NULL DEFAULT false,
  error boolean NOT NULL DEFAULT false,
  tries integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  locked timestamptz NULL,
  next_retry_at timestamptz NULL,
  archived boolean NOT NULL DEFAULT false);
-- Beyond §3.2: the processor instance holding "locked" (engine-api.md §5.3.2; src/server/workers/instance.ts).
-- Added by ALTER so that data directories created before it open unchanged.
ALTER TABLE engine_catalog.event_log ADD COLUMN IF NOT EXISTS locked_by integer NULL;
-- Beyond §3.2: the processor claims pending events per trigger, oldest first.
CREATE INDEX IF NOT EXISTS event_log_pending_trigger_idx ON engine_catalog.event_log (trigger_name, created_at)
  WHERE NOT delivered AND NOT error AND NOT archived;
CREATE INDEX IF NOT EXISTS event_log_trigger_name_idx ON engine_catalog.event_log (trigger_name);
-- Not in the catalog of §3.2, but harmless: lets the archiving rule find live trigger names without a scan.
CREATE INDEX IF NOT EXISTS event_log_live_trigger_idx ON engine_catalog.event_log (trigger_name) WHERE NOT archived;
CREATE INDEX IF NOT EXISTS event_log_pending_idx ON engine_catalog.event_log (created_at)
  WHERE NOT delivered AND NOT error AND NOT archived;
CREATE TABLE IF NOT EXISTS engine_catalog.event_invocation_logs (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  event_id uuid NOT NULL REFERENCES engine_catalog.event_log (id) ON DELETE CASCADE,
  trigger_name text NOT NULL,
  status integer NULL,
  request jsonb NOT NULL, response jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS engine_catalog.action_log (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  action_name text NOT NULL,
  input_payload jsonb NOT NULL,
  request_headers jsonb NOT NULL,
  session_variables jsonb NOT NULL,
  response_payload jsonb NULL, errors jsonb NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  status text NOT NULL DEFAULT 'created'
    CHECK (status IN ('created','processing','completed','error')));
-- Beyond §3.2 (issue 20): cron events (trigger_name set, one row per scheduled time) and one-off scheduled
-- events (trigger_name NULL, their webhook, headers, retry_conf, payload and comment in "definition").
CREATE TABLE IF NOT EXISTS engine_catalog.scheduled_events (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  trigger_name text NULL,
  scheduled_time timestamptz NOT NULL,
  definition jsonb NULL,
  status text NOT NULL DEFAULT 'scheduled' CHECK (status IN ('scheduled','delivered','error','dead','archived')),
  tries integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  locked timestamptz NULL,
  locked_by integer NULL,
  next_retry_at timestamptz NULL);
-- Each scheduled time of a cron trigger exists once, whichever instance generated it.
CREATE UNIQUE INDEX IF NOT EXISTS scheduled_events_cron_time_idx ON engine_catalog.scheduled_events (trigger_name, scheduled_time)
  WHERE trigger_name IS NOT NULL;
CREATE INDEX IF NOT EXISTS scheduled_events_pending_idx ON engine_catalog.scheduled_events (scheduled_time) WHERE status = 'scheduled';
CREATE TABLE IF NOT EXISTS engine_catalog.scheduled_event_invocation_logs (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  event_id uuid NOT NULL REFERENCES engine_catalog.scheduled_events (id) ON DELETE CASCADE,
  trigger_name text NULL,
  status integer NULL,
  request jsonb NOT NULL, response jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now());
-- Issue 34: when an admin last asked for the event again (redeliver_scheduled_event); its tolerance counts from then,
-- so that a redelivered event is attempted, not found late. Added by ALTER so that older data directories open unchanged.
ALTER TABLE engine_catalog.scheduled_events ADD COLUMN IF NOT EXISTS redelivered_at timestamptz NULL;
-- Up to when each cron trigger's scheduled times have been written as events.
CREATE TABLE IF NOT EXISTS engine_catalog.cron_trigger_state (
  trigger_name text PRIMARY KEY,
  generated_until timestamptz NOT NULL);
-- Beyond §3.2: the worker instance processing the row (src/server/workers/instance.ts), and the mutation's text,
-- sent as request_query (engine-api.md §5.2.4). Added by ALTER so that older data directories open unchanged.
ALTER TABLE engine_catalog.action_log ADD COLUMN IF NOT EXISTS locked_by integer NULL;
ALTER TABLE engine_catalog.action_log ADD COLUMN IF NOT EXISTS request_query text NULL;
CREATE INDEX IF NOT EXISTS action_log_pending_idx ON engine_catalog.action_log (created_at)
  WHERE status IN ('created', 'processing');
-- Wakes the action workers at commit (one notification per transaction: PostgreSQL folds identical ones).
CREATE OR REPLACE FUNCTION engine_catalog.wake_action_workers() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM pg_notify('engine_actions', '');
  RETURN NULL;
END
$fn$;
DO $do$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = 'action_log_wake'
                   AND tgrelid = 'engine_catalog.action_log'::regclass) THEN
    CREATE TRIGGER action_log_wake AFTER INSERT ON engine_catalog.action_log
      FOR EACH STATEMENT EXECUTE FUNCTION engine_catalog.wake_action_workers();
  END IF;
END $do$;
-- API limits' rate limit (issue 31.6), shared by every engine on the database: requests per key (a digest of the
-- role and its unique parameters) per minute since the epoch, by the database's clock.
CREATE TABLE IF NOT EXISTS engine_catalog.rate_limits (
  key text NOT NULL,
  minute bigint NOT NULL,
  count integer NOT NULL,
  PRIMARY KEY (key, minute));
CREATE TABLE IF NOT EXISTS engine_catalog.schema_migrations (
  version bigint PRIMARY KEY,
  name text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now());
CREATE OR REPLACE FUNCTION engine_catalog.insert_event_log(
  schema_name text, table_name text, trigger_name text, op text, data jsonb) RETURNS uuid
LANGUAGE plpgsql AS $fn$
DECLARE
  vars text := current_setting('engine.session_variables', true);
  new_id uuid;
BEGIN
  INSERT INTO engine_catalog.event_log (schema_name, table_name, trigger_name, payload)
  VALUES (schema_name, table_name, trigger_name, jsonb_build_object(
    'op', op, 'data', data,
    'session_variables', CASE WHEN vars IS NULL OR vars = '' THEN NULL ELSE vars::jsonb END))
  RETURNING id INTO new_id;
  -- Wakes the processors at commit (one notification per transaction: PostgreSQL folds identical ones).
  PERFORM pg_notify('engine_events', '');
  RETURN new_id;
END
$fn$;
-- Raises with the SQLSTATE given: a GraphQL mutation statement aborts itself, and its transaction, when a permission
-- check fails or it was planned on older metadata, so that COMMIT goes out in the same round trip (graphql-api.md §7.3).
CREATE OR REPLACE FUNCTION engine_catalog.raise_error(code text, message text) RETURNS text LANGUAGE plpgsql AS $fn$
BEGIN
  RAISE EXCEPTION USING ERRCODE = code, MESSAGE = message;
END
$fn$;
`;

/**
 * The catalog's revision: a digest of its DDL, kept as the comment of schema engine_catalog once the DDL has run. A
 * database at this revision skips the DDL (a third of a restart of the embedded engine); any change to the DDL runs
 * it once more everywhere.
 */
export const REVISION = `engine catalog ${createHash('sha256').update(CATALOG_DDL).digest('hex').slice(0, 16)}`;

/** COMMENT takes no parameter: the revision is passed as a setting of the transaction and quoted by format(). */
const MARK_REVISION = `DO $mark$ BEGIN
  EXECUTE format('COMMENT ON SCHEMA engine_catalog IS %L', current_setting('engine.catalog_revision'));
END $mark$;`;

/**
 * The incumbent's catalog set-up creates pgcrypto in schema public, and projects' migrations call
 * `public.gen_random_uuid()` (issue 29). IF NOT EXISTS: one installed in another schema is left there.
 */
const PGCRYPTO = 'CREATE EXTENSION IF NOT EXISTS pgcrypto SCHEMA public';

/** What a data directory set up by ensureCatalog holds: the key of the embedded engine's template (pglite-template.ts). */
export const SETUP_KEY = `${REVISION}; ${PGCRYPTO}`;

/**
 * Creates the catalog if missing or older than this engine's, and pgcrypto if the database has none; callers hold
 * STARTUP_LOCK_KEY so that instances do not race. One statement when both are there. `warn` hears, once, that
 * pgcrypto could not be created (no right to, or not installed on the server): the engine goes on without it.
 */
export async function ensureCatalog(tx: Queryable, warn: (message: string) => void = () => {}): Promise<void> {
  const rows = await tx.query<{ current: boolean; pgcrypto: boolean }>(
    `SELECT set_config('engine.catalog_revision', $1, true) IS NOT NULL AND EXISTS (
       SELECT 1 FROM pg_namespace n JOIN pg_description d ON d.objoid = n.oid AND d.classoid = 'pg_namespace'::regclass AND d.objsubid = 0
       WHERE n.nspname = 'engine_catalog' AND d.description = $1) AS current,
     EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pgcrypto') AS pgcrypto`,
    [REVISION],
  );
  if (!rows[0]?.pgcrypto) await createPgcrypto(tx, warn);
  if (rows[0]?.current) return;
  await tx.runScript(`${CATALOG_DDL}\n${MARK_REVISION}`);
}

/** In a savepoint: a refusal must not abort the start-up transaction. */
async function createPgcrypto(tx: Queryable, warn: (message: string) => void): Promise<void> {
  await tx.query('SAVEPOINT engine_pgcrypto');
  try {
    await tx.runScript(PGCRYPTO);
    await tx.query('RELEASE SAVEPOINT engine_pgcrypto');
  } catch (e) {
    await tx.query('ROLLBACK TO SAVEPOINT engine_pgcrypto');
    const reason = e instanceof Error ? e.message : String(e);
    warn(`could not create extension pgcrypto in schema public (${reason}); migrations that call public.gen_random_uuid() ` +
      'or other pgcrypto functions will fail. Have the database owner run: CREATE EXTENSION pgcrypto SCHEMA public');
  }
}

/** The stored resource_version as column `v`: fixed text, also sent in the round trip that begins a GraphQL transaction. */
export const VERSION_SQL = 'SELECT resource_version AS v FROM engine_catalog.metadata_globals WHERE id = 1';
/** The stored resource_version as a scalar expression, for statements that check it themselves. */
export const STORED_VERSION = '(SELECT resource_version FROM engine_catalog.metadata_globals WHERE id = 1)';

/** SQLSTATEs of engine_catalog.raise_error (class EN is no standard class): a failed permission check, a stale plan. */
export const CHECK_FAILED_STATE = 'EN001';
export const STALE_PLAN_STATE = 'EN002';

/** The stored resource_version; with `lock`, the metadata row (metadata-store.ts) is locked until the transaction ends. */
export async function readVersion(tx: Queryable, lock = false): Promise<number> {
  const rows = await tx.query<{ v: number }>(`${VERSION_SQL}${lock ? ' FOR UPDATE' : ''}`);
  return Number(rows[0]?.v ?? 0);
}
