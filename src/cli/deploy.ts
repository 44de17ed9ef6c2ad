import type { Command } from 'commander';
import { CliError } from '../errors.js';
import { ALLOW_UNKNOWN_KEYS, allowUnknownKeys, type CommandRunner } from './globals.js';
import { context } from './context.js';

/**
 * `engine deploy`: `migrate apply`, then `metadata apply`, then a consistency check — one command for CI (issue 19
 * item 5). Each step is announced; the first failure stops the run with the exit status of its step, so a CI log
 * says which one failed without reading it: 3 migrations, 4 metadata, 5 inconsistent metadata (1 and 64 keep their
 * meaning of cli.md §3.5 for what fails before any step: configuration, usage; 2 means "differences").
 */
export const DEPLOY_EXIT = { migrations: 3, metadata: 4, consistency: 5 } as const;

type StepName = keyof typeof DEPLOY_EXIT;
interface StepReport {
  step: StepName;
  status: 'done' | 'failed' | 'skipped';
  [k: string]: unknown;
}

export function registerDeploy(program: Command, run: CommandRunner): void {
  const deploy = program.command('deploy').description('apply migrations, then metadata, then check consistency (for CI)')
    .option('--dry-run', 'show the migrations that would run and the metadata plan, checked by the engine; change nothing')
    .option(...ALLOW_UNKNOWN_KEYS);
  run(deploy, async (g, out) => {
    const dryRun = !!deploy.opts<{ dryRun?: boolean }>().dryRun;
    const { config, client } = await context(g, out, { project: true, version2: true });
    const steps: StepReport[] = [];
    const failed = (step: StepName, e: unknown, extra: Record<string, unknown> = {}): number => {
      steps.push({ step, status: 'failed', ...extra });
      for (const s of Object.keys(DEPLOY_EXIT) as StepName[]) if (!steps.some((r) => r.step === s)) steps.push({ step: s, status: 'skipped' });
      const err = e instanceof Error ? e : new Error(String(e));
      Object.assign(err, { extra: { ...((err as { extra?: object }).extra ?? {}), steps } });
      out.fail(err);
      out.logger.info(`Deploy stopped at step ${Object.keys(DEPLOY_EXIT).indexOf(step) + 1} of 3 (${step}).`);
      return DEPLOY_EXIT[step];
    };

    // The metadata is built before anything runs: invalid files must not leave the migrations applied alone.
    const { buildOrFail, rejected } = await import('./metadata.js');
    let built;
    try {
      built = await buildOrFail(out, config.metadataDirectory, config.version, allowUnknownKeys(deploy));
    } catch (e) {
      return failed('metadata', e);
    }

    if (dryRun) return (await import('./deploy-dry-run.js')).deployDryRun(out, client, built, config.migrationsDirectory, failed);

    out.logger.info('Step 1/3: migrate apply');
    const m = await import('../project/migrations/migrations.js');
    const { unwrapTransactions } = await import('../project/migrations/sql.js');
    const dir = config.migrationsDirectory;
    const applied: string[] = [];
    try {
      const local = m.readMigrations(dir);
      for (const w of local.warnings) out.warn(w.code, w.message);
      const state = await m.readState(client);
      const pending = await unwrapTransactions(m.plan(local.migrations, state.applied, { kind: 'up', count: null }, dir));
      if (pending.length > 0 && !state.tableExists) await client.runSql(m.CREATE_STATE_TABLE);
      for (const s of pending) {
        await m.runStep(client, s, dir);
        applied.push(`${s.migration.version}_${s.migration.name}`);
        out.logger.info(`  Applied ${s.migration.version}_${s.migration.name} (up).`);
      }
      out.logger.info(applied.length === 0 ? '  Nothing to apply; the database is up to date.' : `  Applied ${applied.length} migration(s).`);
    } catch (e) {
      return failed('migrations', e, { applied });
    }
    steps.push({ step: 'migrations', status: 'done', applied });

    out.logger.info('Step 2/3: metadata apply');
    const { applyMetadata, ApplyRejectedError } = await import('../project/metadata-dir/apply.js');
    let summary, widened;
    try {
      const r = await applyMetadata(client, built, { dryRun: false, allowInconsistent: false, allowEmpty: false });
      summary = r.summary;
      widened = r.widened;
      out.logger.info(r.applied ? `  Metadata applied: ${r.summary.added} added, ${r.summary.removed} removed, ${r.summary.changed} changed.` : '  Metadata is up to date; nothing to apply.');
      const { renderWidenedText } = await import('../metadata/access.js');
      for (const line of renderWidenedText(r.widened).slice(1)) out.logger.info(`  ${line}`);
    } catch (e) {
      if (e instanceof ApplyRejectedError && out.mode === 'text') {
        rejected(out, e, built);
        steps.push({ step: 'metadata', status: 'failed' }, { step: 'consistency', status: 'skipped' });
        out.logger.info('Deploy stopped at step 2 of 3 (metadata).');
        return DEPLOY_EXIT.metadata;
      }
      return failed('metadata', e);
    }
    steps.push({ step: 'metadata', status: 'done', summary, access_widened: widened });

    out.logger.info('Step 3/3: consistency check');
    try {
      const { showInconsistency } = await import('../project/validate/inconsistency.js');
      const objects = (await client.getInconsistentMetadata()).inconsistent_objects.map(showInconsistency);
      if (objects.length > 0) {
        for (const o of objects) out.warn('metadata-inconsistent', `inconsistent ${o.kind} ${o.name}: ${o.reason}`);
        throw Object.assign(new CliError('metadata-inconsistent', `metadata is inconsistent: ${objects.length} object(s)`, 1, {
          hint: "run 'engine metadata inconsistency list' to see them",
        }), { extra: { inconsistent_objects: objects } });
      }
      out.logger.info('  Metadata is consistent.');
    } catch (e) {
      return failed('consistency', e);
    }
    steps.push({ step: 'consistency', status: 'done' });
    out.logger.info('Deploy finished.');
    out.success({ steps });
    return 0;
  });
}
