import { Option, type Command } from 'commander';
import { CliError } from '../errors.js';
import { Output, type LogLevel, type OutputMode } from './output.js';
import { resolveVariable } from '../project/config/incumbent-env.js';

export interface GlobalFlags {
  project?: string;
  endpoint?: string;
  adminSecret?: string;
  envfile?: string;
  color: boolean;
  logLevel?: string;
  output?: string;
  timeout?: string;
  insecureSkipTlsVerify?: boolean;
  certificateAuthority?: string;
}

/** Runs a command's action: resolves to its exit status. */
export type CommandAction = (globals: GlobalFlags, out: Output) => Promise<number | void>;
export type CommandRunner = (cmd: Command, action: CommandAction) => void;

/** Global flags are accepted before or after the command name (cli.md §3.1), so every command declares them. */
export function addGlobalOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--project <dir>', 'start of project discovery (default: the current directory)'))
    .addOption(new Option('--endpoint <url>', 'engine base URL (env ENGINE_GRAPHQL_ENDPOINT)'))
    .addOption(new Option('--admin-secret <secret>', 'admin secret (env ENGINE_GRAPHQL_ADMIN_SECRET)'))
    .addOption(new Option('--envfile <path>', 'environment file (default .env)'))
    .addOption(new Option('--no-color', 'no colour anywhere (env NO_COLOR)'))
    .addOption(new Option('--log-level <level>', 'debug, info, warn or error (default info, env ENGINE_GRAPHQL_LOG_LEVEL)'))
    .addOption(new Option('-o, --output <format>', 'text or json (default text); yaml for metadata export and build'))
    .addOption(new Option('--timeout <seconds>', 'per-request timeout (default 30, env ENGINE_GRAPHQL_TIMEOUT)'))
    .addOption(new Option('--insecure-skip-tls-verify', 'https endpoints: accept any certificate (unsafe; for testing)'))
    .addOption(new Option('--certificate-authority <file>', 'https endpoints: trust the CA certificates of this PEM file'))
    // The incumbent's scripts pass it; engine never checks for updates, so it is accepted and means nothing.
    .addOption(new Option('--skip-update-check', 'accepted for scripts written for the incumbent; engine never checks for updates').hideHelp());
}

/** `--allow-unknown-keys`, on every command that builds the project's metadata (issue 27 item 5). */
export const ALLOW_UNKNOWN_KEYS: [string, string] = ['--allow-unknown-keys', 'unknown keys in metadata files are warnings, not errors (a project written by a newer incumbent)'];

export const allowUnknownKeys = (cmd: Command): boolean => !!cmd.opts<{ allowUnknownKeys?: boolean }>().allowUnknownKeys;

const invalid = (flag: string, v: string, reason: string) =>
  new CliError('invalid-flag-value', `invalid value "${v}" for --${flag}: ${reason}`, 64);

/** Builds the Output from global flags; an invalid --output value is itself reported as text. */
export function outputFor(g: GlobalFlags, allowYaml = false): Output {
  const modeRaw = g.output ?? 'text';
  const levelRaw = (g.logLevel ?? resolveVariable('ENGINE_GRAPHQL_LOG_LEVEL', (n) => process.env[n])?.value ?? 'info').toLowerCase();
  const mode: OutputMode = modeRaw === 'json' ? 'json' : 'text';
  const level = (['debug', 'info', 'warn', 'error'].includes(levelRaw) ? levelRaw : 'info') as LogLevel;
  const out = new Output({ mode, level, noColor: !g.color });
  if (modeRaw !== 'text' && modeRaw !== 'json' && !(allowYaml && modeRaw === 'yaml')) {
    const allowed = allowYaml ? 'text, json, yaml' : 'text, json';
    throw Object.assign(invalid('output', modeRaw, `expected one of ${allowed}`), { output: new Output({ mode: 'text', level, noColor: !g.color }) });
  }
  if (!['debug', 'info', 'warn', 'error'].includes(levelRaw)) {
    throw Object.assign(invalid('log-level', g.logLevel ?? levelRaw, 'expected one of debug, info, warn, error'), { output: out });
  }
  return out;
}
