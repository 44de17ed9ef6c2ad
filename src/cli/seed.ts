import type { Command } from 'commander';
import { CliError } from '../errors.js';
import type { CommandRunner } from './globals.js';
import { context, projectConfig } from './context.js';

/** `engine seed create|apply` (issue 19 item 5); the files and their order are src/project/migrations/seeds.ts's. */
export function registerSeed(program: Command, run: CommandRunner): void {
  const seed = program.command('seed').description('create and apply seed data (SQL files in seeds/)');

  const create = seed.command('create').argument('<name>', 'seed name (letters, digits, "_" and "-")')
    .description('create a seed file, empty or with the rows of tables')
    .option('--from-table <table>', "the table's rows as INSERT statements (repeatable)", (v: string, p: string[]) => [...p, v], [] as string[]);
  run(create, async (g, out) => {
    const name = create.args[0] as string;
    const { SEED_NAME, createSeed, seedsDirectory, tableData } = await import('../project/migrations/seeds.js');
    if (!SEED_NAME.test(name)) throw new CliError('invalid-name', `invalid seed name "${name}": use letters, digits, "_" and "-"`, 64);
    const tables = create.opts<{ fromTable: string[] }>().fromTable;
    const needsEngine = tables.length > 0;
    const config = needsEngine ? (await context(g, out, { project: true, version2: true })) : { config: await projectConfig(g, out, { project: true, version2: true, offline: true }), client: null };
    const sql = config.client ? await tableData(config.client, tables) : `-- Seed data for ${name}: INSERT statements, run by 'engine seed apply'.\n`;
    const { shownPath } = await import('../project/config/environment.js');
    const file = createSeed(seedsDirectory(config.config.projectDir as string), name, sql);
    if (out.mode === 'text') out.data(shownPath(file));
    out.logger.info(`Created seed ${shownPath(file)}.`);
    out.success({ file: shownPath(file) });
  });

  const apply = seed.command('apply').description('run the seed files in name order, each in one transaction')
    .option('--file <file>', 'only this seed file (repeatable)', (v: string, p: string[]) => [...p, v], [] as string[]);
  run(apply, async (g, out) => {
    const { config, client } = await context(g, out, { project: true, version2: true });
    const { applySeeds, seedFiles, seedsDirectory } = await import('../project/migrations/seeds.js');
    const { shownPath } = await import('../project/config/environment.js');
    const { resolve, join, isAbsolute } = await import('node:path');
    const dir = seedsDirectory(config.projectDir as string);
    const only = apply.opts<{ file: string[] }>().file;
    // A bare file name is looked up in seeds/, as the incumbent does; a path is taken as it is.
    const files = only.length > 0 ? only.map((f) => (isAbsolute(f) || f.includes('/') ? resolve(f) : join(dir, f))) : seedFiles(dir);
    if (files.length === 0) {
      out.logger.info(`No seed files in ${shownPath(dir)}/.`);
      return void out.success({ applied: [] });
    }
    const applied: string[] = [];
    await applySeeds(client, files, (f) => {
      applied.push(shownPath(f));
      out.logger.info(`Applied seed ${shownPath(f)}.`);
    });
    out.logger.info(`Applied ${applied.length} seed file(s).`);
    out.success({ applied });
  });
}
