import { describe, expect, it } from 'vitest';
import { useTestEngine } from '../helpers/engine.js';
import { err, exported, fails, write } from '../helpers/assertions.js';

// Issue 11 items 4 and 5: strings PostgreSQL cannot store, and names that are members of Object.prototype.
// Bodies are raw JSON text: `\u0000`, lone surrogates and own `__proto__` keys must reach the server as written.

const e = useTestEngine({
  setup: async (t) => {
    await t.sql('CREATE TABLE author (id int PRIMARY KEY, name text, "__proto__" int, "constructor" text); CREATE TABLE book (id int PRIMARY KEY, "__proto__" int)');
    await t.ok({ type: 'track_table', args: { table: 'author' } });
    await t.ok({ type: 'track_table', args: { table: 'book' } });
  },
});

const NUL = 'a NUL character (\\u0000)';
const cannotStore = (path: string, what: string, key = false) =>
  err(path, `${key ? 'object key' : 'string'} contains ${what}, which PostgreSQL cannot store`, 'parse-failed');
const selectPerm = (role: string, filter: string) =>
  `{"type":"create_select_permission","args":{"table":"author","role":${role},"permission":{"columns":"*","filter":${filter}}}}`;

describe('NUL and lone surrogates (item 4): 400 parse-failed at their path, nothing changed', () => {
  it.each([
    ['role', selectPerm('"u\\u0000"', '{}'), '$.args.role', NUL],
    ['role, lone high surrogate', selectPerm('"u\\ud800"', '{}'), '$.args.role', 'a lone surrogate (\\ud800)'],
    ['role, lone low surrogate', selectPerm('"\\udfffx"', '{}'), '$.args.role', 'a lone surrogate (\\udfff)'],
    ['role, pair in the wrong order', selectPerm('"\\udc00\\ud800"', '{}'), '$.args.role', 'a lone surrogate (\\udc00)'],
    ['filter value', selectPerm('"u"', '{"name":{"_in":["ok","b\\u0000"]}}'), '$.args.permission.filter.name._in[1]', NUL],
    ['comment', '{"type":"track_table","args":{"table":"book","configuration":{"comment":"\\u0000"}}}', '$.args.configuration.comment', NUL],
    ['table name', '{"type":"untrack_table","args":{"table":{"schema":"public","name":"bo\\ud83dok"}}}', '$.args.table.name', 'a lone surrogate (\\ud83d)'],
    ['payload', '{"type":"invoke_event_trigger","args":{"name":"t","payload":{"deep":[{"x":"\\u0000"}]}}}', '$.args.payload.deep[0].x', NUL],
    ['description', '{"type":"set_custom_types","args":{"scalars":[{"name":"D","description":"\\ud800"}]}}', '$.args.scalars[0].description', 'a lone surrogate (\\ud800)'],
    ['run_sql text', '{"type":"run_sql","args":{"sql":"select \'\\u0000\'"}}', '$.args.sql', NUL],
    ['inside bulk', '{"type":"bulk","args":[{"type":"export_metadata","args":{}},{"type":"track_table","args":{"table":"x\\u0000"}}]}', '$.args[1].args.table', NUL],
    ['the type itself', '{"type":"track_table\\u0000","args":{}}', '$.type', NUL],
    ['a key needing quotes in the path', '{"type":"export_metadata","args":{},"a b":{"it\'s":"\\u0000"}}', "$['a b']['it\\'s']", NUL],
  ])('%s', async (_what, body, path, what) => {
    await fails(e, body, 400, cannotStore(path, what));
  });

  it('an object key is reported at the object holding it', async () => {
    await fails(e, selectPerm('"u"', '{"na\\u0000me":{"_eq":1}}'), 400, cannotStore('$.args.permission.filter', NUL, true));
    await fails(e, '{"type":"export_metadata","args":{"\\udbff":1}}', 400, cannotStore('$.args', 'a lone surrogate (\\udbff)', true));
  });

  it('the first offending string in document order wins', async () => {
    const body = '{"type":"bulk","args":[{"type":"track_table","args":{"table":"\\ud800","x":"\\u0000"}},{"type":"x\\u0000"}]}';
    await fails(e, body, 400, cannotStore('$.args[0].args.table', 'a lone surrogate (\\ud800)'));
  });

  it('applies to every caller, before the role check (it is part of reading the body)', async () => {
    await fails(e, selectPerm('"u\\u0000"', '{}'), 400, cannotStore('$.args.role', NUL), { 'x-engine-role': 'user' });
  });

  it('valid pairs, other control characters and invalid UTF-8 bytes (read as U+FFFD) are stored', async () => {
    await write(e, selectPerm('"\\ud83d\\ude00\\u0001"', '{"name":{"_eq":"\\u001f\\ud83d\\ude00"}}'));
    const comment = Buffer.concat([Buffer.from('{"type":"set_permission_comment","args":{"table":"author","role":"\\ud83d\\ude00\\u0001","type":"select","comment":"a'),
      Buffer.from([0xff, 0xed, 0xa0, 0x80]), Buffer.from('"}}')]);
    const r = await fetch(`${e.url}/v1/query`, { method: 'POST', body: comment });
    expect(r.status).toBe(200);
    const text = (await exported(e)).text;
    expect(text).toContain('"role":"😀\\u0001"');
    expect(text).toContain('"filter":{"name":{"_eq":"\\u001f😀"}}');
    expect(JSON.parse(text).tables[0].select_permissions[0].comment).toBe('a\ufffd\ufffd\ufffd\ufffd');
  });
});

