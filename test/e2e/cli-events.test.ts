/**
 * End-to-end: `engine events list|show|redeliver|invoke` with the real bin against a real engine and a real webhook
 * (issue 15): text and -o json output, exit codes 0 / 1 (engine errors) / 64 (usage).
 */
import { spawn } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, childEnv, cli, jsonDoc, lines, show, tempDir, useTestEngine, type CliResult } from './cli-helpers.js';
import { eventRows, startProcessor, useProcessors } from '../helpers/events.js';
import { eventually, startWebhook, type Webhook } from '../helpers/webhook.js';

const e = useTestEngine();
useProcessors();

let hook: Webhook;
beforeEach(async () => {
  hook = await startWebhook((_, res, n) => {
    res.statusCode = n === 1 ? 500 : 200;
    res.end(n === 1 ? 'first\nsecond line' : 'ok');
  });
  await e.sql('create table item (id int primary key)');
  await e.ok({ type: 'track_table', args: 'item' });
  await e.ok({ type: 'create_event_trigger', args: { name: 'items', table: 'item', webhook: hook.url, insert: { columns: '*' }, retry_conf: { num_retries: 0 } } });
});
afterEach(async () => hook.close());

const run = async (args: string[]): Promise<CliResult> => cli(['--endpoint', e.url, ...args], { cwd: await tempDir() });

