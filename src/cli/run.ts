import { Command, CommanderError } from 'commander';
import { CliError } from '../errors.js';
import { VERSION } from '../version.js';
import { addGlobalOptions, outputFor, type CommandAction, type GlobalFlags } from './globals.js';
import { Output } from './output.js';
import { nearest } from '../text.js';
import { registerServe } from './serve.js';
import { registerDev } from './dev.js';
import { registerVersion } from './version.js';
import { registerMetadata } from './metadata.js';
import { registerInit } from './init.js';
import { registerActions } from './actions.js';
import { registerMigrate } from './migrate.js';
import { registerConfigUpgrade } from './config-upgrade.js';
import { registerCompletion } from './completion.js';
import { registerEvents } from './events.js';
import { registerDeploy } from './deploy.js';
import { registerTrack } from './track.js';
import { registerSeed } from './seed.js';
import { registerConsole } from './console.js';
import { junitFileOf, registerDb, registerMetadataSchema, registerTest } from './test.js';
import { addHelpSections } from './help.js';

/** Parses and runs a command line: argv in, exit status out (the process itself is main.ts's business). */
let exitCode = 0;
let finished: Promise<void> = Promise.resolve();

/** The deepest command named by the leading words of argv (`engine metadata diff …` → metadata diff). */
function commandOf(argv: string[]): Command {
  let cmd: Command = program;
  for (const word of argv) {
    if (word.startsWith('-')) continue;
    const sub = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!sub) break;
    cmd = sub;
  }
  return cmd;
}

const commandPath = (cmd: Command): string => {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
};

function usageError(e: CommanderError, argv: string[]): CliError {
  const msg = e.message.replace(/^error: /, '');
  const cmd = commandOf(argv);
  switch (e.code) {
    case 'commander.unknownCommand': {
      const name = /'([^']+)'/.exec(msg)?.[1] ?? argv[0] ?? '';
      const names = cmd.commands.flatMap((c) => [c.name(), ...c.aliases()]);
      const best = nearest(name, names, 2);
      return new CliError('unknown-command', `unknown command "${name}" for "${commandPath(cmd)}"${best ? ` Did you mean "${best}"?` : ''}`, 64);
    }
    case 'commander.unknownOption': {
      const flag = /'([^']+)'/.exec(msg)?.[1] ?? '';
      const flags = [cmd, program].flatMap((c) => c.options.flatMap((o) => [o.long, o.short])).filter((f): f is string => !!f && f.startsWith('--'));
      const best = flag.startsWith('--') ? nearest(flag, flags, 2) : undefined;
      return new CliError('unknown-flag', `unknown flag: ${flag}${best ? ` Did you mean "${best}"?` : ''}`, 64, { hint: `run '${commandPath(cmd)} --help' for usage` });
    }
    case 'commander.missingArgument':
      return new CliError('missing-argument', `missing required argument ${/'([^']+)'/.exec(msg)?.[1] ?? ''}`, 64);
    case 'commander.excessArguments':
      return new CliError('unexpected-argument', `unexpected argument "${argv[argv.length - 1] ?? ''}"`, 64);
    case 'commander.optionMissingArgument':
      return new CliError('missing-argument', `missing value for ${/'([^' ]+)/.exec(msg)?.[1] ?? 'flag'}`, 64);
    default:
      return new CliError('invalid-flag-value', msg, 64);
  }
}

const program = addGlobalOptions(new Command('engine'))
  .description('the project tool and local engine of a GraphQL data engine over PostgreSQL')
  .version(VERSION, '-v, --version', 'print the CLI version')
  .exitOverride()
  .configureOutput({ writeErr: () => {} })
  .showHelpAfterError(false)
  // Program options only before the command name, so that a command may have its own --version (init).
  .enablePositionalOptions();

const runner = (cmd: Command, action: CommandAction): void => {
  addGlobalOptions(cmd).exitOverride().configureOutput({ writeErr: () => {} });
  cmd.action(() => {
    finished = (async () => {
      const globals = cmd.optsWithGlobals<GlobalFlags>();
      // A group command (`metadata`) may have parsed --no-color itself: its subcommand's default must not undo it.
      for (let c: Command | null = cmd; c; c = c.parent) if (c.opts()['color'] === false) globals.color = false;
      let out: Output;
      try {
        // Only `metadata export` and `metadata build` print YAML (cli.md §3.4).
        // `engine test --reporter junit --output FILE`: that --output names the report file (src/cli/test.ts).
        const shown = junitFileOf(globals, cmd.opts()) === globals.output && cmd.name() === 'test' ? { ...globals, output: undefined } : globals;
        out = outputFor(shown, ['export', 'build'].includes(cmd.name()) && cmd.parent?.name() === 'metadata');
      } catch (e) {
        const o = (e as { output?: Output }).output ?? new Output({ mode: 'text', level: 'info', noColor: true });
        exitCode = o.fail(e);
        return;
      }
      try {
        exitCode = (await action(globals, out)) ?? 0;
      } catch (e) {
        exitCode = out.fail(e);
      }
    })();
  });
};

registerServe(program, runner);
registerDev(program, runner);
registerVersion(program, runner);
registerInit(program, runner);
registerMetadata(program, runner);
registerTrack(program.commands.find((c) => c.name() === 'metadata') as Command, runner);
registerActions(program, runner);
registerMigrate(program, runner);
registerEvents(program, runner);
registerDeploy(program, runner);
registerSeed(program, runner);
registerConsole(program, runner);
registerTest(program, runner);
registerDb(program, runner);
registerMetadataSchema(program.commands.find((c) => c.name() === 'metadata') as Command, runner);
registerConfigUpgrade(program, runner);
registerCompletion(program, runner);
// The flags every command declares are the global ones (globals.ts).
const GLOBAL_FLAGS = new Set(addGlobalOptions(new Command('globals')).options.map((o) => o.long));
addHelpSections(program, (long) => GLOBAL_FLAGS.has(long));

export async function run(argv: string[]): Promise<number> {
  if (argv.length === 0) {
    process.stdout.write(program.helpInformation());
    return 0;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) {
      // A group command without its subcommand (`engine metadata`): its help, as a usage error.
      if (e.code === 'commander.help' && e.exitCode !== 0) {
        process.stderr.write(commandOf(argv).helpInformation());
        return 64;
      }
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return 0;
      const wantsJson = argv.some((a, i) => a === '--output=json' || a === '-ojson' || ((a === '-o' || a === '--output') && argv[i + 1] === 'json'));
      return new Output({ mode: wantsJson ? 'json' : 'text', level: 'info', noColor: argv.includes('--no-color') }).fail(usageError(e, argv));
    }
    throw e;
  }
  await finished;
  return exitCode;
}

/** Renders a failure that escaped every command (a bug) and returns its exit status. */
export const crash = (e: unknown): number => new Output({ mode: 'text', level: 'info', noColor: false }).fail(e);
