import type { Command } from 'commander';
import { CliError } from '../errors.js';
import { VERSION } from '../version.js';
import type { CommandRunner, GlobalFlags } from './globals.js';
import type { Output } from './output.js';
import type { CreateFlags } from './actions-create.js';

/** `engine actions create`, `engine actions codegen` and `engine actions use-codegen` (cli.md §5.10–§5.12). */

interface CodegenFlags { framework?: string; outputDir?: string }

const FRAMEWORK_VAR = 'ENGINE_GRAPHQL_ACTIONS_CODEGEN_FRAMEWORK';
const OUTPUT_DIR_VAR = 'ENGINE_GRAPHQL_ACTIONS_CODEGEN_OUTPUT_DIR';

function nonEmpty(flag: string, value: string | undefined): void {
  if (value !== undefined && value.trim() === '') throw new CliError('invalid-flag-value', `invalid value "${value}" for --${flag}: must not be empty`, 64);
}

/**
 * The project configuration with the command's own flags taking precedence for the codegen keys (cli.md §2.2). The
 * flags are handed in as the keys' variables, the next source down, so a config.yaml value they override is never
 * read (nor interpolated, §2.4).
 */
async function projectConfig(g: GlobalFlags, out: Output, flags: CodegenFlags) {
  const { loadConfig } = await import('../project/config/config.js');
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (flags.framework !== undefined) env[FRAMEWORK_VAR] = flags.framework;
  if (flags.outputDir !== undefined) env[OUTPUT_DIR_VAR] = flags.outputDir;
  const config = loadConfig({ project: g.project, envfile: g.envfile, requireProject: true, requireVersion2: true, offline: true, env });
  for (const w of config.warnings) out.warn(w.code, w.file ? `${w.file}:${w.line}:${w.column}: ${w.message}` : w.message);
  return config;
}

/** The framework's manifest, or `codegen-unknown-framework` (exit 64 when it came from --framework, else 1). */
async function framework(name: string, fromFlag: boolean) {
  const { availableFrameworks, loadFramework } = await import('../project/actions/codegen.js');
  const manifest = loadFramework(name);
  if (manifest) return manifest;
  const available = availableFrameworks();
  throw new CliError('codegen-unknown-framework', `unknown codegen framework "${name}"; available: ${available.join(', ')}`, fromFlag ? 64 : 1);
}

type Problem = { severity: string; code: string; message: string; file?: string; line?: number; column?: number };

function printProblems(out: Output, problems: Problem[]): void {
  for (const p of problems) {
    const where = p.file ? `${p.file}:${p.line ?? 1}:${p.column ?? 1}: ` : '';
    if (p.severity === 'error') out.logger.error(`${where}${p.message}`);
    else out.warn(p.code, `${where}${p.message}`);
  }
}

