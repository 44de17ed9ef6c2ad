import { CliError } from '../../errors.js';
import type { Environment } from './environment.js';

/**
 * Numeric settings of `engine serve` (cli.md §2.2): a flag, else its variable. A bad flag is `invalid-flag-value`
 * (exit 64), a bad variable `config-invalid` naming the setting's key and the variable it came from.
 */

/** A positive integer from a flag (exit 64 when bad) or else the environment (config-invalid). */
export function positiveSetting(env: Environment, flag: string | undefined, flagName: string, key: string, variable: string): number | undefined {
  const parse = (v: string): number | null => (/^\d+$/.test(v.trim()) && Number(v.trim()) >= 1 && Number.isSafeInteger(Number(v.trim())) ? Number(v.trim()) : null);
  if (flag !== undefined) {
    const n = parse(flag);
    if (n === null) throw new CliError('invalid-flag-value', `invalid value "${flag}" for ${flagName}: expected a positive integer`, 64);
    return n;
  }
  const v = env.variable(variable);
  if (v === undefined || v === '') return undefined;
  const n = parse(v);
  if (n === null) throw new CliError('config-invalid', `invalid value for "${key}" from ${variable}: expected a positive integer`, 1);
  return n;
}

const SECONDS_REASON = 'expected a number of seconds ≥ 0';

/** A duration in seconds (decimals allowed) as ms, or null when it is not one. */
function parseSeconds(v: string): number | null {
  if (!/^\d+(\.\d+)?$/.test(v.trim())) return null;
  const ms = Math.round(Number(v.trim()) * 1000);
  return ms <= 2_147_483_647 ? ms : null;
}

/** A duration setting from its flag, else its variable; undefined when neither is given. */
export function seconds(flag: string | undefined, flagName: string, env: Environment, variable: string, key: string): number | undefined {
  if (flag !== undefined) {
    const ms = parseSeconds(flag);
    if (ms === null) throw new CliError('invalid-flag-value', `invalid value "${flag}" for ${flagName}: ${SECONDS_REASON}`, 64);
    return ms;
  }
  const v = env.variable(variable);
  if (v === undefined || v === '') return undefined;
  const ms = parseSeconds(v);
  if (ms === null) throw new CliError('config-invalid', `invalid value for "${key}" from ${variable}: ${SECONDS_REASON}`, 1);
  return ms;
}
