import type { Command } from 'commander';
import { CliError } from '../errors.js';
import type { CommandRunner } from './globals.js';

/** `engine init [DIR]` (cli.md §5.1). */
export function registerInit(program: Command, run: CommandRunner): void {
  const cmd = program.command('init').argument('[dir]', 'project directory (default: ., or asked on a terminal)').description('create a new project')
    // Not --version: that is the CLI's own version everywhere (issue 19).
    .option('--config-version <n>', 'config version of the new project (only 2)');
  run(cmd, async (g, out) => {
    let dir = (cmd.args[0] as string | undefined) ?? '.';
    let endpointFlag = g.endpoint;
    // Asked only when nothing was given on an interactive terminal; otherwise the spec's defaults (cli.md §5.1).
    if (cmd.args.length === 0 && endpointFlag === undefined && out.interactive) {
      const { askInit } = await import('./prompts.js');
      ({ dir, endpoint: endpointFlag } = await askInit());
    }
    const version = cmd.opts<{ configVersion?: string }>().configVersion;
    if (version !== undefined && version !== '2') {
      throw new CliError('invalid-flag-value', `invalid value "${version}" for --config-version: new projects use config version 2`, 64);
    }
    const endpoint = (endpointFlag ?? 'http://localhost:8080').replace(/\/$/, '');
    const { checkEndpoint } = await import('../project/config/config-validate.js');
    const check = checkEndpoint(endpoint);
    if (!check.ok) throw new CliError('invalid-flag-value', `invalid value "${endpoint}" for --endpoint: ${check.reason}`, 64, check.hint ? { hint: check.hint } : {});
    const { initProject } = await import('../project/init/init.js');
    const r = initProject({ dir, endpoint, ...(g.adminSecret ? { adminSecret: g.adminSecret } : {}) });
    out.logger.info(`Created project in ${dir}.`);
    out.logger.info('Next steps:');
    if (dir !== '.') out.logger.info(`  cd ${dir}`);
    out.logger.info('  engine serve');
    out.success({ directory: r.directory, files: r.files });
  });
}
