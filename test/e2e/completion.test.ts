/**
 * End-to-end: `engine completion bash|zsh|fish` from the real bin, each script checked by its real shell (syntax,
 * then completions for real command lines), and the command's usage errors and JSON mode. A shell that is not
 * installed skips its tests, saying so in their names. No engine is needed.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, childEnv, cli, jsonDoc, removeTempDirs, show, tempDir } from './cli-helpers.js';

const SHELLS = ['bash', 'zsh', 'fish'] as const;
type Shell = (typeof SHELLS)[number];

const installed = (shell: Shell): boolean => spawnSync('sh', ['-c', `command -v ${shell}`], { stdio: 'ignore' }).status === 0;
const title = (shell: Shell): string => (installed(shell) ? shell : `${shell} (skipped: ${shell} is not installed on this machine)`);

/** A working directory with one file and one directory, for path completions. */
let cwd: string;
/** A directory holding an `engine` that runs the CLI under test, as `engine` would once installed. */
let binDir: string;
const scripts = {} as Record<Shell, string>;

beforeAll(async () => {
  cwd = await tempDir('engine-completion-');
  writeFileSync(join(cwd, 'schema.graphql'), '');
  mkdirSync(join(cwd, 'handlers'));
  binDir = await tempDir('engine-completion-bin-');
  writeFileSync(join(binDir, 'engine'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`);
  chmodSync(join(binDir, 'engine'), 0o755);
  for (const shell of SHELLS) {
    const r = await cli(['completion', shell], { cwd });
    expect(r.code, show(r)).toBe(0);
    expect(r.stderr, show(r)).toBe('');
    scripts[shell] = join(cwd, `engine.${shell}`);
    writeFileSync(scripts[shell], r.stdout);
  }
});

afterAll(async () => {
  await removeTempDirs();
});

/** Runs a shell with the CLI under test first on PATH as `engine`. */
function sh(shell: Shell, args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(shell, args, {
    cwd, encoding: 'utf8', timeout: 30_000, env: childEnv({ PATH: `${binDir}:${process.env['PATH'] ?? ''}`, TERM: 'xterm' }),
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const words = (text: string): string[] => text.split('\n').filter((l) => l !== '').sort();

/** Calls the function the bash script registered for `engine`, the way bash does: COMP_WORDS, COMP_CWORD. */
const BASH_DRIVER = `
source "$1"
shift
fn=$(complete -p engine | sed -E 's/.* -F ([^ ]+) .*/\\1/')
COMP_WORDS=("$@")
COMP_CWORD=$((\${#COMP_WORDS[@]} - 1))
COMPREPLY=()
"$fn"
printf '%s\\n' "\${COMPREPLY[@]}"
`;

const bash = (...line: string[]): string[] => {
  const r = sh('bash', ['-c', BASH_DRIVER, 'bash', scripts.bash, 'engine', ...line]);
  expect(r.code, r.stderr).toBe(0);
  return words(r.stdout);
};

const fish = (line: string): string[] => {
  const r = sh('fish', ['--no-config', '-c', 'source $argv[1]; complete -C $argv[2]', scripts.fish, line]);
  expect(r.code, r.stderr).toBe(0);
  return words(r.stdout).map((l) => l.split('\t')[0] as string);
};

const METADATA = ['apply', 'build', 'clear', 'diff', 'export', 'help', 'inconsistency', 'reload', 'schema', 'track', 'validate'];

describe.skipIf(!installed('bash'))(title('bash'), () => {
  it('passes bash -n and loads from the documented source <(engine completion bash)', () => {
    expect(sh('bash', ['-n', scripts.bash]).code).toBe(0);
    const r = sh('bash', ['-c', 'source <(engine completion bash) && complete -p engine']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/-F _engine engine/);
  });

  it('completes commands and subcommands, aliases included', () => {
    expect(bash('met')).toEqual(['metadata']);
    expect(bash('metadata', '')).toEqual(METADATA);
    expect(bash('metadata', 'inconsistency', '')).toEqual(['drop', 'help', 'list', 'status']);
    expect(bash('metadata', 'ic', 'l')).toEqual(['list']);
    expect(bash('migrate', 'c')).toEqual(['config', 'create']);
    expect(bash('actions', '')).toEqual(['codegen', 'create', 'help', 'use-codegen']);
    expect(bash('-o', 'json', '--project', '.', 'metadata', 'v'), 'global options and their values are stepped over').toEqual(['validate']);
  });

  it("completes a command's options, its own and the global ones", () => {
    const apply = bash('metadata', 'apply', '--');
    for (const o of ['--dry-run', '--exit-code', '--allow-inconsistent', '--allow-empty', '--project', '--output', '--log-level', '--help']) expect(apply).toContain(o);
    expect(apply).not.toContain('--prune');
    expect(bash('metadata', 'clear', '-')).toContain('-y');
    expect(bash('--v')).toEqual(['--version']);
  });

  it('completes option values: choices, files and directories', () => {
    expect(bash('-o', '')).toEqual(['json', 'text', 'yaml']);
    expect(bash('metadata', 'apply', '-o', '')).toEqual(['json', 'text']);
    expect(bash('--output=j')).toEqual(['--output=json']);
    expect(bash('--output', '=', 'y'), 'with = in COMP_WORDBREAKS').toEqual(['yaml']);
    expect(bash('--log-level', '')).toEqual(['debug', 'error', 'info', 'warn']);
    expect(bash('migrate', 'apply', '--type', '')).toEqual(['down', 'up']);
    expect(bash('actions', 'codegen', '--framework', 'typescript-')).toEqual(['typescript-express', 'typescript-fastify']);
    expect(bash('actions', 'create', 'login', '--sdl', '')).toEqual(['engine.bash', 'engine.fish', 'engine.zsh', 'handlers', 'schema.graphql']);
    expect(bash('actions', 'use-codegen', '--output-dir', '')).toEqual(['handlers']);
    expect(bash('serve', '--data-dir', 'h')).toEqual(['handlers']);
    expect(bash('metadata', 'apply', '--endpoint', ''), 'a URL is not completed').toEqual([]);
  });

  it('completes operands', () => {
    expect(bash('completion', '')).toEqual(['bash', 'fish', 'zsh']);
    expect(bash('completion', 'bash', '')).toEqual([]);
    expect(bash('init', '')).toEqual(['handlers']);
    expect(bash('help', 'm')).toEqual(['metadata', 'migrate']);
  });
});

describe.skipIf(!installed('zsh'))(title('zsh'), () => {
  it('passes zsh -n and loads after compinit from the documented source <(engine completion zsh)', () => {
    expect(sh('zsh', ['-n', scripts.zsh]).code).toBe(0);
    const r = sh('zsh', ['-f', '-c', 'autoload -Uz compinit && compinit -u -D && source <(engine completion zsh) && print -r -- $_comps[engine]']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('_engine');
  });

  /**
   * Types `line` and a TAB into an interactive zsh on a pseudo-terminal and prints the screen, without terminal
   * escapes, once `until` shows on it (or after 10 s).
   */
  const ZPTY_DRIVER = `
zmodload zsh/zpty || exit 3
setopt extendedglob
zpty z zsh -f -i
zpty -w z "PROMPT='> '; autoload -Uz compinit; compinit -u -D; source \${(q)1}; zstyle ':completion:*' list-prompt ''"
zpty -w -n z "$2"$'\\t'
local out chunk screen
for i in {1..200}; do
  zpty -r -t z chunk && out+=$chunk
  screen=\${out//$'\\e'\\[[0-9;?]#[A-Za-z]/}
  [[ $screen == *$3* ]] && break
  sleep 0.05
done
zpty -d z
print -r -- "$screen"
`;

  const zsh = (line: string, until: string): string => {
    const r = sh('zsh', ['-f', '-c', ZPTY_DRIVER, 'zsh', scripts.zsh, line, until]);
    expect(r.code, r.stderr).toBe(0);
    return r.stdout;
  };

  it('lists subcommands with their descriptions in a real completion (zpty)', () => {
    const screen = zsh('engine metadata ', 'validate');
    for (const c of METADATA) expect(screen).toMatch(new RegExp(`^${c} +-- `, 'm'));
    expect(screen).toContain('-- apply the project metadata to the engine');
  });

  it('completes a unique prefix, option values and operands in place (zpty)', () => {
    expect(zsh('engine met', 'metadata ')).toContain('engine metadata ');
    expect(zsh('engine metadata apply --dry', '--dry-run ')).toContain('--dry-run ');
    expect(zsh('engine -o ', 'yaml')).toMatch(/json +text +yaml/);
    expect(zsh('engine completion f', 'fish ')).toContain('engine completion fish ');
  });
});

describe.skipIf(!installed('fish'))(title('fish'), () => {
  it('passes fish --no-execute', () => {
    const r = sh('fish', ['--no-execute', scripts.fish]);
    expect(r.code, r.stderr).toBe(0);
  });

  it('completes commands, subcommands, options and their values', () => {
    expect(fish('engine met')).toEqual(['metadata']);
    expect(fish('engine metadata ')).toEqual(METADATA);
    expect(fish('engine metadata ic ')).toEqual(['drop', 'help', 'list', 'status']);
    expect(fish('engine metadata apply --')).toEqual(expect.arrayContaining(['--dry-run', '--exit-code', '--project', '--output']));
    expect(fish('engine -o ')).toEqual(['json', 'text', 'yaml']);
    expect(fish('engine --project . metadata diff --from ')).toEqual(['handlers/']);
    expect(fish('engine actions create x --sdl sch')).toEqual(['schema.graphql']);
    expect(fish('engine completion ')).toEqual(['bash', 'fish', 'zsh']);
    expect(fish('engine migrate create x '), 'no files where none are expected').toEqual([]);
  });
});

describe('engine completion', () => {
  it('without a shell, or with an unknown one, is a usage error naming the choices', async () => {
    const none = await cli(['completion'], { cwd });
    expect(none.code, show(none)).toBe(64);
    expect(none.stderr).toBe('error: missing required argument shell: expected one of bash, zsh, fish\n');
    const bad = await cli(['completion', 'tcsh'], { cwd });
    expect(bad.code, show(bad)).toBe(64);
    expect(bad.stderr).toBe('error: invalid value "tcsh" for shell: expected one of bash, zsh, fish\n');
    expect(bad.stdout).toBe('');
    const json = await cli(['completion', 'tcsh', '-o', 'json'], { cwd });
    expect(json.code, show(json)).toBe(64);
    expect(jsonDoc(json)).toEqual({ ok: false, error: { code: 'invalid-flag-value', message: 'invalid value "tcsh" for shell: expected one of bash, zsh, fish' } });
  });

  it('-o json wraps the script in the success document', async () => {
    const r = await cli(['completion', 'fish', '-o', 'json'], { cwd });
    expect(r.code, show(r)).toBe(0);
    const text = await cli(['completion', 'fish'], { cwd });
    expect(jsonDoc(r)).toEqual({ ok: true, shell: 'fish', script: text.stdout, warnings: [] });
  });

  it('--help says how to install each script', async () => {
    const r = await cli(['completion', '--help'], { cwd });
    expect(r.code, show(r)).toBe(0);
    expect(r.stdout).toContain('Usage: engine completion [options] <shell>');
    expect(r.stdout).toContain('engine completion bash > ~/.local/share/bash-completion/completions/engine');
    expect(r.stdout).toContain("source <(engine completion zsh)");
    expect(r.stdout).toContain('engine completion fish > ~/.config/fish/completions/engine.fish');
  });
});
