import type { Command } from 'commander';
import type { CommandRunner, GlobalFlags } from './globals.js';
import type { Output } from './output.js';
import { CliError } from '../errors.js';
import { engineClient, projectConfig } from './context.js';

/**
 * `engine migrate config` and its alias `engine config upgrade` (cli.md §5.16): one action, two commands. The
 * project work is in src/project/upgrade/upgrade.ts; this file reads the configuration, prints and maps the result.
 */
/** `--to`: the config version to reach (default 2, as cli.md §5.16). */
function target(to: string | undefined): 2 | 3 {
  if (to === undefined || to === '2') return 2;
  if (to === '3') return 3;
  throw new CliError('invalid-flag-value', `invalid value "${to}" for --to: expected 2 or 3`, 64);
}

export async function upgradeAction(g: GlobalFlags, out: Output, dryRun: boolean, toFlag?: string, renameSessionVariables = false): Promise<number | void> {
  const to = target(toFlag);
  const config = await projectConfig(g, out, { project: true, offline: true });
  const { readConfigDocument, scalarText, valueNode, shownPath } = await import('../project/config/environment.js');
  const configFile = config.configFile as string;
  const doc = readConfigDocument(configFile);
  // The file is what is upgraded: its own `version` decides (absent or 1: continue).
  const current = scalarText(valueNode(doc.doc, doc.root, 'version'));
  if (current === '3' || current === String(to)) {
    out.logger.info(`Project is already at config version ${current}.`);
    return void out.success({ already: true });
  }
  if (current === '2') return upgradeToV3(out, dryRun, { projectDir: config.projectDir as string, configFile, metadataDir: config.metadataDirectory });
  const u = await import('../project/upgrade/upgrade.js');
  const plan = u.planUpgrade({
    projectDir: config.projectDir as string, configFile, migrationsDir: config.migrationsDirectory, metadataDir: config.metadataDirectory, to,
    envFile: config.envFile, renameSessionVariables,
  }, (w) => out.warn(w.code, w.message));
  const { upgradeWarnings } = await import('../project/upgrade/steps.js');
  const warnings = upgradeWarnings(plan.migrations, shownPath(plan.report), shownPath(config.metadataDirectory));
  if (dryRun) {
    for (const w of warnings) out.warn(w.code, w.message);
    const steps = u.describePlan(plan);
    if (out.mode === 'text') out.data(steps.join('\n'));
    out.logger.info('Dry run: nothing was changed.');
    return void out.success({ dry_run: true, steps });
  }
  const result = await u.runUpgrade(plan, {
    backedUp: (backup) => out.logger.info(`Backed up config.yaml and ${shownPath(config.migrationsDirectory)}/ to ${shownPath(backup)}/`),
    engineMetadata: async () => {
      // Settings of the engine connection are checked only now that the engine is needed (warnings were shown).
      const { loadConfig } = await import('../project/config/config.js');
      const online = loadConfig({
        project: g.project, envfile: g.envfile, endpoint: g.endpoint, adminSecret: g.adminSecret, timeout: g.timeout,
        logLevel: g.logLevel, requireProject: true,
      });
      return (await (await engineClient(online, out, g)).exportMetadata()).metadata;
    },
  });
  const report = shownPath(result.report);
  for (const w of warnings) out.warn(w.code, w.message);
  // The incumbent's names, renamed: each listed here and in the report.
  for (const r of result.renamed.environment) out.logger.info(`  renamed ${r.from} → ${r.to} (${r.file}:${r.line})`);
  for (const r of result.renamed.session_variables) out.logger.info(`  renamed ${r.from} → ${r.to} (${r.table} ${r.path})`);
  out.logger.info(`Project upgraded to config version ${to}.`);
  out.success({
    backup: shownPath(result.backup), report, converted: result.converted, not_converted: result.notConverted,
    moved: result.moved, removed: result.removed, left_behind: result.leftBehind, renamed: result.renamed,
  });
}

/** Version 2 → 3: the metadata directory rewritten in the `databases/` layout (src/project/upgrade/to-v3.ts). */
async function upgradeToV3(out: Output, dryRun: boolean, input: import('../project/upgrade/to-v3.js').UpgradeV3Input): Promise<void> {
  const { shownPath } = await import('../project/config/environment.js');
  const u = await import('../project/upgrade/to-v3.js');
  let plan;
  try {
    plan = u.planUpgradeV3(input);
  } catch (e) {
    // Every problem of the metadata, as `metadata validate` shows them (JSON mode lists them in `problems`).
    const problems = (e as { extra?: { problems?: import('../project/problems.js').Problem[] } }).extra?.problems ?? [];
    if (out.mode === 'text') for (const p of problems) if (p.severity === 'error') out.logger.error(`${p.file ?? ''}:${p.line ?? 1}:${p.column ?? 1}: ${p.message}`);
    throw e;
  }
  const md = shownPath(input.metadataDir);
  const warnings = () => {
    for (const w of plan.warnings) out.warn(w.code, `${w.file ? `${w.file}:${w.line ?? 1}:${w.column ?? 1}: ` : ''}${w.message} (left out of the upgraded files)`);
    for (const d of plan.droppedComments) out.warn('comments-dropped', `${md}/${d.file}: ${d.lines} comment line(s) had no object left to belong to`);
  };
  if (dryRun) {
    warnings();
    const steps = u.describeUpgradeV3(plan);
    if (out.mode === 'text') out.data(steps.join('\n'));
    out.logger.info('Dry run: nothing was changed.');
    return void out.success({ dry_run: true, steps });
  }
  const result = u.runUpgradeV3(plan, (backup) => out.logger.info(`Backed up ${shownPath(input.configFile)} and ${md}/ to ${shownPath(backup)}/`));
  warnings();
  const { created, updated, removed } = result.report;
  for (const f of created) out.logger.info(`  created ${md}/${f}`);
  for (const f of updated) out.logger.info(`  updated ${md}/${f}`);
  for (const f of removed) out.logger.info(`  removed ${md}/${f}`);
  out.logger.info('Project upgraded to config version 3.');
  out.success({ backup: shownPath(result.backup), created, updated, removed });
}

const RENAME_HELP = 'also rename X-Hasura-… session variables to X-Engine-… in permissions (both prefixes work as they are)';
const TO_HELP = 'the config version to reach: 2, or 3 (metadata/databases/ with one file per table)';

/** `engine config upgrade`: the top-level alias of `engine migrate config`. */
export function registerConfigUpgrade(program: Command, run: CommandRunner): void {
  const config = program.command('config').description('manage the project configuration');
  const upgrade = config.command('upgrade').description('upgrade the project to config version 2, or 3 with --to 3 (same as migrate config)')
    .option('--dry-run', 'list the steps and files; change nothing').option('--to <version>', TO_HELP, '2')
    .option('--rename-session-variables', RENAME_HELP);
  run(upgrade, (g, out) => {
    const f = upgrade.opts<{ dryRun?: boolean; to?: string; renameSessionVariables?: boolean }>();
    return upgradeAction(g, out, !!f.dryRun, f.to, f.renameSessionVariables === true);
  });
}

/** The options of `engine migrate config`, the same as `engine config upgrade`. */
export const upgradeOptions = (cmd: Command): Command =>
  cmd.option('--dry-run', 'list the steps and files; change nothing').option('--to <version>', TO_HELP, '2')
    .option('--rename-session-variables', RENAME_HELP);
