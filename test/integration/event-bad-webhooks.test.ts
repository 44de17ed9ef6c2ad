import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useTestEngine } from '../helpers/engine.js';
import { eventRows, invocations, startProcessor, useProcessors } from '../helpers/events.js';
import { eventually, startWebhook, type Webhook } from '../helpers/webhook.js';
import { MAX_LOGGED_BODY } from '../../src/server/workers/event-delivery.js';

// Webhooks that misbehave (issue 15, "Bad input"): each attempt is recorded with what happened, the event reaches
// its state, and the processor goes on delivering (a healthy trigger's event after each case proves it).

const e = useTestEngine({ setup: async () => {
  await e.sql('create table item (id int primary key)');
  await e.ok({ type: 'track_table', args: 'item' });
} });
useProcessors();

let bad: Webhook;
let good: Webhook;
beforeEach(async () => {
  bad = await startWebhook();
  good = await startWebhook();
});
afterEach(async () => {
  await bad.close();
  await good.close();
});

const trigger = (name: string, args: Record<string, unknown>) =>
  e.ok({ type: 'create_event_trigger', args: { name, table: 'item', enable_manual: true, retry_conf: { num_retries: 0, timeout_sec: 1 }, ...args } });

/** Invokes `bad_one` once and waits for its final state, then checks a healthy trigger is still served. */
async function outcome(env: Record<string, string | undefined> = {}) {
  await trigger('healthy', { webhook: good.url });
  await startProcessor(e, { env });
  const { event_id } = await e.ok({ type: 'invoke_event_trigger', args: { name: 'bad_one', payload: {} } });
  const row = await eventually(async () => {
    const r = (await eventRows(e)).find((x) => x.id === event_id);
    return r && (r.delivered || r.error) ? r : undefined;
  }, 10_000, 'the final state');
  await e.ok({ type: 'invoke_event_trigger', args: { name: 'healthy', payload: {} } });
  await eventually(() => good.received.length === 1, 10_000, 'the healthy trigger served afterwards');
  const [log] = await invocations(e, event_id);
  return { row, log };
}

const clientError = (message: string) => ({ type: 'client_error', data: { message } });

