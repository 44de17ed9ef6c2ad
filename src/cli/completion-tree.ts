import type { Command, Option } from 'commander';

/**
 * The command tree that the completion scripts are generated from. It is read from commander at run time, so the
 * scripts offer exactly the commands and options the parser accepts.
 */

/** How an option's value or an operand is completed: from a list of words, as a path, or not at all. */
export interface CompletionValue {
  choices: string[];
  path?: 'file' | 'dir';
}

export interface CompletionOption extends CompletionValue {
  /** Short and long forms as typed: `-o`, `--output`. */
  flags: string[];
  description: string;
  takesValue: boolean;
}

export interface CompletionArgument extends CompletionValue {
  name: string;
  /** Takes every later operand too. */
  variadic: boolean;
}

export interface CompletionNode {
  name: string;
  /** Accepted on the command line but not offered. */
  aliases: string[];
  description: string;
  options: CompletionOption[];
  args: CompletionArgument[];
  subcommands: CompletionNode[];
}

export interface TreeHints {
  /** Value choices for options that commander declares none for because the command checks the values itself. */
  choices?: (commandPath: string, flag: string) => readonly string[] | undefined;
}

const firstLine = (text: string): string => text.split('\n')[0]?.trim() ?? '';

/** Placeholders that name a path: `--project <dir>`, `--sdl <file>`, `--envfile <path>`, `init [dir]`. */
function pathKind(placeholder: string | undefined): 'file' | 'dir' | undefined {
  if (placeholder === 'dir' || placeholder === 'directory') return 'dir';
  if (placeholder === 'file' || placeholder === 'path') return 'file';
  return undefined;
}

function option(o: Option, commandPath: string, hints: TreeHints): CompletionOption {
  const flags = [o.short, o.long].filter((f): f is string => f !== undefined);
  const takesValue = o.required || o.optional;
  const placeholder = /[<[]([^>\]]+?)(?:\.\.\.)?[>\]]/.exec(o.flags)?.[1];
  const hinted = o.long !== undefined ? hints.choices?.(commandPath, o.long) : undefined;
  const choices = takesValue ? [...(o.argChoices ?? hinted ?? [])] : [];
  const path = takesValue && choices.length === 0 ? pathKind(placeholder) : undefined;
  return { flags, description: firstLine(o.description), takesValue, choices, ...(path ? { path } : {}) };
}

/** The neutral tree of `cmd` and its subcommands as its help shows them: hidden commands and options are left out. */
export function commandTree(cmd: Command, hints: TreeHints = {}, parentPath = ''): CompletionNode {
  const help = cmd.createHelp();
  const path = parentPath === '' ? cmd.name() : `${parentPath} ${cmd.name()}`;
  const visible = help.visibleCommands(cmd);
  return {
    name: cmd.name(),
    aliases: cmd.aliases(),
    description: firstLine(cmd.description()),
    options: help.visibleOptions(cmd).map((o) => option(o, path, hints)),
    args: cmd.registeredArguments.map((a) => {
      const choices = [...(a.argChoices ?? [])];
      const path = choices.length === 0 ? pathKind(a.name()) : undefined;
      return { name: a.name(), variadic: a.variadic, choices, ...(path ? { path } : {}) };
    }),
    subcommands: visible.map((c) => {
      const sub = commandTree(c, hints, path);
      if (cmd.commands.includes(c)) return sub;
      // commander's implicit `help [command]`, which takes the name of a sibling.
      const siblings = visible.filter((s) => cmd.commands.includes(s)).map((s) => s.name());
      return { ...sub, args: sub.args.map((a) => ({ ...a, choices: siblings })) };
    }),
  };
}
