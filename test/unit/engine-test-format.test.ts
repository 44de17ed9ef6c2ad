/**
 * `engine test`'s case files (issue 33 point 1): what parses, every rejection at its file:line:col and path, and the
 * JSON Schema for editors agreeing with the parser on the example project's files and on the rejected shapes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { CliError } from '../../src/errors.js';
import { parseTestFile, sessionFromClaims } from '../../src/project/test/format.js';
import { TEST_FILE_SCHEMA } from '../../src/project/test/json-schema.js';
import { seedSql } from '../../src/project/test/snapshot.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const EXAMPLE_TESTS = join(ROOT, 'examples/quickstart/tests');
const validate = new Ajv({ strict: true, allErrors: true, allowUnionTypes: true }).compile(TEST_FILE_SCHEMA);

function failure(text: string): CliError {
  try {
    parseTestFile('tests/x.test.yaml', text);
  } catch (e) {
    if (e instanceof CliError) return e;
    throw e;
  }
  throw new Error('expected a rejection');
}

const ONE = `cases:
  - name: one
    role: user
    session: {X-Hasura-User-Id: 7, x-engine-org: acme}
    query: "{ article { id } }"
    expect:
      data: {article: []}
`;

describe('parseTestFile', () => {
  it('reads a case with its position, session names lower-cased and x-hasura-* as x-engine-*', () => {
    const f = parseTestFile('tests/x.test.yaml', ONE);
    expect(f.cases).toEqual([{
      name: 'one', role: 'user', session: { 'x-engine-user-id': '7', 'x-engine-org': 'acme' }, query: '{ article { id } }',
      expect: { data: { article: [] } }, file: 'tests/x.test.yaml', line: 2,
    }]);
  });

  it('reads seeds as SQL or rows, and every kind of expectation', () => {
    const f = parseTestFile('t.test.yaml', `seed: "insert into a values (1)"
cases:
  - name: c
    role: r
    seed: {article: [{title: x}], other.t: []}
    query: "mutation { delete_a(where: {}) { affected_rows } }"
    variables: {v: 1}
    operation_name: Op
    expect:
      rows_include: {a: [{id: 1}]}
      rows_exclude: {a.b: [{id: 2}]}
      affected_rows: {delete_a: 0}
      fields_absent: [a.secret]
`);
    expect(f.seed).toEqual({ sql: 'insert into a values (1)' });
    expect(f.cases[0]).toMatchObject({
      seed: { rows: { article: [{ title: 'x' }], 'other.t': [] } }, variables: { v: 1 }, operationName: 'Op',
      expect: { rowsInclude: { a: [{ id: 1 }] }, rowsExclude: { 'a.b': [{ id: 2 }] }, affectedRows: { delete_a: 0 }, fieldsAbsent: ['a.secret'] },
    });
  });

  it('reads events, action calls and the mocked answers of action handlers', () => {
    const f = parseTestFile('t.test.yaml', `cases:
  - name: c
    role: r
    action_responses:
      publish: {body: {ok: true}}
      fail: {status: 400, body: {message: no}}
    query: "mutation { publish(id: 1) { ok } }"
    expect:
      events: [{trigger: published, payload: {op: UPDATE}}, {trigger: audit}]
      action_calls: [{action: publish, payload: {input: {id: 1}}}]
`);
    expect(f.cases[0]).toMatchObject({
      actionResponses: { publish: { status: 200, body: { ok: true } }, fail: { status: 400, body: { message: 'no' } } },
      expect: { events: [{ name: 'published', payload: { op: 'UPDATE' } }, { name: 'audit' }], actionCalls: [{ name: 'publish', payload: { input: { id: 1 } } }] },
    });
    expect(parseTestFile('t.test.yaml', ONE.replace('data: {article: []}', 'events: []\n      action_calls: []')).cases[0]?.expect).toEqual({ events: [], actionCalls: [] });
  });

  it('takes the role and session of jwt_claims, namespaced or not', () => {
    expect(sessionFromClaims({ 'https://hasura.io/jwt/claims': { 'x-hasura-default-role': 'user', 'x-hasura-allowed-roles': ['user'], 'X-Hasura-User-Id': 'u1' } }))
      .toEqual({ role: 'user', session: { 'x-engine-user-id': 'u1' } });
    expect(sessionFromClaims({ 'x-engine-user-id': 5, sub: 'x' })).toEqual({ session: { 'x-engine-user-id': '5' } });
  });

  it.each([
    ['an unknown key', ONE.replace('    role: user', '    roles: user'), 'unknown key "roles"', 3, 5, '$.cases[0].roles'],
    ['a case without role', ONE.replace('    role: user\n', ''), 'role is required (or a default role in jwt_claims)', 2, 5, '$.cases[0].role'],
    ['a case without query', ONE.replace('    query: "{ article { id } }"\n', ''), 'query is required (a non-empty string)', 2, 5, '$.cases[0].query'],
    ['a case without expect', ONE.replace(/ {4}expect:\n.*\n/, ''), 'expect is required', 2, 5, '$.cases[0].expect'],
    ['an empty expect', ONE.replace('      data: {article: []}\n', '').replace('expect:', 'expect: {}'), 'expect must be a map with at least one of', 6, 13, '$.cases[0].expect'],
    ['no cases', 'cases: []\n', 'cases must be a non-empty list', 1, 8, '$.cases'],
    ['a list at the top', '- 1\n', 'a test file must be a map with "cases"', 1, 1, '$'],
    ['a bad seed', `seed: 3\n${ONE}`, 'seed must be SQL text or a map of table name to a list of rows', 1, 7, '$.seed'],
    ['a bad affected_rows', ONE.replace('data: {article: []}', 'affected_rows: many'), 'affected_rows must be an integer', 7, 22, '$.cases[0].expect.affected_rows'],
    ['a bad fields_absent', ONE.replace('data: {article: []}', 'fields_absent: [secret]'), 'fields_absent must be a list of Type.field names', 7, 22, '$.cases[0].expect.fields_absent'],
    ['an error with data', ONE.replace('data: {article: []}', 'data: {}\n      error: {code: x}'), 'an expected error cannot be combined', 7, 7, '$.cases[0].expect'],
    ['session and jwt_claims', ONE.replace('    role: user', '    role: user\n    jwt_claims: {}'), 'give session or jwt_claims, not both', 4, 17, '$.cases[0].jwt_claims'],
    ['events that are not a list', ONE.replace('data: {article: []}', 'events: {trigger: t}'), 'events must be a list of maps with trigger (a name)', 7, 15, '$.cases[0].expect.events'],
    ['an event without its trigger', ONE.replace('data: {article: []}', 'events: [{payload: {}}]'), 'events must be a list of maps with trigger', 7, 16, '$.cases[0].expect.events[0]'],
    ['an event payload that is not a map', ONE.replace('data: {article: []}', 'events: [{trigger: t, payload: [1]}]'), 'events must be a list of maps with trigger', 7, 16, '$.cases[0].expect.events[0]'],
    ['an action call with an unknown key', ONE.replace('data: {article: []}', 'action_calls: [{action: a, input: {}}]'), 'unknown key "input" (expected one of action, payload)', 7, 34, '$.cases[0].expect.action_calls[0].input'],
    ['an action response without body', ONE.replace('    role: user', '    role: user\n    action_responses: {a: {status: 200}}'), 'action_responses must map an action name to {status (optional, default 200), body}', 4, 27, '$.cases[0].action_responses.a'],
    ['an action response with a bad status', ONE.replace('    role: user', '    role: user\n    action_responses: {a: {status: 99, body: {}}}'), 'action_responses must map an action name', 4, 27, '$.cases[0].action_responses.a'],
    ['action responses that are not a map', ONE.replace('    role: user', '    role: user\n    action_responses: [a]'), 'action_responses must map an action name', 4, 23, '$.cases[0].action_responses'],
    ['two cases of one name', `${ONE}${ONE.replace('cases:\n', '')}`, 'two cases are named "one"', 8, 11, '$.cases[1].name'],
  ])('rejects %s at its position', (_, text, message, line, column, path) => {
    const e = failure(text);
    expect(e.code).toBe('test-file-invalid');
    expect(e.message).toContain(message);
    expect(e.location).toEqual({ file: 'tests/x.test.yaml', line, column, path });
    // The editor's schema rejects the same documents (YAML that parses).
    const doc = load(text);
    expect(validate(doc)).toBe(path === '$.cases[1].name');
  });

  it('rejects YAML that does not parse, at the error', () => {
    const e = failure('cases: [\n');
    expect(e.code).toBe('test-file-invalid');
    expect(e.location.file).toBe('tests/x.test.yaml');
    expect(e.location.line).toBe(2);
  });
});

describe('the example project', () => {
  const files = readdirSync(EXAMPLE_TESTS).filter((f) => f.endsWith('.test.yaml'));

  it.each(files)('tests/%s parses and matches schemas/test.schema.json', (name) => {
    const text = readFileSync(join(EXAMPLE_TESTS, name), 'utf8');
    expect(parseTestFile(name, text).cases.length).toBeGreaterThan(0);
    expect(validate(load(text)), JSON.stringify(validate.errors)).toBe(true);
  });
});

describe('seedSql', () => {
  it('quotes names and passes values as one JSON literal; rows with other keys get their own statement', () => {
    expect(seedSql({ rows: { 'app.user "x"': [{ id: 1, name: "O'Neil" }, { id: 2, name: 'B' }, { name: 'C' }] } })).toBe([
      `INSERT INTO "app"."user ""x""" ("id", "name") SELECT "id", "name" FROM json_populate_recordset(NULL::"app"."user ""x""", '[{"id":1,"name":"O''Neil"},{"id":2,"name":"B"}]')`,
      `INSERT INTO "app"."user ""x""" ("name") SELECT "name" FROM json_populate_recordset(NULL::"app"."user ""x""", '[{"name":"C"}]')`,
    ].join(';\n'));
    expect(seedSql({ rows: { t: [{}] } })).toBe('INSERT INTO "public"."t" DEFAULT VALUES');
    expect(seedSql({ sql: 'select 1' })).toBe('select 1');
  });
});
