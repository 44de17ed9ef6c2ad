/** Every request of the console goes to its own origin: the engine (`engine serve`) or `engine console`'s proxy. */
import { tablePage, type TablePage } from '../../src/metadata/table-page.js';

const SECRET_KEY = 'engine-console-admin-secret';

/** The admin secret lives in session storage only: never in a URL, gone with the tab. */
export const secret = {
  get: (): string | null => sessionStorage.getItem(SECRET_KEY),
  set: (value: string) => sessionStorage.setItem(SECRET_KEY, value),
  clear: () => sessionStorage.removeItem(SECRET_KEY),
};

export class ApiFailure extends Error {
  constructor(message: string, readonly code: string, readonly path: string, readonly body: unknown) {
    super(message);
  }
}

function adminHeaders(): Record<string, string> {
  const s = secret.get();
  return { 'content-type': 'application/json', ...(s ? { 'x-engine-admin-secret': s } : {}) };
}

async function send(url: string, init: RequestInit): Promise<unknown> {
  const res = await fetch(url, init);
  const text = await res.text();
  const body: unknown = text === '' ? null : JSON.parse(text);
  if (!res.ok) {
    const b = (body ?? {}) as { error?: string; code?: string; path?: string };
    throw new ApiFailure(b.error ?? `HTTP ${res.status}`, b.code ?? `http-${res.status}`, b.path ?? '$', body);
  }
  return body;
}

/** A metadata API call as admin. */
export const metadata = (type: string, args: unknown = {}): Promise<unknown> =>
  send('/v1/metadata', { method: 'POST', headers: adminHeaders(), body: JSON.stringify({ type, args }) });

export interface GraphqlAnswer {
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions?: { code?: string; path?: string } }[];
}

/** A GraphQL request as admin (the data browser), or with the given headers. */
export async function graphql(query: string, variables: Record<string, unknown> = {}, headers = adminHeaders()): Promise<GraphqlAnswer> {
  return (await send('/v1/graphql', { method: 'POST', headers, body: JSON.stringify({ query, variables }) })) as GraphqlAnswer;
}

export const consoleApi = (path: string, init: RequestInit = {}): Promise<unknown> =>
  send(`/console/api/${path}`, { ...init, headers: { ...adminHeaders(), ...(init.headers as Record<string, string> | undefined) } });

export interface ConsoleInfo {
  /** project: `engine console` (edits go to the files); engine: served by `engine serve` (edits go to the engine). */
  mode: 'project' | 'engine';
  endpoint?: string;
}

let info: Promise<ConsoleInfo> | null = null;
export function consoleInfo(): Promise<ConsoleInfo> {
  // Anything but `engine console`'s answer (a 404 from the engine, a body that is not JSON) means the engine serves it.
  info ??= fetch('/console/api/info').then(async (r) => (r.ok ? ((await r.json()) as ConsoleInfo) : { mode: 'engine' as const }))
    .catch(() => ({ mode: 'engine' as const }));
  return info;
}

/** Checks the secret with a harmless admin-only call. */
export async function login(value: string): Promise<void> {
  secret.set(value);
  try {
    await metadata('get_inconsistent_metadata');
  } catch (e) {
    secret.clear();
    throw e;
  }
}

/** A page of tables: server-side under `engine console`; from one metadata export under `engine serve`. */
export async function tables(search: string, offset: number, limit: number): Promise<TablePage> {
  const { mode } = await consoleInfo();
  if (mode === 'project') return (await consoleApi(`tables?${new URLSearchParams({ search, offset: String(offset), limit: String(limit) }).toString()}`)) as TablePage;
  return tablePage(await exported(), search, offset, limit);
}

/** The engine's metadata document (engine mode keeps the last one until an edit). */
let cached: Promise<unknown> | null = null;
export function exported(fresh = false): Promise<unknown> {
  if (fresh || cached === null) cached = metadata('export_metadata').catch((e: unknown) => { cached = null; throw e; });
  return cached;
}
export const forgetExport = () => { cached = null; };
