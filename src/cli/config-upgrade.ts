import type { Command } from 'commander';
import type { CommandRunner, GlobalFlags } from './globals.js';
import type { Output } from './output.js';
import { engineClient, projectConfig } from './context.js';

/**
 * `engine migrate config` and its alias `engine config upgrade` (cli.md §5.16): one action, two commands. The
 * project work is in src/project/upgrade.ts; this file reads the configuration, prints and maps the result.
 */
export async function upgradeAction(g: GlobalFlags, out: Output, dryRun: boolean): Promise<number | void> {
  const config = await projectConfig(g, out, { project: true, offline: true });
  const { readConfigDocument, scalarText, valueNode, shownPath } = await import('../project/environment.js');
  const configFile = config.configFile as string;
  const doc = readConfigDocument(configFile);
  // The file is what is upgraded: its own `version` decides (absent or 1: continue).
  if (scalarText(valueNode(doc.doc, doc.root, 'version')) === '2') {
    out.logger.info('Project is already at config version 2.');
    return void out.success({ already: true });
  }
  const u = await import('../project/upgrade.js');
  const plan = u.planUpgrade({
    projectDir: config.projectDir as string, configFile, migrationsDir: config.migrationsDirectory, metadataDir: config.metadataDirectory,
    envFile: config.envFile,
  }, (w) => out.warn(w.code, w.message));
  const { upgradeWarnings } = await import('../project/upgrade-steps.js');
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
      const { loadConfig } = await import('../project/config.js');
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
  out.logger.info('Project upgraded to config version 2.');
  out.success({
    backup: shownPath(result.backup), report, converted: result.converted, not_converted: result.notConverted,
    moved: result.moved, removed: result.removed, left_behind: result.leftBehind, renamed: result.renamed,
  });
}

/** `engine config upgrade`: the top-level alias of `engine migrate config`. */
export function registerConfigUpgrade(program: Command, run: CommandRunner): void {
  const config = program.command('config').description('manage the project configuration');
  const upgrade = config.command('upgrade').description('upgrade a config version 1 project to version 2 (same as migrate config)')
    .option('--dry-run', 'list the steps and files; change nothing');
  run(upgrade, (g, out) => upgradeAction(g, out, !!upgrade.opts<{ dryRun?: boolean }>().dryRun));
}
