import { isHttpUrl, TEMPLATE } from '../../metadata/kinds/common.js';
import type { Header } from '../../metadata/types.js';
import { VERSION } from '../../version.js';

/**
 * Building an outbound request (engine-api.md §5.1), shared by action handlers and event webhooks: environment
 * references are resolved when the call is made, in the order URL template, `webhook_from_env`, headers.
 */

export interface NameValue {
  name: string;
  value: string;
  /** The environment variable the value was read from (`value_from_env`): never written to a log. */
  fromEnv?: string;
}

/**
 * A request's headers as logs and error details show them: a value read from the environment is shown as its
 * `{name, value_from_env}` configuration (issue 28), as the incumbent's invocation logs do, never as the secret.
 */
export const loggedHeaders = (headers: readonly NameValue[]): ({ name: string; value: string } | { name: string; value_from_env: string })[] =>
  headers.map((h) => (h.fromEnv !== undefined ? { name: h.name, value_from_env: h.fromEnv } : { name: h.name, value: h.value }));

/** What to call: the URL as a template or an env variable's name, the configured headers. */
export interface OutboundTarget {
  url?: string;
  urlFromEnv?: string;
  headers: Header[];
  /** Headers placed before the configured ones (an action's forwarded client headers). */
  forwarded?: NameValue[];
}

export type Resolved = { ok: true; url: string; headers: NameValue[] } | { ok: false; message: string };

export type Env = Readonly<Record<string, string | undefined>>;

const unset = (name: string): Resolved => ({ ok: false, message: `environment variable "${name}" is not set` });

/** Later entries replace earlier ones of the same case-insensitive name, keeping the first one's position. */
function merge(list: NameValue[]): NameValue[] {
  const byName = new Map<string, NameValue>();
  for (const h of list) {
    const key = h.name.toLowerCase();
    if (byName.has(key)) byName.delete(key);
    byName.set(key, h);
  }
  return [...byName.values()];
}

/** The first unset variable stops the call before any network activity (§5.1). */
export function resolveTarget(target: OutboundTarget, env: Env = process.env): Resolved {
  let url: string;
  if (target.url !== undefined) {
    let missing: string | null = null;
    url = target.url.replace(TEMPLATE, (_, name: string) => {
      const v = env[name];
      if (v === undefined) missing ??= name;
      return v ?? '';
    });
    if (missing !== null) return unset(missing);
  } else {
    const name = target.urlFromEnv ?? '';
    const v = env[name];
    if (v === undefined) return unset(name);
    url = v;
  }
  const configured: NameValue[] = [];
  for (const h of target.headers) {
    if ('value' in h) configured.push({ name: h.name, value: h.value });
    else {
      const v = env[h.value_from_env];
      if (v === undefined) return unset(h.value_from_env);
      configured.push({ name: h.name, value: v, fromEnv: h.value_from_env });
    }
  }
  if (!isHttpUrl(url.trim())) return { ok: false, message: 'the resolved URL is not an http or https URL' };
  const fixed: NameValue[] = [{ name: 'Content-Type', value: 'application/json' }];
  if (!configured.some((h) => h.name.toLowerCase() === 'user-agent')) fixed.push({ name: 'User-Agent', value: `engine/${VERSION}` });
  return { ok: true, url: url.trim(), headers: merge([...(target.forwarded ?? []), ...configured, ...fixed]) };
}
