import { describe, expect, it } from 'vitest';
import { post, useTestEngine } from '../helpers/engine.js';
import { fails } from '../helpers/assertions.js';

// engine-api.md §1: routes, request processing order, success headers, error envelope, parse errors.

const e = useTestEngine();

const NOT_FOUND = '{"path":"$","error":"resource does not exist","code":"not-found"}';
const JSON_TYPE = 'application/json; charset=utf-8';

async function raw(method: string, path: string, body?: string | Uint8Array, headers: Record<string, string> = {}) {
  const res = await fetch(`${e.url}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

const pf = (path: string, error: string) => ({ path, error, code: 'parse-failed' });

describe('§1.1 routes', () => {
  it('GET /healthz answers 200 text/plain OK, also with a query string', async () => {
    for (const p of ['/healthz', '/healthz?verbose=1']) {
      const r = await raw('GET', p);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(r.text).toBe('OK');
    }
  });

  it('GET /v1/version answers the package version', async () => {
    for (const p of ['/v1/version', '/v1/version?x=1']) {
      const r = await raw('GET', p);
      expect(r.status).toBe(200);
      expect(r.text).toBe('{"version":"0.1.0"}');
    }
  });

  it.each([
    ['GET', '/v1/query'],
    ['POST', '/v1/query/'],
    ['POST', '/v1/metadata/'],
    ['POST', '/nope'],
    ['GET', '/'],
    ['PUT', '/v1/query'],
    ['DELETE', '/v1/metadata'],
    ['PATCH', '/v1/query'],
    ['POST', '/healthz'],
    ['POST', '/v1/version'],
    ['GET', '/healthz/'],
    ['GET', '/v1/version/'],
    ['POST', '/V1/QUERY'],
    ['POST', '/v1/query/extra'],
    ['POST', '/v1//query'],
    ['GET', '/v1/query?type=export_metadata'],
  ])('%s %s is 404 not-found', async (method, path) => {
    const body = method === 'GET' ? undefined : JSON.stringify({ type: 'export_metadata', args: {} });
    const r = await raw(method, path, body);
    expect(r.status).toBe(404);
    expect(r.text).toBe(NOT_FOUND);
  });

  it('HEAD on a GET route is another method: 404', async () => {
    const r = await raw('HEAD', '/healthz');
    expect(r.status).toBe(404);
  });

  it('a 404 route executes nothing (trailing slash, wrong method)', async () => {
    const before = await e.state();
    const body = JSON.stringify({ type: 'run_sql', args: { sql: 'create table t404 (id int)' } });
    expect((await raw('POST', '/v1/query/', body)).text).toBe(NOT_FOUND);
    expect((await raw('PUT', '/v1/query', body)).text).toBe(NOT_FOUND);
    expect(await e.state()).toEqual(before);
  });

  it('query strings are ignored on POST /v1/query and /v1/metadata', async () => {
    const body = JSON.stringify({ type: 'run_sql', args: { sql: 'select 1 as one' } });
    for (const p of ['/v1/query?a=1&b', '/v1/metadata?x=y']) {
      const r = await raw('POST', p, body);
      expect(r.status).toBe(200);
      expect(JSON.parse(r.text)).toEqual({ result_type: 'TuplesOk', result: [['one'], ['1']] });
    }
  });

  it('/v1/metadata is identical to /v1/query: results, headers, errors', async () => {
    const meta = (body: unknown) => post(`${e.url}/v1/metadata`, body);
    const r1 = await meta({ type: 'run_sql', args: { sql: 'create table author (id serial primary key, name text)' } });
    expect(r1.status).toBe(200);
    expect(r1.text).toBe('{"result_type":"CommandOk","result":null}');
    expect(r1.headers.get('content-type')).toBe(JSON_TYPE);
    const r2 = await meta({ type: 'track_table', args: 'author' });
    expect(r2.text).toBe('{"message":"success"}');
    expect(r2.headers.get('x-engine-resource-version')).toBe('2');
    const q = await e.query({ type: 'export_metadata', args: {} });
    const m = await meta({ type: 'export_metadata', args: {} });
    expect(m.status).toBe(200);
    expect(m.text).toBe(q.text);
    expect(m.text).toBe('{"version":2,"tables":[{"table":{"schema":"public","name":"author"}}]}');
    expect(m.headers.get('x-engine-resource-version')).toBe(q.headers.get('x-engine-resource-version'));
    for (const body of [
      { type: 'track_table', args: 'author' },
      { type: 'nope', args: {} },
      '{"type":',
      { type: 'run_sql', args: { sql: 'select * from missing' } },
    ]) {
      const a = await e.query(body);
      const b = await meta(body);
      expect(a.status).toBeGreaterThanOrEqual(400);
      expect({ status: b.status, text: b.text }).toEqual({ status: a.status, text: a.text });
    }
  });
});

describe('§1.3 success response', () => {
  it('has the JSON content type and the resource version after the request', async () => {
    const r0 = await e.query({ type: 'export_metadata', args: {} });
    expect(r0.status).toBe(200);
    expect(r0.headers.get('content-type')).toBe(JSON_TYPE);
    expect(r0.headers.get('x-engine-resource-version')).toBe('1');
    const r1 = await e.query({ type: 'run_sql', args: { sql: 'create table a (id int)' } });
    expect(r1.headers.get('content-type')).toBe(JSON_TYPE);
    expect(r1.headers.get('x-engine-resource-version')).toBe('1');
    const r2 = await e.query({ type: 'track_table', args: { table: 'a' } });
    expect(r2.headers.get('content-type')).toBe(JSON_TYPE);
    expect(r2.headers.get('x-engine-resource-version')).toBe('2');
    const r3 = await e.query({ type: 'get_inconsistent_metadata', args: {} });
    expect(r3.text).toBe('{"is_consistent":true,"inconsistent_objects":[]}');
    expect(r3.headers.get('x-engine-resource-version')).toBe('2');
  });
});

describe('§1.4 error envelope', () => {
  it('orders keys path, error, code', async () => {
    const r = await fails(e, { type: 'track_table', args: 'nope' }, 400,
      { path: '$.args', error: 'no such table/view exists in postgres : "nope"', code: 'not-exists' });
    expect(r.text).toBe('{"path":"$.args","error":"no such table/view exists in postgres : \\"nope\\"","code":"not-exists"}');
  });

  it('gives an admin caller `internal`, after code, and rolls back the whole script', async () => {
    const sql = 'create table half (id int); select * from nope';
    const r = await fails(e, { type: 'run_sql', args: { sql } }, 400, {
      path: '$.args', error: 'query execution failed', code: 'postgres-error',
      internal: {
        statement: sql, prepared: false, arguments: [],
        error: { exec_status: 'FatalError', message: 'relation "nope" does not exist', status_code: '42P01', description: null, hint: null, position: sql.indexOf('nope') + 1 },
      },
    });
    expect(r.text.startsWith('{"path":"$.args","error":"query execution failed","code":"postgres-error","internal":{')).toBe(true);
  });
});

describe('§1.6 parse errors of the envelope and simple operations', () => {
  it.each<[string, unknown, number, Record<string, unknown>]>([
    ['body not JSON', '{"type":', 400, { path: '$', error: 'request body is not valid JSON', code: 'invalid-json' }],
    ['empty body', '', 400, { path: '$', error: 'request body is not valid JSON', code: 'invalid-json' }],
    ['trailing garbage', '{"type":"export_metadata","args":{}} x', 400, { path: '$', error: 'request body is not valid JSON', code: 'invalid-json' }],
    ['body a string', '"export_metadata"', 400, pf('$', 'expected Object, encountered String')],
    ['body an array', '[{"type":"export_metadata","args":{}}]', 400, pf('$', 'expected Object, encountered Array')],
    ['body null', 'null', 400, pf('$', 'expected Object, encountered Null')],
    ['body a number', '42', 400, pf('$', 'expected Object, encountered Number')],
    ['type missing', { args: {} }, 400, pf('$', 'the key "type" was not present')],
    ['type a number', { type: 5, args: {} }, 400, pf('$.type', 'expected String, encountered Number')],
    ['type an object', { type: {}, args: {} }, 400, pf('$.type', 'expected String, encountered Object')],
    ['type a boolean', { type: true, args: {} }, 400, pf('$.type', 'expected String, encountered Boolean')],
    ['unknown type', { type: 'x', args: {} }, 400, pf('$.type', 'unknown operation type "x"')],
    ['type is case-sensitive', { type: 'Export_Metadata', args: {} }, 400, pf('$.type', 'unknown operation type "Export_Metadata"')],
    ['version 3', { type: 'export_metadata', args: {}, version: 3 }, 400, pf('$.version', 'expected one of 1, 2, encountered 3')],
    ['version "1"', { type: 'export_metadata', args: {}, version: '1' }, 400, pf('$.version', 'expected one of 1, 2, encountered "1"')],
    ['version 1.5', { type: 'export_metadata', args: {}, version: 1.5 }, 400, pf('$.version', 'expected one of 1, 2, encountered 1.5')],
    ['args missing (export_metadata)', { type: 'export_metadata' }, 400, pf('$', 'the key "args" was not present')],
    ['args missing (run_sql)', { type: 'run_sql' }, 400, pf('$', 'the key "args" was not present')],
    ['export_metadata args not an object', { type: 'export_metadata', args: [] }, 400, pf('$.args', 'expected Object, encountered Array')],
    ['track_table {"table": 5}', { type: 'track_table', args: { table: 5 } }, 400, pf('$.args.table', 'expected Object, encountered Number')],
    ['track_table args a number', { type: 'track_table', args: 5 }, 400, pf('$.args', 'expected Object, encountered Number')],
    ['track_table name missing', { type: 'track_table', args: { table: { schema: 'public' } } }, 400, pf('$.args.table', 'the key "name" was not present')],
    ['untrack_table table missing', { type: 'untrack_table', args: {} }, 400, pf('$.args', 'the key "table" was not present')],
    ['run_sql sql: 1', { type: 'run_sql', args: { sql: 1 } }, 400, pf('$.args.sql', 'expected String, encountered Number')],
    ['run_sql sql missing', { type: 'run_sql', args: {} }, 400, pf('$.args', 'the key "sql" was not present')],
    ['run_sql args a string', { type: 'run_sql', args: 'select 1' }, 400, pf('$.args', 'expected Object, encountered String')],
    ['run_sql cascade not boolean', { type: 'run_sql', args: { sql: 'create table x (id int)', cascade: 'yes' } }, 400,
      pf('$.args.cascade', 'expected Boolean, encountered String')],
    ['bulk args an object', { type: 'bulk', args: {} }, 400, pf('$.args', 'expected Array, encountered Object')],
  ])('%s', async (_name, body, status, expected) => {
    await fails(e, body, status, expected);
  });

  it('accepts version 1 and 2', async () => {
    for (const version of [1, 2]) {
      const r = await e.query({ type: 'export_metadata', args: {}, version });
      expect({ version, status: r.status, text: r.text }).toEqual({ version, status: 200, text: '{"version":2,"tables":[]}' });
    }
  });

  it('treats version: null as absent (an optional key given as null is absent)', async () => {
    const r = await e.query({ type: 'export_metadata', args: {}, version: null });
    expect({ status: r.status, text: r.text }).toEqual({ status: 200, text: '{"version":2,"tables":[]}' });
  });

  it('ignores other top-level keys and the Content-Type header; decodes UTF-8', async () => {
    const body = JSON.stringify({ type: 'run_sql', args: { sql: "select 'grüß ☃' as s" }, extra: [1, { x: 2 }] });
    const variants: Record<string, string>[] = [{ 'content-type': 'text/plain' }, { 'content-type': 'application/x-www-form-urlencoded' }, {}];
    for (const headers of variants) {
      const r = await raw('POST', '/v1/query', new TextEncoder().encode(body), headers);
      expect(r.status).toBe(200);
      expect(JSON.parse(r.text)).toEqual({ result_type: 'TuplesOk', result: [['s'], ['grüß ☃']] });
    }
  });
});

describe('§1.2 processing order', () => {
  it('route before JSON: invalid JSON on an unknown route is 404', async () => {
    expect((await raw('POST', '/v1/query/', '{not json')).text).toBe(NOT_FOUND);
  });

  it('JSON before envelope, envelope before role, role before args shape', async () => {
    const user = { 'x-engine-role': 'user' };
    await fails(e, '{bad', 400, { path: '$', error: 'request body is not valid JSON', code: 'invalid-json' }, user);
    await fails(e, { type: 'x', args: {} }, 400, pf('$.type', 'unknown operation type "x"'), user);
    await fails(e, { type: 'export_metadata', args: {}, version: 3 }, 400, pf('$.version', 'expected one of 1, 2, encountered 3'), user);
    const denied = { path: '$.args', error: 'restricted access : admin only', code: 'access-denied' };
    await fails(e, { type: 'run_sql', args: { sql: 1 } }, 400, denied, user);
    await fails(e, { type: 'run_sql' }, 400, denied, user);
  });

  it('args shape before the operation checks', async () => {
    await fails(e, { type: 'untrack_table', args: { table: 'nope', cascade: 'x' } }, 400, pf('$.args.cascade', 'expected Boolean, encountered String'));
    await fails(e, { type: 'create_object_relationship', args: { table: 'nope', name: 'bad name', using: { foreign_key_constraint_on: 'x' } } },
      400, pf('$.args.name', '"bad name" is not a valid GraphQL name'));
    await fails(e, { type: 'create_object_relationship', args: { table: 'nope', name: 'ok', using: { foreign_key_constraint_on: 'x' } } },
      400, { path: '$.args.table', error: 'table "nope" does not exist', code: 'not-exists' });
  });
});

describe('body limits', () => {
  it('a body over 50 MB is 413 parse-failed and the server keeps serving', async () => {
    const big = new Uint8Array(50 * 1024 * 1024 + 1).fill(0x20);
    const r = await raw('POST', '/v1/query', big);
    expect(r.status).toBe(413);
    expect(r.text).toBe('{"path":"$","error":"request body is larger than the limit of 50 MB","code":"parse-failed"}');
    expect((await e.query({ type: 'export_metadata', args: {} })).status).toBe(200);
  });

  it('a body just under 50 MB is accepted', async () => {
    const head = '{"type":"run_sql","args":{"sql":"select 1 as one"},"pad":"';
    const tail = '"}';
    const body = head + 'x'.repeat(50_000_000 - head.length - tail.length) + tail;
    const r = await raw('POST', '/v1/query', body);
    expect(r.status).toBe(200);
    expect(r.text).toBe('{"result_type":"TuplesOk","result":[["one"],["1"]]}');
  });

  it.each([
    ['balanced', '['.repeat(100_000) + ']'.repeat(100_000)],
    ['unbalanced', '['.repeat(100_000)],
    ['inside an object', '{"type":"export_metadata","args":{},"x":' + '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_001)],
  ])('deeply nested JSON (%s) is a clear 400 and the server stays alive', async (_name, body) => {
    const r = await raw('POST', '/v1/query', body);
    expect({ status: r.status, text: r.text }).toEqual({
      status: 400, text: '{"path":"$","error":"request body is nested more than 512 levels deep","code":"parse-failed"}',
    });
    expect((await raw('GET', '/healthz')).text).toBe('OK');
    expect((await e.query({ type: 'export_metadata', args: {} })).status).toBe(200);
  });

  it('moderate nesting and brackets inside strings are fine', async () => {
    const body = JSON.stringify({ type: 'export_metadata', args: {}, x: JSON.parse('['.repeat(200) + ']'.repeat(200)), s: '['.repeat(5000) + '\\"{' });
    const r = await raw('POST', '/v1/query', body);
    expect(r.status).toBe(200);
    expect(r.text).toBe('{"version":2,"tables":[]}');
  });
});
