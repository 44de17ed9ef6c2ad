import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonDestination, jsonString, LineChunks, StructuredLog } from '../../src/server/http/logs.js';
import { HttpApp } from '../../src/server/http/router.js';
import { milliseconds } from '../../src/server/http/http-log.js';

// Issue 31's cheaper log line: values written as JSON text without a serializer where they need no escape, lines
// gathered into chunks, response hooks run at the answer. Each part against what JSON.parse and a real socket say.

/** The lines `emit` writes through a file destination, parsed, once flushed. */
async function linesWritten(emit: (log: StructuredLog) => void): Promise<{ level: string; type: string; detail: Record<string, unknown> }[]> {
  const dir = mkdtempSync(join(tmpdir(), 'log-lines-'));
  const file = join(dir, 'out.log');
  const fd = openSync(file, 'w');
  try {
    const log = new StructuredLog({ format: 'json', types: ['http-log'], stream: jsonDestination(fd) });
    emit(log);
    await log.flush();
    return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { level: string; type: string; detail: Record<string, unknown> });
  } finally {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('jsonString', () => {
  it.each(['plain-id_1', '/v1/graphql', '', 'a"b', 'back\\slash', 'line\nbreak', 'tab\there', '\u0000nul', 'del\u007f', 'héllo', 'emoji 😀', 'lone \ud800'])('%j round-trips through JSON.parse', (v) => {
    const s = jsonString(v);
    expect(JSON.parse(s)).toBe(v);
    expect(s).toBe(JSON.stringify(v));
  });
});

describe('StructuredLog lines', () => {
  it('a detail JSON.stringify refuses still gives a line: a BigInt as text, a cycle as what went wrong', () => {
    const lines: string[] = [];
    const log = new StructuredLog({ format: 'json', types: ['query-log'], stream: { write: (s: string) => void lines.push(s) } });
    log.emit('info', 'query-log', { n: 12n });
    const cycle: Record<string, unknown> = {};
    cycle['self'] = cycle;
    log.emit('info', 'query-log', cycle);
    const parsed = lines.map((l) => JSON.parse(l) as { detail: Record<string, unknown> });
    expect(parsed[0]?.detail).toEqual({ n: '12' });
    expect(parsed[1]?.detail['unserializable']).toMatch(/circular/i);
  });

  it('the file destination gathers lines into chunks and writes them all by flush, one line each', async () => {
    const lines = await linesWritten((log) => {
      for (let i = 0; i < 500; i++) log.emitJson('info', 'http-log', `{"i":${i},"path":${jsonString(`/p"${i}`)}}`);
    });
    expect(lines.map((l) => l.detail['i'])).toEqual(Array.from({ length: 500 }, (_, i) => i));
    expect(lines[7]).toMatchObject({ level: 'info', type: 'http-log', detail: { path: '/p"7' } });
  });
});

describe('the chunked destination', () => {
  it('writes text beyond ASCII as UTF-8, a chunk of multi-byte lines whole', async () => {
    const values = ['héllo', 'emoji 😀', '日本語'.repeat(500), 'lone \ud800'];
    const lines = await linesWritten((log) => {
      for (const v of values) log.emitJson('info', 'http-log', `{"v":${JSON.stringify(v)}}`);
    });
    expect(lines.map((l) => l.detail['v'])).toEqual(values);
  });

  it('a reader gone (EPIPE) loses the lines, not the caller: writes and flush go on without throwing (pino drops them)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'log-lines-'));
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const fd = openSync(fifo, 'w');
    closeSync(reader);
    try {
      const log = new StructuredLog({ format: 'json', types: ['http-log'], stream: jsonDestination(fd) });
      await log.flush(); // pino loaded: the writes below reach the pipe
      for (let i = 0; i < 200; i++) log.emitJson('info', 'http-log', `{"i":${i}}`);
      await expect(log.flush()).resolves.toBeUndefined();
    } finally {
      closeSync(fd);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a failing destination (ENOSPC: /dev/full) loses the lines, not the caller', async () => {
    const fd = openSync('/dev/full', 'w');
    try {
      const log = new StructuredLog({ format: 'json', types: ['http-log'], stream: jsonDestination(fd) });
      await log.flush();
      for (let i = 0; i < 200; i++) log.emitJson('info', 'http-log', `{"i":${i}}`);
      await expect(log.flush()).resolves.toBeUndefined();
    } finally {
      closeSync(fd);
    }
  });

  it('a destination that failed to load: flush reports why, and lines written meanwhile are not written anywhere', async () => {
    const chunks = new LineChunks(Promise.reject(new Error('no pino here')));
    chunks.write('{"a":1}\n');
    const err = await new Promise<Error | undefined>((resolve) => chunks.flush(resolve));
    expect(err?.message).toBe('no pino here');
  });

  it('a sink without flush (a plain stream) gets the chunk at flush', async () => {
    const got: string[] = [];
    const chunks = new LineChunks(Promise.resolve({ write: (b: Buffer) => got.push(b.toString('utf8')) > 0 }));
    chunks.write('{"a":1}\n');
    chunks.write('{"b":2}\n');
    await new Promise<Error | undefined>((resolve) => chunks.flush(resolve));
    expect(got).toEqual(['{"a":1}\n{"b":2}\n']);
  });
});

describe('response hooks', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
    server = undefined;
  });

  it('run once per request: at send, and for an answer written to the raw response, at its finish', async () => {
    const seen: string[] = [];
    const app = new HttpApp();
    app.onResponse((request, reply) => void seen.push(`${request.url} ${reply.statusCode}`));
    app.get('/sent', async (_request, reply) => {
      reply.code(201).send('ok');
      reply.send('twice');
    });
    app.get('/raw', (_request, reply) => {
      reply.statusCode = 202;
      setImmediate(() => reply.raw.writeHead(202).end('raw'));
    });
    app.get('/throws', () => {
      throw new Error('boom');
    });
    // A handler whose promise rejects after a tick: the error handler answers, and the hooks still run once.
    const errors: string[] = [];
    app.setErrorHandler((e, _request, reply) => {
      errors.push(e instanceof Error ? e.message : String(e));
      if (!reply.sent) reply.code(500).send();
    });
    app.get('/rejects', async () => {
      await new Promise((r) => setImmediate(r));
      throw new Error('later');
    });
    server = createServer(app.handle);
    await new Promise<void>((r) => server?.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    expect((await fetch(`${base}/sent`)).status).toBe(201);
    expect(await (await fetch(`${base}/raw`)).text()).toBe('raw');
    expect((await fetch(`${base}/throws`)).status).toBe(500);
    expect((await fetch(`${base}/rejects`)).status).toBe(500);
    expect((await fetch(`${base}/none`)).status).toBe(404);
    const deadline = Date.now() + 5000;
    while (seen.length < 5 && Date.now() < deadline) await new Promise((r) => setImmediate(r));
    expect(seen.sort()).toEqual(['/none 404', '/raw 202', '/rejects 500', '/sent 201', '/throws 500']);
    expect(errors).toEqual(['boom', 'later']);
  });
});

