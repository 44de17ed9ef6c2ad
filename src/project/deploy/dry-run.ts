import type { BulkOperation, EngineClient } from '../../client/engine-client.js';
import { EngineRequestError } from '../../client/errors.js';
import { diffMetadata, summarize, type Change, type DiffSummary } from '../../metadata/diff.js';
import type { JsonObject } from '../../metadata/json.js';
import { widenedAccess, type Widening } from '../../metadata/access.js';
import { engineMetadata, rejectionOf } from '../metadata-dir/apply.js';
import type { BuildResult } from '../metadata-dir/build.js';
import { CREATE_STATE_TABLE, stepFailure, stepOperations, type Step } from '../migrations/migrations.js';

/**
 * `engine deploy --dry-run` (issue 37 item 5): the pending migrations and a dry-run replace_metadata of the project run
 * in ONE bulk (one transaction) on the engine, so the metadata is checked against the database as the migrations
 * leave it; a last statement that always fails then rolls the whole transaction back. Nothing is changed, whatever
 * happens: a failure before the last statement is the deploy's own failure, at its step.
 */

export type DeployStep = 'migrations' | 'metadata' | 'consistency';

/** A failure of the check, at the step the real deploy would have stopped at. */
export class DeployCheckFailure extends Error {
  constructor(readonly step: DeployStep, override readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

export interface DeployCheck {
  changes: Change[];
  summary: DiffSummary;
  /** The changes that widen access (issue 27.5), listed apart for the reviewer. */
  widened: Widening[];
  /** Whether the engine ran the check (false when there was nothing to apply at all). */
  checked: boolean;
}

// Fixed text: fails on purpose, so that the bulk (and everything before it) is rolled back.
const ROLLBACK = 'SELECT 1 / 0 AS engine_deploy_dry_run_rolls_back';

export async function checkDeploy(client: EngineClient, build: BuildResult, pending: Step[], stateTableExists: boolean, dir: string): Promise<DeployCheck> {
  const engine = await engineMetadata(client);
  const changes = diffMetadata(engine.document, build.document as JsonObject);
  const widened = changes.length === 0 ? [] : widenedAccess(engine.document, build.document as JsonObject);
  const result = { changes, widened, summary: summarize(changes), checked: false };
  if (pending.length === 0 && changes.length === 0) return result;
  const ops: BulkOperation[] = [];
  if (pending.length > 0 && !stateTableExists) ops.push({ type: 'run_sql', args: { sql: CREATE_STATE_TABLE } });
  const first = ops.length;
  for (const s of pending) ops.push({ type: 'bulk', args: stepOperations(s) });
  const metadataAt = ops.length;
  const args: Record<string, unknown> = { metadata: build.document, allow_inconsistent_metadata: false, dry_run: true };
  if (engine.resourceVersion !== null) args['resource_version'] = engine.resourceVersion;
  ops.push({ type: 'replace_metadata', args });
  ops.push({ type: 'run_sql', args: { sql: ROLLBACK } });
  try {
    await client.bulk(ops);
  } catch (e) {
    const at = e instanceof EngineRequestError && e.code === 'server-error' && e.engineError ? /^\$\.args\[(\d+)\](.*)$/.exec(e.engineError.path) : null;
    if (!at) throw e;
    const i = Number(at[1]);
    if (i === ops.length - 1) return { ...result, checked: true };
    const step = pending[i - first];
    if (i < metadataAt) throw new DeployCheckFailure('migrations', step ? stepFailure(step, e, dir) : e);
    // The path as a replace_metadata of its own would have it, so the rejection is located in the project's files.
    const engineError = { ...(e as EngineRequestError).engineError as NonNullable<EngineRequestError['engineError']>, path: `$${at[2] ?? ''}` };
    const own = new EngineRequestError('server-error', e instanceof Error ? e.message : String(e), { path: engineError.path }, { operation: 'replace_metadata', engineError });
    // No metadata change: what fails is the current metadata on the migrated database, the deploy's consistency check.
    throw new DeployCheckFailure(changes.length === 0 ? 'consistency' : 'metadata', await rejectionOf(client, build, own));
  }
  throw new Error('internal error: the dry run was not rolled back');
}
