/**
 * The completion scripts of `engine completion` for a small command tree: the commander → tree conversion (hidden
 * commands and options, aliases, choices, path placeholders) and the text each shell's generator writes for it.
 * The real scripts are run by real shells in test/e2e/completion.test.ts.
 */
import { Argument, Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { bashScript, fishScript, zshScript } from '../../src/cli/completion-scripts.js';
import { commandTree, type CompletionNode } from '../../src/cli/completion-tree.js';

/** tool [-v] [-o text|json] run [--file <file>] [--out-dir <dir>] <target> [rest...]; tool db (alias d) reset [-y] */
const TREE: CompletionNode = {
  name: 'tool',
  aliases: [],
  description: 'a tool',
  options: [
    { flags: ['-v', '--verbose'], description: 'say more', takesValue: false, choices: [] },
    { flags: ['-o', '--output'], description: "the output's format", takesValue: true, choices: ['text', 'json'] },
  ],
  args: [],
  subcommands: [
    {
      name: 'run',
      aliases: [],
      description: 'run it',
      options: [
        { flags: ['--file'], description: 'input: file', takesValue: true, choices: [], path: 'file' },
        { flags: ['--out-dir'], description: 'where', takesValue: true, choices: [], path: 'dir' },
        { flags: ['--name'], description: 'a name', takesValue: true, choices: [] },
      ],
      args: [
        { name: 'target', variadic: false, choices: ['a', 'b'] },
        { name: 'rest', variadic: true, choices: [], path: 'file' },
      ],
      subcommands: [],
    },
    {
      name: 'db',
      aliases: ['d'],
      description: 'the database',
      options: [],
      args: [],
      subcommands: [{ name: 'reset', aliases: [], description: 'start again', options: [{ flags: ['-y'], description: 'yes', takesValue: false, choices: [] }], args: [], subcommands: [] }],
    },
  ],
};

describe('commandTree', () => {
  const program = () => {
    const p = new Command('tool').description('a tool\nwith a second line');
    p.addOption(new Option('-o, --output <format>', 'format').choices(['text', 'json']));
    p.addOption(new Option('--secret <s>', 'hidden').hideHelp());
    p.option('--log-level <level>', 'level');
    const run = p.command('run').description('run it').option('--file <file>', 'input').option('--out-dir <dir>', 'where')
      .option('--env [path]', 'optional path').option('--name <name>', 'a name');
    run.addArgument(new Argument('<target>').choices(['a', 'b'])).argument('[dir]').argument('[rest...]');
    p.command('db').alias('d').description('the database').command('reset');
    p.command('internal', { hidden: true });
    return p;
  };

  it('keeps what help shows, with the choices commander knows, hinted choices, and paths by placeholder', () => {
    const tree = commandTree(program(), { choices: (path, flag) => (flag === '--log-level' ? [`for ${path}`] : flag === '--output' ? ['ignored'] : undefined) });
    expect(tree.name).toBe('tool');
    expect(tree.description, 'first line only').toBe('a tool');
    expect(tree.options).toEqual([
      { flags: ['-o', '--output'], description: 'format', takesValue: true, choices: ['text', 'json'] },
      { flags: ['--log-level'], description: 'level', takesValue: true, choices: ['for tool'] },
      { flags: ['-h', '--help'], description: 'display help for command', takesValue: false, choices: [] },
    ]);
    expect(tree.subcommands.map((s) => s.name), 'hidden commands are left out; the implicit help is there').toEqual(['run', 'db', 'help']);
    const run = tree.subcommands[0]!;
    expect(run.options.map((o) => [o.flags.join(','), o.path ?? '-'])).toEqual([
      ['--file', 'file'], ['--out-dir', 'dir'], ['--env', 'file'], ['--name', '-'], ['-h,--help', '-'],
    ]);
    expect(run.args).toEqual([
      { name: 'target', variadic: false, choices: ['a', 'b'] },
      { name: 'dir', variadic: false, choices: [], path: 'dir' },
      { name: 'rest', variadic: true, choices: [] },
    ]);
    const db = tree.subcommands[1]!;
    expect(db.aliases).toEqual(['d']);
    expect(db.subcommands.map((s) => s.name)).toEqual(['reset', 'help']);
    expect(tree.subcommands[2]!.args[0]?.choices, "help's operand is a sibling's name").toEqual(['run', 'db']);
  });
});

describe('bashScript', () => {
  const script = bashScript(TREE);

  it('lists subcommands, options and the options that take a value by command path', () => {
    expect(script).toContain(`    'tool') subs='run db' opts='-v --verbose -o --output' valopts='-o --output' ;;`);
    expect(script).toContain(`    'tool run') subs='' opts='--file --out-dir --name' valopts='--file --out-dir --name' ;;`);
    expect(script).toContain(`    'tool db reset') subs='' opts='-y' valopts='' ;;`);
  });

  it('resolves aliases to the command they stand for', () => {
    expect(script).toContain(`    'tool/db'|'tool/d') child='db' ;;`);
    expect(script).toContain(`    'tool db/reset') child='reset' ;;`);
  });

  it('completes option values from choices or as paths, and not at all otherwise', () => {
    expect(script).toContain(`    'tool/-o'|'tool/--output') kind=words choices='text json' ;;`);
    expect(script).toContain(`    'tool run/--file') kind=file choices='' ;;`);
    expect(script).toContain(`    'tool run/--out-dir') kind=dir choices='' ;;`);
    expect(script).not.toContain(`'tool run/--name'`);
  });

  it('gives every operand a branch, a variadic last one catching the rest', () => {
    const operand = script.slice(script.indexOf('__tool_operand() {'));
    expect(operand).toContain(`    'tool run/0') kind=words choices='a b' ;;\n    'tool run/'*) kind=file choices='' ;;\n    *) kind=none`);
  });

  it('registers the function for the program', () => {
    expect(script).toMatch(/^_tool\(\) \{$/m);
    expect(script.trimEnd().endsWith('complete -F _tool tool')).toBe(true);
  });
});

describe('zshScript', () => {
  const script = zshScript(TREE);

  it('is an autoloadable completer that registers itself when sourced', () => {
    expect(script.startsWith('#compdef tool\n')).toBe(true);
    expect(script).toContain('if [[ ${funcstack[1]-} == _tool ]]; then\n  _tool "$@"\nelse\n  compdef _tool tool\nfi\n');
  });

  it('describes subcommands and options, quoting descriptions', () => {
    expect(script).toContain(`      subs=('run:run it' 'db:the database')`);
    expect(script).toContain(`      opts=('-v:say more' '--verbose:say more' '-o:the output'\\''s format' '--output:the output'\\''s format')`);
    expect(script).toContain(`      opts=('--file:input: file' '--out-dir:where' '--name:a name')`);
    expect(script).toContain(`      valopts=('-o' '--output') ;;`);
  });

  it('completes values with compadd, _files and _files -/', () => {
    expect(script).toContain(`    'tool/-o'|'tool/--output') kind=words; choices=('text' 'json') ;;`);
    expect(script).toContain(`    'tool run/--out-dir') kind=dir; choices=() ;;`);
    expect(script).toContain('    dir) _files -/ ;;');
  });
});

describe('fishScript', () => {
  const script = fishScript(TREE);

  it('offers subcommands where the command path is complete and no operand was given', () => {
    expect(script).toContain(`complete -c 'tool' -n '__tool_at \\'tool\\' 0' -a 'run' -d 'run it'`);
    expect(script).toContain(`complete -c 'tool' -n '__tool_at \\'tool db\\' 0' -a 'reset' -d 'start again'`);
  });

  it('declares options with their values: choices, files, directories or anything', () => {
    expect(script).toContain(`complete -c 'tool' -n '__tool_at \\'tool\\'' -s 'v' -l 'verbose' -d 'say more'`);
    expect(script).toContain(`complete -c 'tool' -n '__tool_at \\'tool\\'' -s 'o' -l 'output' -x -a 'text json' -d 'the output\\'s format'`);
    expect(script).toContain(`complete -c 'tool' -n '__tool_at \\'tool run\\'' -l 'file' -r -F -d 'input: file'`);
    expect(script).toContain(`-l 'out-dir' -x -a '(__fish_complete_directories (commandline -ct))' -d 'where'`);
    expect(script).toContain(`-l 'name' -x -d 'a name'`);
  });

  it('completes operands by position, files off everywhere else', () => {
    expect(script).toContain(`complete -c 'tool' -f\n`);
    expect(script).toContain(`complete -c 'tool' -n '__tool_at \\'tool run\\' 0' -a 'a b'`);
    expect(script).toContain(`complete -c 'tool' -n '__tool_at \\'tool run\\' 1 more' -F`);
  });

  it('walks the words with the aliases and the options that take a value', () => {
    expect(script).toContain(`        case 'tool/db' 'tool/d'\n            echo 'db'`);
    expect(script).toContain(`        case 'tool'\n            printf '%s\\n' '-o' '--output'`);
  });
});
