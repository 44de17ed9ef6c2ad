import { levenshtein, nearest } from '../../text.js';
import { isMap, isScalar, type Node, type YAMLMap } from 'yaml';
import { CliError } from '../../errors.js';
import { CONFIG_KEY_ALIASES, valueNode, type ConfigDocument } from './environment.js';
import type { Problem } from '../problems.js';
import { ACTION_KINDS, CONFIG, CONFIG_VERSIONS, ENGINE_PATHS } from '../validate/shapes-config.js';
import type { ObjectShape } from '../validate/shapes-core.js';

/** The rules of cli.md §2.5 for single values, independent of where the value comes from. */
export type Check<T> = { ok: true; value: T } | { ok: false; reason: string; hint?: string };

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type ActionKind = (typeof ACTION_KINDS)[number];

const ok = <T>(value: T): Check<T> => ({ ok: true, value });
const fail = <T>(reason: string, hint?: string): Check<T> => ({ ok: false, reason, ...(hint ? { hint } : {}) });

export const URL_REASON = 'expected an http:// or https:// URL';
/** The engine's URL template (engine-api.md §4.0): `{{NAME}}`, spaces inside the braces allowed. */
const URL_TEMPLATE = /\{\{\s*[A-Za-z_][A-Za-z0-9_]*\s*\}\}/;

function httpUrl(text: string): URL | null {
  if (!/^https?:\/\/\S+$/i.test(text)) return null;
  try {
    const u = new URL(text);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '' ? u : null;
  } catch {
    return null;
  }
}