/** The CLI with `input` on its stdin. */
async function runWithStdin(args: string[], input: string): Promise<CliResult> {
  const child = spawn(process.execPath, [BIN, '--endpoint', e.url, ...args], { cwd: await tempDir(), env: childEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdin.end(input);
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
}

describe('engine events', () => {
  it('invoke, list, show and redeliver an event (text)', async () => {
    await startProcessor(e);
    const inv = await run(['events', 'invoke', 'items', '--payload', '{"k":1}']);
    expect(inv.code, show(inv)).toBe(0);
    const id = inv.stdout.trim();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await eventually(async () => (await eventRows(e))[0]?.error, 10_000, 'the first attempt');

    const list = await run(['events', 'list']);
    expect(list.code, show(list)).toBe(0);
    const rows = lines(list.stdout);
    expect(rows[0]).toMatch(/^ID {36}TRIGGER {2}OP {6}STATE {2}TRIES {2}CREATED {22}NEXT RETRY$/);
    expect(rows[1]).toMatch(new RegExp(`^${id}  items    MANUAL  error  1      \\S+Z  -$`));

    const shown = await run(['events', 'show', id]);
    expect(shown.code, show(shown)).toBe(0);
    expect(lines(shown.stdout).slice(0, 5)).toEqual([`id:          ${id}`, 'trigger:     items', 'table:       item', 'op:          MANUAL', 'state:       error']);
    expect(shown.stdout).toContain('payload:     {"op":"MANUAL","data":{"new":{"k":1},"old":null},"session_variables":{"x-engine-role":"admin"}}');
    expect(lines(shown.stdout).slice(-2)).toEqual(['ATTEMPT  CREATED                      STATUS  RESULT', expect.stringMatching(/^1 {8}\S+Z {2}500 {5}first$/)]);

    const again = await run(['events', 'redeliver', id]);
    expect([again.code, again.stdout, again.stderr]).toEqual([0, '', `Event ${id} will be delivered again.\n`]);
    await eventually(async () => (await eventRows(e))[0]?.delivered, 10_000, 'the redelivery');
    const json = jsonDoc(await run(['events', 'show', id, '-o', 'json']));
    expect(json.event).toMatchObject({ id, state: 'delivered', tries: 1 });
    expect(json.invocations.map((i: { status: number }) => i.status)).toEqual([500, 200]);
  });

  it('issue 28: no output shows a header value read from the environment, -o json included', async () => {
    const secret = 'sup3r-s3cret-from-env';
    await e.ok({ type: 'create_event_trigger', args: { name: 'secret_items', table: 'item', webhook: hook.url, insert: { columns: '*' },
      headers: [{ name: 'x-plain', value: 'shown' }, { name: 'authorization', value_from_env: 'CLI_EVENTS_SECRET' }], retry_conf: { num_retries: 0 } } });
    await startProcessor(e, { env: { CLI_EVENTS_SECRET: secret } });
    const id = (await run(['events', 'invoke', 'secret_items', '--payload', '{"k":2}'])).stdout.trim();
    await eventually(async () => (await eventRows(e)).find((r) => r.id === id && (r.delivered || r.error)), 10_000, 'the attempt');
    expect(hook.received.at(-1)?.headers['authorization']).toBe(secret);
    const outputs = await Promise.all([['events', 'show', id], ['events', 'show', id, '-o', 'json'], ['events', 'list'], ['events', 'list', '-o', 'json'],
      ['events', 'list', '--scheduled', '-o', 'json']].map(run));
    for (const r of outputs) {
      expect(r.code, show(r)).toBe(0);
      expect(r.stdout + r.stderr).not.toContain(secret);
    }
    const headers = jsonDoc(outputs[1] as CliResult).invocations[0].request.headers;
    expect(headers.slice(0, 2)).toEqual([{ name: 'x-plain', value: 'shown' }, { name: 'authorization', value_from_env: 'CLI_EVENTS_SECRET' }]);
  });

  it('-o json for list, invoke and redeliver; filters; --payload - reads stdin', async () => {
    const inv = await runWithStdin(['events', 'invoke', 'items', '--payload', '-', '-o', 'json'], '{"from":"stdin"}');
    const doc = jsonDoc(inv);
    expect(doc).toEqual({ ok: true, event_id: expect.stringMatching(/^[0-9a-f-]{36}$/), warnings: [] });
    await e.sql('insert into item values (1), (2)');
    const list = jsonDoc(await run(['events', 'list', 'items', '--status', 'pending', '--limit', '2', '-o', 'json']));
    expect(list.events).toHaveLength(2);
    expect(list.events.every((x: { state: string; trigger_name: string }) => x.state === 'pending' && x.trigger_name === 'items')).toBe(true);
    const all = jsonDoc(await run(['events', 'list', '-o', 'json']));
    expect(all.events.map((x: { op: string }) => x.op).sort()).toEqual(['INSERT', 'INSERT', 'MANUAL']);
    expect(all.events.find((x: { op: string }) => x.op === 'MANUAL').payload.data.new).toEqual({ from: 'stdin' });
    const empty = await run(['events', 'list', '--status', 'delivered']);
    expect([empty.code, empty.stdout, empty.stderr]).toEqual([0, '', 'No events.\n']);
    expect(jsonDoc(await run(['events', 'redeliver', doc.event_id, '-o', 'json']))).toEqual({ ok: true, event_id: doc.event_id, warnings: [] });
  });

  it('--status takes the words the STATE column shows: waiting lists exactly the events waiting for a retry (issue 37 item 8)', async () => {
    await e.sql('insert into item values (1), (2), (3)');
    await e.sql(`update engine_catalog.event_log set next_retry_at = now() + interval '1 hour'
      where id = (select id from engine_catalog.event_log order by created_at, id limit 1)`);
    const waiting = await run(['events', 'list', '--status', 'waiting']);
    expect(waiting.code, show(waiting)).toBe(0);
    const rows = lines(waiting.stdout);
    expect(rows, show(waiting)).toHaveLength(2);
    expect(rows[1]).toMatch(/^\S+ {2}items {4}INSERT {2}waiting {2}0 /);
    const json = jsonDoc(await run(['events', 'list', '--status', 'waiting', '-o', 'json']));
    expect(json.events.map((x: { state: string }) => x.state)).toEqual(['waiting']);
    // pending keeps meaning every unfinished event, the waiting one included; processing has none here.
    const pending = jsonDoc(await run(['events', 'list', '--status', 'pending', '-o', 'json']));
    expect(pending.events.map((x: { state: string }) => x.state).sort()).toEqual(['pending', 'pending', 'waiting']);
    const processing = await run(['events', 'list', '--status', 'processing']);
    expect([processing.code, processing.stdout, processing.stderr]).toEqual([0, '', 'No events.\n']);
    const limited = jsonDoc(await run(['events', 'list', '--status', 'pending', '--limit', '1', '-o', 'json']));
    expect(limited.events).toHaveLength(1);
  });

  it.each([
    [['events', 'list', '--status', 'done'], 'invalid value "done" for --status: expected one of pending, processing, waiting, delivered, error, archived, all'],
    [['events', 'list', '--limit', '0'], 'invalid value "0" for --limit: expected an integer from 1 to 1000'],
    [['events', 'list', '--limit', '1001'], 'invalid value "1001" for --limit: expected an integer from 1 to 1000'],
    [['events', 'invoke', 'items'], 'missing required flag --payload'],
    [['events', 'invoke', 'items', '--payload', '{x'], 'invalid value "{x" for --payload: expected JSON'],
    [['events', 'show'], 'missing required argument event-id'],
  ])('usage error %j: exit 64', async (args, message) => {
    const r = await run(args);
    expect(r.code, show(r)).toBe(64);
    expect(r.stdout).toBe('');
    expect(lines(r.stderr)[0]).toContain(message);
    expect(await eventRows(e)).toEqual([]);
  });

  it.each([
    [['events', 'invoke', 'nope', '--payload', '{}'], 'invoke_event_trigger', '$.args.name', 'event trigger "nope" does not exist [not-exists]'],
    [['events', 'list', 'nope'], 'get_event_logs', '$.args.name', 'event trigger "nope" does not exist [not-exists]'],
    [['events', 'show', 'x'], 'get_event_logs', '$.args.event_id', 'expected a UUID, encountered "x" [parse-failed]'],
    [['events', 'redeliver', '00000000-0000-0000-0000-000000000000'], 'redeliver_event', '$.args.event_id',
      'event "00000000-0000-0000-0000-000000000000" does not exist [not-exists]'],
  ])('engine error %j: exit 1, text and json', async (args, operation, path, message) => {
    const r = await run(args);
    expect(r.code, show(r)).toBe(1);
    expect(lines(r.stderr)).toEqual([`error: the engine rejected ${operation}: ${message}`, `  at ${path}`]);
    const j = await run([...args, '-o', 'json']);
    expect(j.code).toBe(1);
    expect(jsonDoc(j)).toEqual({ ok: false, error: { code: 'server-error', message: `the engine rejected ${operation}: ${message}`, path } });
    expect(await eventRows(e)).toEqual([]);
  });
});