describe('the timestamp', () => {
  it.each(['2026-11-28T11:47:11.005Z', '2026-11-28T11:47:11.050Z', '2026-11-28T11:47:11.999Z', '2026-11-28T11:47:12.000Z', '2027-01-01T00:00:00.001Z'])('%s', (iso) => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(new Date(iso));
      const lines: string[] = [];
      new StructuredLog({ format: 'json', types: ['http-log'], stream: { write: (s: string) => void lines.push(s) } }).emitJson('info', 'http-log', '{}');
      expect((JSON.parse(lines[0] as string) as { timestamp: string }).timestamp).toBe(iso);
    } finally {
      vi.useRealTimers();
    }
  });

  it('is the ISO time of the line, milliseconds included', () => {
    const lines: string[] = [];
    const log = new StructuredLog({ format: 'json', types: ['http-log'], stream: { write: (s: string) => void lines.push(s) } });
    for (let i = 0; i < 50; i++) {
      const before = Date.now();
      log.emitJson('info', 'http-log', '{}');
      const after = Date.now();
      const t = (JSON.parse(lines[i] as string) as { timestamp: string }).timestamp;
      expect(t).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(Date.parse(t)).toBeGreaterThanOrEqual(before);
      expect(Date.parse(t)).toBeLessThanOrEqual(after);
    }
  });
});

describe('duration_ms', () => {
  it('to the microsecond, rounded, as a JSON number', () => {
    const cases: [number, string][] = [[0, '0.000'], [1.2345, '1.235'], [12.0004, '12.000'], [0.05, '0.050'], [1500.25, '1500.250'], [0.0005, '0.001'], [999.9996, '1000.000']];
    for (const [ms, text] of cases) {
      expect(milliseconds(ms)).toBe(text);
      expect(Math.abs(JSON.parse(milliseconds(ms)) - ms)).toBeLessThanOrEqual(0.0005 + 1e-9);
    }
  });
});