/** `endpoint`: absolute http(s) URL, no query or fragment, trailing `/` dropped, not an engine API path. */
export function checkEndpoint(text: string): Check<string> {
  const url = httpUrl(text);
  if (!url) return fail(URL_REASON);
  if (/[?#]/.test(text)) return fail(`${URL_REASON} without query or fragment`);
  const base = text.replace(/\/+$/, '');
  const path = url.pathname.replace(/\/+$/, '');
  const suffix = ENGINE_PATHS.find((s) => path.endsWith(s));
  if (suffix) {
    const fixed = base.endsWith(suffix) ? base.slice(0, -suffix.length) : url.origin + path.slice(0, -suffix.length);
    return fail("must be the engine's base URL, not an API path", `use ${fixed.replace(/\/+$/, '')}`);
  }
  return ok(base);
}

/** `actions.handler_webhook_baseurl`: absolute http(s) URL, or a value holding a `{{NAME}}` template. */
export function checkHandlerBaseUrl(text: string): Check<string> {
  if (URL_TEMPLATE.test(text) || httpUrl(text)) return ok(text);
  return fail(`${URL_REASON} or a {{NAME}} template`);
}

export function checkVersion(text: string): Check<1 | 2 | 3> {
  const versions: readonly string[] = CONFIG_VERSIONS;
  return versions.includes(text) ? ok(Number(text) as 1 | 2 | 3) : fail(`expected ${CONFIG_VERSIONS.join(', ').replace(/, (?=[^,]*$)/, ' or ')}, got ${text}`);
}

export function checkKind(text: string): Check<ActionKind> {
  const kinds: readonly string[] = ACTION_KINDS;
  return kinds.includes(text) ? ok(text as ActionKind) : fail(`expected ${ACTION_KINDS.map((k) => `"${k}"`).join(' or ')}`);
}

export function checkNonEmpty(text: string): Check<string> {
  return text.trim() === '' ? fail('must not be empty') : ok(text);
}

/** `--timeout` / `ENGINE_GRAPHQL_TIMEOUT`: an integer ≥ 1 (seconds). */
export function checkTimeout(text: string): Check<number> {
  const n = Number(text);
  return /^\d+$/.test(text) && n >= 1 && Number.isSafeInteger(n) ? ok(n) : fail('expected an integer ≥ 1');
}

const LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

/** `--log-level` / `ENGINE_GRAPHQL_LOG_LEVEL`, case-insensitive. */
export function checkLogLevel(text: string): Check<LogLevel> {
  const l = text.toLowerCase() as LogLevel;
  return LEVELS.includes(l) ? ok(l) : fail(`expected one of ${LEVELS.join(', ')}`);
}

/** The candidate with the smallest Levenshtein distance, however far; ties go to the alphabetically first. */
export { levenshtein, nearest };

/** The keys of each mapping of a shape by dotted path (`''` for the root). */
function levels(shape: ObjectShape, prefix = '', out: Record<string, readonly string[]> = {}): Record<string, readonly string[]> {
  out[prefix] = Object.keys(shape.keys);
  for (const [k, key] of Object.entries(shape.keys)) if (key.shape.kind === 'object') levels(key.shape, prefix ? `${prefix}.${k}` : k, out);
  return out;
}

/** The keys of cli.md §2.1 by level, with the mappings `actions` and `actions.codegen` (from shapes-config.ts). */
export const KNOWN_KEYS: Readonly<Record<string, readonly string[]>> = levels(CONFIG);

const isNullNode = (n: Node | null | undefined): boolean => n === null || n === undefined || (isScalar(n) && n.value === null);

/**
 * The mapping at a dotted path (`actions`, `actions.codegen`): null when absent or empty (`actions:`),
 * `config-invalid` (`expected a mapping`) when it is something else.
 */
export function mappingAt(config: ConfigDocument, path: string): YAMLMap | null {
  let map = config.root;
  const parts = path.split('.');
  for (let i = 0; i < parts.length && map; i++) {
    const node = valueNode(config.doc, map, parts[i] as string);
    if (isNullNode(node)) return null;
    if (!isMap(node)) {
      throw new CliError('config-invalid', `invalid value for "${parts.slice(0, i + 1).join('.')}": expected a mapping`, 1,
        config.position(node));
    }
    map = node as YAMLMap;
  }
  return map;
}

/**
 * Keys of the incumbent's config.yaml that engine does not use: a project brought over keeps them, and is told they
 * are ignored rather than offered a "did you mean".
 */
const INCUMBENT_KEYS = new Set([
  'enable_telemetry', 'api_paths', 'insecure_skip_tls_verify', 'certificate_authority', 'seeds_directory',
  'disable_interactive', 'show_update_notification', 'hasura_server_internal_config', 'server_config', 'actions.codegen.uri',
]);

/** The incumbent's keys engine reads in place of its own (`access_key`): known, not warned about. */
const ALIAS_KEYS = new Set(Object.values(CONFIG_KEY_ALIASES).flat());

/** `config-unknown-key` warnings for every level of config.yaml (cli.md §2.5); checks the nested mappings. */
export function unknownKeys(config: ConfigDocument): Problem[] {
  const problems: Problem[] = [];
  for (const [level, known] of Object.entries(KNOWN_KEYS)) {
    const map = level === '' ? config.root : mappingAt(config, level);
    for (const pair of map?.items ?? []) {
      const keyNode = pair.key as Node | null;
      const name = isScalar(keyNode) ? String(keyNode.value) : keyNode ? config.text.slice(keyNode.range?.[0], keyNode.range?.[1]) : '';
      if (known.includes(name) || (level === '' && ALIAS_KEYS.has(name))) continue;
      const prefix = level === '' ? '' : `${level}.`;
      if (INCUMBENT_KEYS.has(`${prefix}${name}`)) {
        problems.push({
          severity: 'warning', code: 'config-key-ignored',
          message: `key "${prefix}${name}" of the incumbent's config.yaml is not used by engine; it is ignored`,
          ...config.position(keyNode),
        });
        continue;
      }
      const suggestion = nearest(name, known) ?? '';
      problems.push({
        severity: 'warning',
        code: 'config-unknown-key',
        message: `unknown key "${prefix}${name}" (did you mean "${prefix}${suggestion}"?)`,
        ...config.position(keyNode),
      });
    }
  }
  return problems;
}