describe('misbehaving webhooks', () => {
  it('a redirect is not followed: a 3xx is a failed attempt', async () => {
    bad.handler = (_, res) => {
      res.writeHead(307, { Location: `${good.url}/elsewhere` });
      res.end();
    };
    await trigger('bad_one', { webhook: bad.url });
    const { row, log } = await outcome();
    expect(row).toMatchObject({ delivered: false, error: true, tries: 1 });
    expect(log?.status).toBe(307);
    expect(good.received.map((r) => r.body.trigger.name)).toEqual(['healthy']);
  });

  it('a 50 MB answer: judged by its status, the body recorded up to 64 KiB and the rest never read', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 'x');
    let written = 0;
    bad.handler = (_, res) => {
      res.writeHead(200, { 'Content-Length': String(50 * chunk.length) });
      const more = (): void => {
        while (written < 50) {
          written++;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end();
      };
      more();
    };
    await trigger('bad_one', { webhook: bad.url });
    const { row, log } = await outcome();
    expect(row).toMatchObject({ delivered: true, error: false, tries: 1 });
    expect(log?.status).toBe(200);
    expect(log?.response.data.body).toBe('x'.repeat(MAX_LOGGED_BODY));
    expect(written).toBeLessThan(50);
  });

  it('a connection reset before any answer is a client_error', async () => {
    bad.handler = (_, res) => void res.socket?.destroy();
    await trigger('bad_one', { webhook: bad.url });
    const { row, log } = await outcome();
    expect(row).toMatchObject({ delivered: false, error: true, tries: 1 });
    expect([log?.status, log?.response]).toEqual([null, clientError('connection reset')]);
  });

  it('a webhook that never answers times out after timeout_sec', async () => {
    bad.handler = () => undefined;
    await trigger('bad_one', { webhook: bad.url });
    const { row, log } = await outcome();
    expect(row).toMatchObject({ error: true, tries: 1 });
    expect(log?.response).toEqual(clientError('request timed out after 1 seconds'));
  });

  it('the timeout covers the body: headers at once, then a body that never ends', async () => {
    bad.handler = (_, res) => {
      res.writeHead(200);
      res.write('partial');
    };
    await trigger('bad_one', { webhook: bad.url });
    const { row, log } = await outcome();
    expect(row).toMatchObject({ delivered: false, error: true, tries: 1 });
    expect([log?.status, log?.response]).toEqual([null, clientError('request timed out after 1 seconds')]);
  });

  it('the timeout covers connecting: a TLS handshake that never completes fails at timeout_sec, not at the connect timeout', async () => {
    // A TCP server that never speaks: the https connection stays in its handshake.
    const open = new Set<Socket>();
    const silent: Server = createServer((sock) => {
      open.add(sock);
      sock.on('close', () => open.delete(sock));
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    try {
      await trigger('bad_one', { webhook: `https://127.0.0.1:${(silent.address() as { port: number }).port}/hook` });
      const { row, log } = await outcome();
      expect(row).toMatchObject({ error: true, tries: 1 });
      expect(log?.response).toEqual(clientError('request timed out after 1 seconds'));
      // Recorded while the handshake was still waiting (undici gives a connection up after 10 s).
      expect(open.size).toBe(1);
    } finally {
      for (const sock of open) sock.destroy();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });

  it('a refused connection is a client_error', async () => {
    const closed: Server = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((r) => closed.close(() => r()));
    await trigger('bad_one', { webhook: `http://127.0.0.1:${port}/hook` });
    const { log } = await outcome();
    expect(log?.response).toEqual(clientError('connection refused'));
  });

  it.each([['ftp://127.0.0.1/hook'], ['file:///etc/passwd'], ['not a url']])('a URL resolving to %j is never called', async (url) => {
    await trigger('bad_one', { webhook: '{{HOOK}}' });
    const { row, log } = await outcome({ HOOK: url });
    expect(row).toMatchObject({ delivered: false, error: true, tries: 1 });
    expect([log?.status, log?.request.headers, log?.response]).toEqual([null, [], clientError('the resolved URL is not an http or https URL')]);
  });

  it('the first unset variable is named: template, then webhook_from_env, then headers in order', async () => {
    await trigger('bad_one', { webhook: '{{A}}/x/{{B}}', headers: [{ name: 'h', value_from_env: 'C' }] });
    const { log } = await outcome({ B: 'b' });
    expect(log?.response).toEqual(clientError('environment variable "A" is not set'));
    expect(bad.received).toHaveLength(0);
  });

  it('a header value a request cannot carry is a client_error, not a crash', async () => {
    await trigger('bad_one', { webhook: bad.url, headers: [{ name: 'x-bad', value_from_env: 'BAD' }] });
    const { row, log } = await outcome({ BAD: 'line\r\nbreak' });
    expect(row).toMatchObject({ delivered: false, error: true, tries: 1 });
    expect(log?.status).toBeNull();
    expect(log?.response.type).toBe('client_error');
    expect(bad.received).toHaveLength(0);
  });

  it('an answer with NUL bytes is recorded (jsonb cannot hold U+0000)', async () => {
    bad.handler = (_, res) => void res.end(Buffer.from([0x61, 0x00, 0x62]));
    await trigger('bad_one', { webhook: bad.url });
    const { row, log } = await outcome();
    expect(row).toMatchObject({ delivered: true, tries: 1 });
    expect(log?.response.data.body).toBe('a\ufffdb');
  });

  it('event rows written by hand with a payload that is not an object are delivered with null fields', async () => {
    await trigger('bad_one', { webhook: bad.url });
    await startProcessor(e);
    await e.db.query(`INSERT INTO engine_catalog.event_log (schema_name, table_name, trigger_name, payload)
      VALUES ('public', 'item', 'bad_one', 'null'::jsonb), ('public', 'item', 'bad_one', '"text"'::jsonb)`);
    await eventually(async () => (await eventRows(e)).filter((r) => r.delivered).length === 2, 10_000, 'both delivered');
    expect(bad.received.map((r) => r.body.event)).toEqual([0, 1].map(() => ({ op: null, data: null, session_variables: null })));
  });
});
