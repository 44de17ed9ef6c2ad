/**
 * End-to-end: `engine --version`, `engine` alone (help) and `engine version` against no engine, an unreadable project
 * config and a server of the test's own (cli.md §3.6), with the real bin.
 */
import { writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from './cli-helpers.js';
import { cleanups, finished, freePort, run, stopAll } from './process-helpers.js';

afterEach(stopAll);

describe('engine: version and help', () => {
  it('--version prints only the CLI version', async () => {
    const p = run(['--version'], await tempDir());
    expect(await finished(p)).toBe(0);
    expect(p.out()).toBe('0.1.0\n');
    expect(p.err()).toBe('');
  });

  it('engine alone prints the top-level help, exit 0', async () => {
    const p = run([], await tempDir());
    expect(await finished(p)).toBe(0);
    expect(p.out()).toMatch(/^Usage: engine /);
    expect(p.out()).toMatch(/^\s+serve\b/m);
    expect(p.out()).toMatch(/^\s+version\b/m);
    expect(p.err()).toBe('');
  });

  it('engine version with nothing listening: server unavailable after the retries, exit 0 (text and JSON)', async () => {
    const cwd = await tempDir();
    const endpoint = `http://127.0.0.1:${await freePort()}`;
    const message = `cannot connect to the engine at ${endpoint} (connection refused)`;
    const t = run(['version', '--endpoint', endpoint], cwd);
    const j = run(['version', '--endpoint', endpoint, '-o', 'json'], cwd);
    expect(await finished(t)).toBe(0);
    expect(t.out()).toBe(`cli: 0.1.0\nserver: unavailable (${message})\n`);
    expect(await finished(j)).toBe(0);
    expect(JSON.parse(j.out())).toEqual({ ok: true, cli: '0.1.0', server: null, endpoint, server_error: { code: 'network-error', message }, warnings: [] });
  });

  it('engine version in a project whose config cannot be read: server unavailable with the reason, exit 0', async () => {
    const cwd = await tempDir();
    writeFileSync(join(cwd, 'config.yaml'), 'version: 2\nendpoint: ${QUICK_UNSET_ENDPOINT}\n');
    const t = run(['version'], cwd);
    const j = run(['version', '-o', 'json'], cwd);
    expect(await finished(t)).toBe(0);
    expect(t.out()).toMatch(/^cli: 0\.1\.0\nserver: unavailable \(.*QUICK_UNSET_ENDPOINT.*\)\n$/);
    expect(await finished(j)).toBe(0);
    const doc = JSON.parse(j.out()) as { server: unknown; endpoint: unknown; server_error: { code: string } };
    expect(doc).toMatchObject({ ok: true, cli: '0.1.0', server: null, endpoint: null });
    expect(doc.server_error.code).toBe('env-var-missing');
  });

  it('engine version retries GET /v1/version after a 503 (cli.md §3.6)', async () => {
    let hits = 0;
    const http = createHttpServer((req, res) => {
      hits++;
      if (req.url !== '/v1/version') res.writeHead(404).end();
      else if (hits === 1) res.writeHead(503, { 'content-type': 'text/plain' }).end('busy');
      else res.writeHead(200, { 'content-type': 'application/json', 'x-engine-version': '9.9.9' }).end('{"version":"9.9.9"}');
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', () => resolve()));
    cleanups.push(() => new Promise<void>((resolve) => http.close(() => resolve())));
    const endpoint = `http://127.0.0.1:${(http.address() as { port: number }).port}`;
    const p = run(['version', '--endpoint', endpoint], await tempDir());
    expect(await finished(p)).toBe(0);
    expect(p.out()).toBe(`cli: 0.1.0\nserver: 9.9.9 (${endpoint})\n`);
    expect(hits).toBe(2);
  });
});
