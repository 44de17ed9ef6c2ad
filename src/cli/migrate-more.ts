import type { Command } from 'commander';
import { CliError } from '../errors.js';
import type { CommandRunner, GlobalFlags } from './globals.js';
import type { Output } from './output.js';
import { context } from './context.js';

/** A migration version given as a flag value. */
export async function versionFlag(flag: string, value: string): Promise<bigint> {
  const { MAX_VERSION } = await import('../project/migrations/migrations.js');
  if (!/^\d+$/.test(value) || BigInt(value) > MAX_VERSION) {
    throw new CliError('invalid-flag-value', `invalid value "${value}" for --${flag}: expected a migration version (digits)`, 64);
  }
  return BigInt(value);
}

/** `migrate create --from-server`, `migrate delete` and `migrate squash` (issue 19 items 4 and 6). */

export async function createFromServerAction(g: GlobalFlags, out: Output, name: string, schemas: string[]): Promise<number> {
  const { MIGRATION_NAME } = await import('../project/migrations/migrations.js');
  if (!MIGRATION_NAME.test(name)) throw new CliError('invalid-name', `invalid migration name "${name}": use letters, digits, "_" and "-"`, 64);
  const { config, client } = await context(g, out, { project: true, version2: true });
  const { createFromServer } = await import('../project/migrations/ops.js');
  const { shownPath } = await import('../project/config/environment.js');
  const r = await out.spinning('Dumping the schema on the engine…', () => createFromServer(client, config.migrationsDirectory, name, schemas));
  const version = r.version.toString();
  if (out.mode === 'text') out.data(version);
  out.logger.info(`Created migration ${version}_${name} in ${shownPath(config.migrationsDirectory)}/ from the engine's schema.`);
  out.logger.info(`This database already has it; mark it applied here with: engine migrate apply --skip-execution --version ${version}`);
  out.success({ version, name, directory: shownPath(r.directory), from_server: true });
  return 0;
}

export function registerMigrateMore(migrate: Command, run: CommandRunner): void {
  const del = migrate.command('delete').description('remove a migration: its directory and its state row (the database is not changed)')
    .option('--version <version>', 'the migration to remove').option('-y, --yes', 'do not ask for confirmation');
  run(del, async (g, out) => {
    const f = del.opts<{ version?: string; yes?: boolean }>();
    const { missingFlag, confirmPrompt } = await import('./prompts.js');
    if (f.version === undefined) throw missingFlag('--version');
    const version = await versionFlag('version', f.version);
    if (!f.yes && !out.interactive) throw new CliError('confirmation-required', `refusing to delete migration ${version} without confirmation; pass --yes`, 64);
    const { config, client } = await context(g, out, { project: true, version2: true });
    const ops = await import('../project/migrations/ops.js');
    const { shownPath } = await import('../project/config/environment.js');
    const target = await ops.deletionOf(client, config.migrationsDirectory, version);
    const what = [target.local && `${shownPath(target.local.dir)}/`, target.applied && 'its row in the migration state'].filter(Boolean).join(' and ');
    if (!f.yes && !(await confirmPrompt(`Delete migration ${version}: ${what}? The database itself is not changed.`))) {
      throw new CliError('aborted', 'Aborted; nothing was changed.', 1);
    }
    await ops.deleteMigration(client, target);
    out.logger.info(`Deleted migration ${version} (${what}).`);
    out.success({ version: version.toString(), files_removed: target.local !== null, state_removed: target.applied !== null });
    return 0;
  });

  const squash = migrate.command('squash').description('squash a range of local migrations into one')
    .option('--from <version>', 'first migration of the range').option('--to <version>', 'last migration of the range (default: the latest)')
    .option('--name <name>', 'name of the squashed migration (default squashed)', 'squashed');
  run(squash, async (g, out) => {
    const f = squash.opts<{ from?: string; to?: string; name?: string }>();
    const { missingFlag } = await import('./prompts.js');
    if (f.from === undefined) throw missingFlag('--from');
    const from = await versionFlag('from', f.from);
    const to = f.to === undefined ? null : await versionFlag('to', f.to);
    const name = f.name ?? 'squashed';
    const { MIGRATION_NAME } = await import('../project/migrations/migrations.js');
    if (!MIGRATION_NAME.test(name)) throw new CliError('invalid-name', `invalid migration name "${name}": use letters, digits, "_" and "-"`, 64);
    const { config, client } = await context(g, out, { project: true, version2: true });
    const { squashMigrations } = await import('../project/migrations/ops.js');
    const { shownPath } = await import('../project/config/environment.js');
    const r = await squashMigrations(client, config.migrationsDirectory, from, to, name);
    if (out.mode === 'text') out.data(r.version.toString());
    out.logger.info(`Squashed ${r.squashed.length} migration(s) into ${r.version}_${r.name}${r.applied ? ' (marked applied)' : ''}.`);
    out.success({ version: r.version.toString(), name: r.name, directory: shownPath(r.directory), applied: r.applied,
      squashed: r.squashed.map((s) => ({ version: s.version.toString(), name: s.name })) });
    return 0;
  });
}