const PROTO = ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', '__defineGetter__'];

describe('Object.prototype member names (item 5)', () => {
  it.each(PROTO)('type "%s" is an unknown operation, at the top level and inside bulk', async (name) => {
    const unknown = (path: string) => err(path, `unknown operation type "${name}"`, 'parse-failed');
    await fails(e, { type: name, args: {} }, 400, unknown('$.type'));
    await fails(e, `{"type":"bulk","args":[{"type":"export_metadata","args":{}},{"type":"${name}","args":{}}]}`, 400, unknown('$.args[1].type'));
    await fails(e, { type: 'bulk', args: [{ type: 'bulk', args: [{ type: name, args: [] }] }] }, 400, unknown('$.args[0].args[0].type'));
    await fails(e, { type: name, args: {} }, 400, unknown('$.type'), { 'x-engine-role': 'user' });
  });

  it.each(['constructor', '__proto__', 'toString', '$valueOf'])('filter operator "%s" is an unknown operator', async (op) => {
    const r = await e.query(selectPerm('"u"', `{"id":{"${op}":1}}`));
    expect(r.status).toBe(400);
    expect(r.body.error).toBe(`in table "author": in permission for role "u": unknown operator "${op}" for column "id"`);
    expect(r.body.internal[0].definition.permission.filter).toEqual(JSON.parse(`{"id":{"${op}":1}}`));
  });

  it('a filter key "__proto__" is kept wherever the definition is echoed: create → export → reload → export', async () => {
    await write(e, selectPerm('"__proto__"', '{"__proto__":{"_eq":1},"constructor":{"_eq":"x"},"_not":{"__proto__":{"_is_null":true}}}'));
    await write(e, '{"type":"create_insert_permission","args":{"table":"author","role":"toString","permission":{"columns":"*","check":{"__proto__":{"_gt":0}},"set":{"__proto__":"x-engine-n"}}}}');
    await write(e, '{"type":"create_object_relationship","args":{"table":"author","name":"book","using":{"manual_configuration":{"remote_table":"book","column_mapping":{"__proto__":"__proto__"}}}}}');
    const expected = '{"version":2,"tables":[{"table":{"schema":"public","name":"author"},' +
      '"object_relationships":[{"name":"book","using":{"manual_configuration":{"remote_table":{"schema":"public","name":"book"},"column_mapping":{"__proto__":"__proto__"}}}}],' +
      '"insert_permissions":[{"role":"toString","permission":{"check":{"__proto__":{"_gt":0}},"set":{"__proto__":"x-engine-n"},"columns":"*"}}],' +
      '"select_permissions":[{"role":"__proto__","permission":{"columns":"*","filter":{"__proto__":{"_eq":1},"_not":{"__proto__":{"_is_null":true}},"constructor":{"_eq":"x"}}}}]},' +
      '{"table":{"schema":"public","name":"book"}}]}';
    expect((await exported(e)).text).toBe(expected);
    await e.engine.refresh();
    expect((await exported(e)).text).toBe(expected);
    // replace_metadata with the exported document is a no-op round trip.
    await e.ok(`{"type":"replace_metadata","args":${expected}}`);
    expect((await exported(e)).text).toBe(expected);
  });

  it('an error echoing a definition keeps its "__proto__" key', async () => {
    const r = await e.query('{"type":"create_select_permission","args":{"table":"book","role":"u","permission":{"columns":"*","filter":{"__proto__":{"_eq":"nope"}}}}}');
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('in table "book": in permission for role "u": invalid value for column "__proto__" of type "integer": "nope"');
    expect(JSON.stringify(r.body.internal[0].definition.permission)).toBe('{"columns":"*","filter":{"__proto__":{"_eq":"nope"}}}');
  });
});

describe('NUL and lone surrogates on /v1/graphql (issue 11 item 4)', () => {
  it('answers a GraphQL parse-failed error at their path', async () => {
    const post = async (raw: string) => {
      const r = await fetch(`${e.url}/v1/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: raw });
      return { status: r.status, body: (await r.json()) as unknown };
    };
    expect(await post('{"query":"{ __typename }","variables":{"x":"a\\u0000b"}}')).toEqual({
      status: 200,
      body: { errors: [{ message: 'string contains a NUL character (\\u0000), which PostgreSQL cannot store', extensions: { path: '$.variables.x', code: 'parse-failed' } }] },
    });
    expect(await post('{"query":"{ __typename \\ud800 }"}')).toEqual({
      status: 200,
      body: { errors: [{ message: 'string contains a lone surrogate (\\ud800), which PostgreSQL cannot store', extensions: { path: '$.query', code: 'parse-failed' } }] },
    });
  });
});
