import { Argument, type Command } from 'commander';
import { CliError } from '../errors.js';
import type { CommandRunner } from './globals.js';

/** `engine completion bash|zsh|fish`: a completion script generated from the commands this very version has. */

const SHELLS = ['bash', 'zsh', 'fish'] as const;
type Shell = (typeof SHELLS)[number];

const INSTALL = `
Install:
  bash  engine completion bash > ~/.local/share/bash-completion/completions/engine
        (or add 'source <(engine completion bash)' to ~/.bashrc)
  zsh   add 'source <(engine completion zsh)' to ~/.zshrc after 'autoload -Uz compinit && compinit'
        (or save it as _engine in a directory of $fpath)
  fish  engine completion fish > ~/.config/fish/completions/engine.fish

Generate the script again after upgrading engine: it lists the commands and options of this version.`;

/**
 * Value choices for options that check their values themselves rather than through commander (`--log-level` is
 * case-insensitive, `-o yaml` is for `metadata export`/`build` only: cli.md §3.1, §3.4), so commander cannot list them.
 */
function choices(frameworks: string[]) {
  const byCommand: Record<string, readonly string[]> = {
    'engine migrate apply --type': ['up', 'down'],
    'engine actions create --kind': ['synchronous', 'asynchronous'],
    'engine events list --status': ['pending', 'delivered', 'error', 'archived', 'all'],
  };
  return (commandPath: string, flag: string): readonly string[] | undefined => {
    switch (flag) {
      case '--output':
        // A top-level -o reaches the command that follows, which may be export or build.
        return ['engine', 'engine metadata export', 'engine metadata build'].includes(commandPath) ? ['text', 'json', 'yaml'] : ['text', 'json'];
      case '--log-level': return ['debug', 'info', 'warn', 'error'];
      case '--framework': return frameworks;
      default: return byCommand[`${commandPath} ${flag}`];
    }
  };
}

export function registerCompletion(program: Command, run: CommandRunner): void {
  // The choices are declared for help and the scripts; the action checks the value so that a missing or unknown
  // shell is reported with the choices, in the words of cli.md §6.
  const shell = new Argument('[shell]', 'bash, zsh or fish').choices(SHELLS).argParser((v: string) => v);
  const cmd = program.command('completion').addArgument(shell).usage('[options] <shell>')
    .description('print a shell completion script (bash, zsh or fish)')
    .addHelpText('after', INSTALL);
  run(cmd, async (_g, out) => {
    const name = cmd.args[0];
    const expected = `expected one of ${SHELLS.join(', ')}`;
    if (name === undefined) throw new CliError('missing-argument', `missing required argument shell: ${expected}`, 64);
    if (!(SHELLS as readonly string[]).includes(name)) throw new CliError('invalid-flag-value', `invalid value "${name}" for shell: ${expected}`, 64);
    const [{ commandTree }, scripts, { availableFrameworks }] = await Promise.all([
      import('./completion-tree.js'), import('./completion-scripts.js'), import('../project/actions/codegen.js'),
    ]);
    const tree = commandTree(program, { choices: choices(availableFrameworks()) });
    const generate: Record<Shell, (t: typeof tree) => string> = { bash: scripts.bashScript, zsh: scripts.zshScript, fish: scripts.fishScript };
    const script = generate[name as Shell](tree);
    if (out.mode === 'json') out.success({ shell: name, script });
    else out.data(script);
  });
}
