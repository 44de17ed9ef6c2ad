/**
 * End-to-end: endpoints (issue 19 item 7). An HTTPS endpoint with a self-signed certificate (made by openssl for this
 * test, loopback only) is refused unless `--certificate-authority FILE` trusts it or `--insecure-skip-tls-verify` is
 * given; an endpoint that is not this engine is named as such.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, request as httpRequest, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cli, jsonDoc, show, tempDir, useTestEngine } from './cli-helpers.js';

const e = useTestEngine();
const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

const listen = async (s: Server): Promise<number> => {
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return (s.address() as AddressInfo).port;
};

/** A self-signed certificate for 127.0.0.1, valid one day. */
function certificate(dir: string): { key: string; cert: string; certFile: string } {
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '1',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8'), certFile };
}

/** An HTTPS front of the test engine: every request passed on as it came. */
async function httpsFront(key: string, cert: string): Promise<string> {
  const target = new URL(e.url);
  const s = createHttpsServer({ key, cert }, (req, res) => {
    const p = httpRequest({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    req.pipe(p);
  });
  return `https://127.0.0.1:${await listen(s)}`;
}

describe('HTTPS endpoints', () => {
  it('a self-signed certificate: refused by default, accepted with --certificate-authority or --insecure-skip-tls-verify', async () => {
    const dir = await tempDir();
    const { key, cert, certFile } = certificate(dir);
    const url = await httpsFront(key, cert);

    const refused = await cli(['metadata', 'export', '-o', 'json', '--endpoint', url], { cwd: dir });
    expect(refused.code, show(refused)).toBe(1);
    expect(jsonDoc(refused).error.code).toBe('network-error');
    expect(jsonDoc(refused).error.message).toContain('TLS error');

    for (const flags of [['--certificate-authority', certFile], ['--insecure-skip-tls-verify']]) {
      const r = await cli(['metadata', 'export', '-o', 'json', '--endpoint', url, ...flags], { cwd: dir });
      expect(r.code, show(r)).toBe(0);
      expect(jsonDoc(r)).toEqual({ version: 2, tables: [] });
      const v = await cli(['version', '--endpoint', url, ...flags], { cwd: dir });
      expect(v.stdout).toBe(`cli: 0.1.0\nserver: 0.1.0 (${url})\n`);
    }
    const v = await cli(['version', '--endpoint', url], { cwd: dir });
    expect(v.stdout).toMatch(/^cli: 0\.1\.0\nserver: unavailable \(.*\)\n$/);
    expect(v.stdout).not.toContain('server: 0.1.0');
  });

  it('a missing or non-PEM --certificate-authority file is an error naming it', async () => {
    const dir = await tempDir();
    const missing = await cli(['metadata', 'export', '-o', 'json', '--endpoint', e.url, '--certificate-authority', 'nope.pem'], { cwd: dir });
    expect(missing.code).toBe(1);
    expect(jsonDoc(missing).error).toEqual({ code: 'file-not-found', message: 'certificate authority file "nope.pem" not found' });
  });
});

describe('an endpoint that is not this engine', () => {
  it('another server with a /v1/version (the incumbent) and one without are named as such', async () => {
    const dir = await tempDir();
    const incumbent = await listen(createHttpServer((req, res) => {
      if (req.url === '/v1/version') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"version":"v2.36.0"}');
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"path":"$","error":"resource does not exist","code":"not-found"}');
    }));
    const other = await listen(createHttpServer((_req, res) => void res.writeHead(404).end('Not Found')));

    const a = `http://127.0.0.1:${incumbent}`;
    const va = await cli(['version', '--endpoint', a], { cwd: dir });
    expect(va.stdout).toBe(`cli: 0.1.0\nserver: unavailable (${a} is not this engine (GET /v1/version answered version "v2.36.0" without the X-Engine-Version header: another server, perhaps the incumbent))\n`);
    const ea = await cli(['metadata', 'export', '-o', 'json', '--endpoint', a], { cwd: dir });
    expect(ea.code, show(ea)).toBe(1);
    expect(jsonDoc(ea).error).toMatchObject({ code: 'invalid-response', message: expect.stringContaining(`; ${a} is not this engine (GET /v1/version answered version "v2.36.0"`),
      hint: "set --endpoint (or ENGINE_GRAPHQL_ENDPOINT, or endpoint in config.yaml) to the base URL of an 'engine serve'" });

    const b = `http://127.0.0.1:${other}`;
    const vb = await cli(['version', '--endpoint', b], { cwd: dir });
    expect(vb.stdout).toBe(`cli: 0.1.0\nserver: unavailable (${b} is not this engine (GET /v1/version answered HTTP 404))\n`);
    const eb = await cli(['metadata', 'inconsistency', 'list', '--endpoint', b], { cwd: dir });
    expect(eb.stderr).toContain(`${b} is not this engine (GET /v1/version answered HTTP 404)`);

    // The engine itself is not misnamed.
    const ok = await cli(['version', '--endpoint', e.url], { cwd: dir });
    expect(ok.stdout).toBe(`cli: 0.1.0\nserver: 0.1.0 (${e.url})\n`);
  });
});
