import type { EngineClient } from '../client/engine-client.js';
import type { BuildResult } from '../project/metadata-dir/build.js';
import type { Output } from './output.js';

type Built = BuildResult & { document: NonNullable<BuildResult['document']> };
type Step = 'migrations' | 'metadata' | 'consistency';

/**
 * `engine deploy --dry-run` (issue 37 item 5): the steps of deploy, said as what they would do, with the engine checking
 * the migrations and the metadata plan together (src/project/deploy/dry-run.ts); a failure exits as deploy's step would.
 */
export async function deployDryRun(out: Output, client: EngineClient, built: Built, dir: string,
  failed: (step: Step, e: unknown, extra?: Record<string, unknown>) => number): Promise<number> {
  const m = await import('../project/migrations/migrations.js');
  const { unwrapTransactions } = await import('../project/migrations/sql.js');
  const { checkDeploy, DeployCheckFailure } = await import('../project/deploy/dry-run.js');
  const { ApplyRejectedError } = await import('../project/metadata-dir/apply.js');
  const { renderDiffText, renderDiffJson } = await import('../metadata/diff.js');
  const { renderWidenedText } = await import('../metadata/access.js');
  const { rejected } = await import('./metadata.js');

  out.logger.info('Step 1/3: migrate apply (dry run)');
  let pending;
  let tableExists;
  try {
    const local = m.readMigrations(dir);
    for (const w of local.warnings) out.warn(w.code, w.message);
    const state = await m.readState(client);
    tableExists = state.tableExists;
    pending = await unwrapTransactions(m.plan(local.migrations, state.applied, { kind: 'up', count: null }, dir));
  } catch (e) {
    return failed('migrations', e);
  }
  const names = pending.map((s) => `${s.migration.version}_${s.migration.name}`);
  for (const n of names) out.logger.info(`  Would apply ${n} (up).`);
  out.logger.info(names.length === 0 ? '  Nothing to apply; the database is up to date.' : `  ${names.length} migration(s) would be applied.`);

  let check;
  try {
    check = await out.spinning('Checking on the engine…', () => checkDeploy(client, built, pending, tableExists, dir));
  } catch (e) {
    if (!(e instanceof DeployCheckFailure)) return failed('migrations', e);
    if (e.step !== 'migrations') out.logger.info(e.step === 'metadata' ? 'Step 2/3: metadata apply (dry run)' : 'Step 3/3: consistency check (dry run)');
    if (e.cause instanceof ApplyRejectedError && out.mode === 'text') {
      rejected(out, e.cause, built);
      out.logger.info(`Deploy stopped at step ${e.step === 'metadata' ? 2 : 3} of 3 (${e.step}); nothing was changed.`);
      return e.step === 'metadata' ? 4 : 5;
    }
    return failed(e.step, e.cause, e.step === 'migrations' ? { applied: [] } : {});
  }
  out.logger.info('Step 2/3: metadata apply (dry run)');
  if (out.mode === 'text') out.diffData([renderDiffText(check.changes), ...renderWidenedText(check.widened)].join('\n'));
  out.logger.info('Step 3/3: consistency check (dry run)');
  out.logger.info(check.checked ? "  The engine checked the migrations and the plan together: 'engine deploy' will apply them." : '  Nothing to apply.');
  out.logger.info('Dry run: nothing was changed.');
  const origin = (kind: string, name: string) => built.origins.get(`${kind}:${name}`);
  out.success({
    dry_run: true, checked: check.checked,
    steps: [
      { step: 'migrations', status: 'checked', pending: names },
      { step: 'metadata', status: 'checked', summary: check.summary, access_widened: check.widened, changes: out.mode === 'json' ? renderDiffJson(check.changes, origin) : [] },
      { step: 'consistency', status: 'checked' },
    ],
  });
  return 0;
}
