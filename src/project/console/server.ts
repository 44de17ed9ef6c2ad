import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { timingSafeEqual } from 'node:crypto';
import { EngineError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { EngineClient } from '../../client/engine-client.js';
import type { ProjectConfig } from '../config/config.js';
import { CONSOLE_CSP, consoleAsset } from '../../server/console/assets.js';
import { tablePage, permissionOf, type PermissionType } from '../../metadata/table-page.js';
import { parseEdit } from './edit.js';
import { editPermission, engineDocument, inSync, newConsoleState, previewPermission, projectDiff, type ConsoleState } from './cell.js';
import { currentSnapshot } from './snapshot.js';
import { applySchemaEdit, parseSchemaEdit } from './migration.js';
import { ApplyRejectedError } from '../metadata-dir/apply.js';

export interface ConsoleServerOptions {
  config: ProjectConfig;
  client: EngineClient;
  logger: Logger;
  port: number;
  host?: string;
}

export interface ConsoleServer {
  url: string;
  close(): Promise<void>;
}

/** Paths of the engine's own API: the browser talks to the engine through this server (same origin, no CORS). */
const PROXIED = /^\/(v1|v2|healthz)(\/|$)|^\/v1alpha1\//;
const MAX_BODY = 64 * 1024 * 1024;

/**
 * `engine console`'s server: the console's files, the engine's API proxied, and the project API under
 * /console/api/ through which an edit reaches the project's files before the engine.
 */
export async function startConsoleServer(opts: ConsoleServerOptions): Promise<ConsoleServer> {
  const state = newConsoleState();
  // One edit at a time: each reads the files and the engine's version the previous one left.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  };
  const server = createServer((req, res) => {
    handle({ ...opts, state, serial }, req, res).catch((e: unknown) => sendError(res, e));
  });
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  // Read the files and compare them with the engine once, while the user logs in: the first edit is then as quick as
  // the next ones. A failure here is the first edit's to report.
  void serial(async () => {
    try {
      state.snapshot = currentSnapshot(opts.config, null);
      await inSync(state, opts.client, state.snapshot);
    } catch {
      state.snapshot = null;
    }
  });
  return { url: `http://${host}:${port}/console/`, close: () => closeServer(server) };
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

interface Context extends ConsoleServerOptions {
  state: ConsoleState;
  serial: <T>(work: () => Promise<T>) => Promise<T>;
}

async function handle(opts: Context, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://console');
  const path = url.pathname;
  if (PROXIED.test(path)) return proxy(opts.config.endpoint, req, res);
  if (path.startsWith('/console/api/')) return api(opts, req, res, url);
  if (req.method !== 'GET' && req.method !== 'HEAD') return sendJson(res, 405, { error: 'method not allowed', code: 'method-not-allowed', path: '$' });
  if (path === '/') {
    res.writeHead(302, { location: '/console/' }).end();
    return;
  }
  const asset = consoleAsset(path);
  if (!asset) return sendJson(res, 404, { error: `no such file: ${path}`, code: 'not-found', path: '$' });
  res.writeHead(200, {
    'content-type': asset.type, 'cache-control': asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    'content-security-policy': CONSOLE_CSP,
  });
  res.end(req.method === 'HEAD' ? undefined : asset.body);
}

async function api(opts: Context, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const route = url.pathname.slice('/console/api/'.length);
  if (route === 'info') return sendJson(res, 200, { mode: 'project', endpoint: opts.config.endpoint });
  if (!authorized(opts.config.adminSecret, req.headers['x-engine-admin-secret'])) {
    return sendJson(res, 401, { error: 'invalid or missing x-engine-admin-secret', code: 'access-denied', path: '$' });
  }
  if (route === 'tables' && req.method === 'GET') {
    const metadata = await engineDocument(opts.state, opts.client);
    const num = (name: string, fallback: number, most: number) => Math.min(most, Math.max(0, Number(url.searchParams.get(name) ?? fallback) || 0));
    return sendJson(res, 200, tablePage(metadata, url.searchParams.get('search') ?? '', num('offset', 0, Number.MAX_SAFE_INTEGER), num('limit', 50, 500)));
  }
  if (route === 'permission' && req.method === 'GET') {
    const p = (k: string) => url.searchParams.get(k) ?? '';
    const metadata = await engineDocument(opts.state, opts.client);
    return sendJson(res, 200, { permission: permissionOf(metadata, p('schema'), p('name'), p('role'), p('type') as PermissionType) });
  }
  if (route === 'permission' && req.method === 'POST') {
    const body = JSON.parse((await readBody(req)).toString('utf8') || 'null') as unknown;
    const flag = (name: string) => typeof body === 'object' && body !== null && (body as Record<string, unknown>)[name] === true;
    const dryRun = flag('dry_run');
    const edit = parseEdit(body);
    if (flag('preview')) {
      const p = await opts.serial(() => previewPermission(opts.state, opts.config, opts.client, edit));
      return sendJson(res, 200, { ok: true, preview: true, files: p.files, changes: p.changes, in_sync: p.inSync });
    }
    const result = await opts.serial(() => editPermission(opts.state, opts.config, opts.client, edit, dryRun));
    const how = result.wholeProject ? ' (the whole project: the engine differed from the files)' : '';
    opts.logger.info(dryRun ? `console: permission checked${how}` : `console: permission written to ${result.written.join(', ') || 'no file'} and applied${how}`);
    return sendJson(res, 200, { ok: true, dry_run: dryRun, written: result.written, applied: result.applied, inconsistent: result.inconsistent, whole_project: result.wholeProject });
  }
  if (route === 'diff' && req.method === 'GET') {
    const d = await opts.serial(() => projectDiff(opts.state, opts.config, opts.client));
    return sendJson(res, 200, { in_sync: d.changes.length === 0, changes: d.changes, text: d.text });
  }
  if (route === 'migration' && req.method === 'POST') {
    const edit = parseSchemaEdit(JSON.parse((await readBody(req)).toString('utf8') || 'null') as unknown);
    const r = await opts.serial(() => applySchemaEdit(opts.state, opts.config, opts.client, edit));
    opts.logger.info(`console: migration ${r.directory} written and applied`);
    return sendJson(res, 200, { ok: true, version: r.version, directory: r.directory, metadata_written: r.metadata, metadata_not_written: r.metadataNotWritten });
  }
  return sendJson(res, 404, { error: `no such console API: ${req.method ?? ''} ${url.pathname}`, code: 'not-found', path: '$' });
}

function authorized(secret: string | undefined, given: string | string[] | undefined): boolean {
  if (secret === undefined) return true;
  if (typeof given !== 'string') return false;
  const a = Buffer.from(secret);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

const HOP_BY_HOP = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'content-length', 'accept-encoding']);

async function proxy(endpoint: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && !HOP_BY_HOP.has(k)) headers[k] = v;
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  let answer: Response;
  try {
    answer = await fetch(`${endpoint}${req.url ?? '/'}`, { method: req.method ?? 'GET', headers, ...(hasBody ? { body: await readBody(req) } : {}), redirect: 'manual' });
  } catch (e) {
    return sendJson(res, 502, { error: `the engine at ${endpoint} cannot be reached: ${(e as Error).message}`, code: 'engine-unreachable', path: '$' });
  }
  const out: Record<string, string> = {};
  answer.headers.forEach((v, k) => {
    if (!HOP_BY_HOP.has(k) && k !== 'content-encoding') out[k] = v;
  });
  res.writeHead(answer.status, out);
  res.end(Buffer.from(await answer.arrayBuffer()));
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) req.destroy(new Error('request body too large'));
      else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }).end(JSON.stringify(body));
}

/** Errors in the one shape of the engine's API (error, code, path, hint); an edit the engine refused names its objects. */
function sendError(res: ServerResponse, e: unknown): void {
  if (e instanceof ApplyRejectedError) {
    return sendJson(res, 400, { error: e.message, code: e.code, path: e.engineError.path, objects: e.objects.map((o) => ({ kind: o.kind, name: o.name, reason: o.reason })) });
  }
  if (e instanceof SyntaxError) return sendJson(res, 400, { error: `invalid JSON: ${e.message}`, code: 'invalid-json', path: '$' });
  if (e instanceof EngineError) {
    const { path, hint, line, column } = e.location;
    return sendJson(res, 400, { error: e.message, code: e.code, path: path ?? '$', ...(hint ? { hint } : {}), ...(line === undefined ? {} : { line, column }) });
  }
  sendJson(res, 500, { error: (e as Error).message, code: 'unexpected', path: '$' });
}
