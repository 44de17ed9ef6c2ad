import { createRequire } from 'node:module';
import type { Agent as AgentType, Dispatcher } from 'undici';

/**
 * undici's Agent and `request`, loaded from their own modules: the package's index loads all of undici (fetch,
 * WebSocket, caches, mocks), ≈ 80 ms of every CLI command that talks to the engine; these two load in a third of
 * that. The version is pinned (package.json) because these paths are undici's own layout, not its public entry;
 * every e2e test goes through here.
 */
const load = createRequire(import.meta.url);
const AgentClass = load('undici/lib/dispatcher/agent.js') as typeof AgentType;
const apiRequest = load('undici/lib/api/api-request.js') as (this: Dispatcher, opts: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;

export const Agent = AgentClass;
export type Agent = AgentType;
export type { Dispatcher };

export type RequestOptions = Omit<Dispatcher.RequestOptions, 'origin' | 'path' | 'method'> & { method?: Dispatcher.HttpMethod; dispatcher: Dispatcher };

/** undici's `request(url, options)` with an explicit dispatcher (ours always name one). */
export function request(url: string, opts: RequestOptions): Promise<Dispatcher.ResponseData> {
  const u = new URL(url);
  const { dispatcher, ...rest } = opts;
  return apiRequest.call(dispatcher, { ...rest, origin: u.origin, path: `${u.pathname}${u.search}`, method: opts.method ?? 'GET' });
}