export function registerActions(program: Command, run: CommandRunner): void {
  const actions = program.command('actions').description('scaffold action handlers');

  const codegen = actions.command('codegen').argument('[name...]', 'actions to generate (default: all)')
    .description('generate handler code for actions from the project metadata')
    .option('--framework <framework>', `codegen framework (env ${FRAMEWORK_VAR})`)
    .option('--output-dir <dir>', `output directory, relative to the project directory (env ${OUTPUT_DIR_VAR})`)
    .option('--force', 'overwrite existing files');
  run(codegen, async (g, out) => {
    const f = codegen.opts<CodegenFlags & { force?: boolean }>();
    nonEmpty('framework', f.framework);
    nonEmpty('output-dir', f.outputDir);
    const config = await projectConfig(g, out, f);
    const hint = "run 'engine actions use-codegen --framework <framework> --output-dir <dir>'";
    const { framework: name, outputDir } = config.actions.codegen;
    if (!name) throw new CliError('codegen-not-configured', 'no codegen framework configured', 1, { hint });
    if (!outputDir) throw new CliError('codegen-not-configured', 'no codegen output directory configured', 1, { hint });
    const manifest = await framework(name, f.framework !== undefined);

    const { buildMetadata, layoutOf } = await import('../project/metadata-dir/build.js');
    const built = buildMetadata(config.metadataDirectory, process.cwd(), layoutOf(config.version));
    printProblems(out, built.problems.warnings);
    if (!built.document) {
      printProblems(out, built.problems.errors);
      throw new CliError('metadata-invalid', `${built.problems.errors.length} error(s) found`, 1);
    }
    const { isObject } = await import('../metadata/json.js');
    const { shownPath } = await import('../project/config/environment.js');
    const { join } = await import('node:path');
    const all = (Array.isArray(built.document['actions']) ? built.document['actions'] : []).filter(isObject);
    const requested = [...new Set(codegen.args)];
    for (const n of requested) {
      if (!all.some((a) => a['name'] === n)) {
        throw new CliError('action-not-found', `action "${n}" is not defined in ${shownPath(join(config.metadataDirectory, 'actions.graphql'))}`, 1);
      }
    }
    const selected = requested.length === 0 ? all : requested.map((n) => all.find((a) => a['name'] === n)!);

    const { renderCodegen, existingTargets, writeCodegenFiles } = await import('../project/actions/codegen.js');
    const files = renderCodegen(manifest, selected, built.document['custom_types'], outputDir, VERSION);
    const existing = existingTargets(files);
    if (existing.length > 0 && !f.force) {
      throw new CliError('codegen-file-exists', `refusing to overwrite ${existing.length} existing file(s): ${existing.map((p) => shownPath(p)).join(', ')}`, 1, {
        hint: 'pass --force to overwrite',
      });
    }
    writeCodegenFiles(outputDir, files);
    const shown = files.map((file) => shownPath(file.path));
    if (out.mode === 'text') for (const p of shown) out.data(p);
    out.logger.info(`Generated ${files.length} file(s) in ${shownPath(outputDir)}/.`);
    out.success({ framework: name, output_dir: shownPath(outputDir), files: shown });
  });

  const create = actions.command('create').argument('[name]', 'the action (mutation) name; asked for on a terminal')
    .description('add an action to the project metadata and the engine')
    .option('--sdl <file>', "the action's definition (GraphQL SDL); - reads stdin")
    .option('--derive-from <operation>', "derive the definition from a mutation of the engine's schema")
    .option('--webhook <url>', 'the whole handler URL (default: actions.handler_webhook_baseurl + /<name>)')
    .option('--kind <kind>', 'synchronous or asynchronous (default: actions.kind, env ENGINE_GRAPHQL_ACTIONS_KIND)')
    .option('--no-apply', 'only write the metadata files')
    .option('--with-codegen', 'generate handler code afterwards (actions codegen)');
  run(create, async (g, out) => {
    const { createAction } = await import('./actions-create.js');
    await createAction(g, out, create.args[0], create.opts<CreateFlags>());
  });

  const use = actions.command('use-codegen').description('set the codegen framework and output directory in config.yaml')
    .option('--framework <framework>', 'codegen framework (required)')
    .option('--output-dir <dir>', 'output directory, relative to the project directory (required)');
  run(use, async (g, out) => {
    const f = use.opts<CodegenFlags>();
    if (f.framework === undefined) throw new CliError('missing-argument', 'missing required flag --framework', 64);
    if (f.outputDir === undefined) throw new CliError('missing-argument', 'missing required flag --output-dir', 64);
    nonEmpty('framework', f.framework);
    nonEmpty('output-dir', f.outputDir);
    await framework(f.framework, true);
    const config = await projectConfig(g, out, f);
    const { writeCodegenConfig } = await import('../project/actions/use-codegen.js');
    writeCodegenConfig(config.configFile as string, { framework: f.framework, output_dir: f.outputDir });
    out.logger.info(`Codegen configuration updated in config.yaml (framework: ${f.framework}, output_dir: ${f.outputDir}).`);
    out.success({ framework: f.framework, output_dir: f.outputDir });
  });
}
