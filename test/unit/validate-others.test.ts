import { describe, expect, it } from 'vitest';
import { cronProblems } from '../../src/project/validate/validate.js';
import { shown } from './validate-helpers.js';

/** tables.yaml with one event trigger on `article`, written as the given flow mapping. */
const trigger = (et: string) => `- table: article\n  event_triggers:\n    - ${et}\n`;
/** `<severity> <code> <message>` at column `col` of the trigger's line. */
const at = (col: number, problem: string) => problem.replace(/^(\S+ \S+) /, `$1 tables.yaml:3:${col} `);

describe('event triggers', () => {
  it('accepts a full trigger', () => {
    const et = [
      '- table: article',
      '  event_triggers:',
      '    - name: article-events_1',
      '      definition:',
      '        enable_manual: false',
      '        insert: {columns: "*"}',
      '        update: {columns: [title], payload: [id, title]}',
      '      retry_conf: {num_retries: 0, interval_sec: 1, timeout_sec: 60}',
      '      webhook: "{{ EVENTS_BASE_URL }}/article"',
      '      headers: [{name: x-token, value_from_env: EVENTS_TOKEN}, {name: x-static, value: abc}]',
      '',
    ].join('\n');
    expect(shown({ tables: et })).toEqual([]);
  });

  it('checks the name', () => {
    expect(shown({ tables: trigger('{name: 1st, definition: {}, webhook: "http://x"}') })).toEqual([
      at(14, 'error name-invalid invalid event trigger name "1st": use letters, digits, "_" and "-", start with a letter, at most 42 characters'),
    ]);
    expect(shown({ tables: trigger(`{name: ${'a'.repeat(43)}, definition: {}, webhook: "http://x"}`) })).toEqual([
      at(14, `error name-invalid invalid event trigger name "${'a'.repeat(43)}": use letters, digits, "_" and "-", start with a letter, at most 42 characters`),
    ]);
  });

  it('needs at least one operation or enable_manual', () => {
    expect(shown({ tables: trigger('{name: e, definition: {enable_manual: false}, webhook: "http://x"}') })).toEqual([
      at(29, 'error event-trigger-invalid event trigger "e" must enable at least one of insert, update, delete or enable_manual'),
    ]);
    expect(shown({ tables: trigger('{name: e, definition: {}, webhook: "http://x"}') })).toEqual([]);
  });

  it('needs exactly one of webhook or webhook_from_env', () => {
    expect(shown({ tables: trigger('{name: e, definition: {}}') })).toEqual([
      at(7, 'error metadata-invalid event trigger "e" of public.article must set exactly one of "webhook" or "webhook_from_env"'),
    ]);
    expect(shown({ tables: trigger('{name: e, definition: {}, webhook: "http://x", webhook_from_env: URL}') })).toEqual([
      at(54, 'error metadata-invalid event trigger "e" of public.article must set exactly one of "webhook" or "webhook_from_env"'),
    ]);
  });

  it('checks webhook URLs and templates', () => {
    const bad = (webhook: string) => shown({ tables: trigger(`{name: e, definition: {}, webhook: "${webhook}"}`) });
    expect(bad('ftp://x/y')).toEqual([at(42, 'error url-invalid invalid webhook "ftp://x/y": expected an http(s) URL or a {{ENV_VAR}} template')]);
    expect(bad('/relative')).toEqual([at(42, 'error url-invalid invalid webhook "/relative": expected an http(s) URL or a {{ENV_VAR}} template')]);
    expect(bad('{{BASE}/x')).toEqual([at(42, 'error url-invalid invalid webhook "{{BASE}/x": expected an http(s) URL or a {{ENV_VAR}} template')]);
    expect(bad('{{A}}/{{ 1B }}')).toEqual([at(42, 'error url-invalid invalid webhook "{{A}}/{{ 1B }}": expected an http(s) URL or a {{ENV_VAR}} template')]);
    expect(bad('{{A}}/x')).toEqual([]);
  });

  it('rejects reserved env variables with the engine message', () => {
    expect(shown({ tables: trigger('{name: e, definition: {}, webhook: "{{engine_graphql_secret}}/x"}') })).toEqual([
      at(42, 'error metadata-invalid env variables starting with "ENGINE_GRAPHQL_" are not allowed in webhook: engine_graphql_secret'),
    ]);
    expect(shown({ tables: trigger('{name: e, definition: {}, webhook_from_env: ENGINE_GRAPHQL_URL, headers: [{name: h, value_from_env: ENGINE_GRAPHQL_ADMIN_SECRET}]}') })).toEqual([
      at(51, 'error metadata-invalid env variables starting with "ENGINE_GRAPHQL_" are not allowed in webhook_from_env: ENGINE_GRAPHQL_URL'),
      at(107, 'error metadata-invalid env variables starting with "ENGINE_GRAPHQL_" are not allowed in value_from_env: ENGINE_GRAPHQL_ADMIN_SECRET'),
    ]);
  });

  it('checks operation specs and retry_conf bounds', () => {
    const et = '{name: e, definition: {insert: {columns: []}, update: {payload: [], columns: x}, delete: {columns: [1]}}, retry_conf: {num_retries: -1, interval_sec: 0, timeout_sec: 1.5, backoff: 2}, webhook: "http://x"}';
    expect(shown({ tables: trigger(et) })).toEqual([
      at(48, 'error metadata-invalid expected a non-empty list for "columns", got an empty list'),
      at(71, 'error metadata-invalid expected a non-empty list for "payload", got an empty list'),
      at(84, 'error metadata-invalid expected a list for "columns", got a string'),
      at(107, 'error metadata-invalid expected a string for "columns[0]", got 1'),
      at(139, 'error metadata-invalid expected an integer ≥ 0 for "num_retries", got -1'),
      at(157, 'error metadata-invalid expected an integer ≥ 1 for "interval_sec", got 0'),
      at(173, 'error metadata-invalid expected an integer ≥ 1 for "timeout_sec", got 1.5'),
      at(178, 'warning metadata-unknown-key unknown key "backoff" in "retry_conf" of event trigger "e" of public.article'),
    ]);
  });

  it('checks headers', () => {
    const et = '{name: e, definition: {}, webhook: "http://x", headers: [{name: a}, {name: "", value: 1, value_from_env: B}, x]}';
    expect(shown({ tables: trigger(et) })).toEqual([
      at(64, 'error metadata-invalid header "a" of event trigger "e" of public.article must set exactly one of "value" or "value_from_env"'),
      at(82, 'error metadata-invalid expected a non-empty string for "name", got an empty string'),
      at(96, 'error metadata-invalid header "" of event trigger "e" of public.article must set exactly one of "value" or "value_from_env"'),
      at(116, 'error metadata-invalid expected a mapping for "headers[2]", got a string'),
    ]);
  });
});

describe('functions.yaml', () => {
  it('accepts every form of a function entry', () => {
    expect(shown({ functions: '- search\n- {schema: s, name: f}\n- function: g\n- function: {schema: s, name: h}\n  configuration: {session_argument: session}\n' })).toEqual([]);
  });

  it('checks shapes and keys', () => {
    expect(shown({ functions: '- 1\n- {funtion: f}\n- function: g\n  configuration: {session_arg: s}\n- {name: f, shema: s}\n' })).toEqual([
      'error metadata-invalid functions.yaml:1:3 expected a mapping for "functions[0]", got 1',
      'error metadata-invalid functions.yaml:2:3 function #2 is missing required key "function"',
      'warning metadata-unknown-key functions.yaml:2:4 unknown key "funtion" in function #2 (did you mean "function"?)',
      'warning metadata-unknown-key functions.yaml:4:19 unknown key "session_arg" in "configuration" of function public.g',
      'warning metadata-unknown-key functions.yaml:5:13 unknown key "shema" in function public.f (did you mean "schema"?)',
    ]);
  });
});

describe('remote_schemas.yaml', () => {
  it('checks url / url_from_env, timeout_seconds and headers', () => {
    const rs = [
      '- name: ok',
      '  definition: {url: "https://remote/graphql", timeout_seconds: 5, forward_client_headers: true, headers: [{name: a, value: b}]}',
      '  comment: fine',
      '- name: both',
      '  definition: {url: "http://a", url_from_env: B}',
      '- name: neither',
      '  definition: {timeout_seconds: 0}',
      '- name: env',
      '  definition: {url_from_env: ENGINE_GRAPHQL_X}',
      '- name: bad',
      '  definition: {url: "remote:80"}',
      '- definition: 3',
      '',
    ].join('\n');
    expect(shown({ remoteSchemas: rs })).toEqual([
      'error metadata-invalid remote_schemas.yaml:5:33 "definition" of remote schema "both" must set exactly one of "url" or "url_from_env"',
      'error metadata-invalid remote_schemas.yaml:7:15 "definition" of remote schema "neither" must set exactly one of "url" or "url_from_env"',
      'error metadata-invalid remote_schemas.yaml:7:33 expected an integer ≥ 1 for "timeout_seconds", got 0',
      'error metadata-invalid remote_schemas.yaml:9:30 env variables starting with "ENGINE_GRAPHQL_" are not allowed in url_from_env: ENGINE_GRAPHQL_X',
      'error url-invalid remote_schemas.yaml:11:21 invalid url "remote:80": expected an http(s) URL or a {{ENV_VAR}} template',
      'error metadata-invalid remote_schemas.yaml:12:3 remote schema #6 is missing required key "name"',
      'error metadata-invalid remote_schemas.yaml:12:15 expected a mapping for "definition", got 3',
    ]);
  });
});

describe('query_collections.yaml and allow_list.yaml', () => {
  it('parses each query and reports the position of its YAML string', () => {
    const qc = [
      '- name: c',
      '  definition:',
      '    queries:',
      '      - {name: ok, query: "query { author { id } }"}',
      '      - name: broken',
      '        query: |',
      '          query {',
      '            author {',
      '',
    ].join('\n');
    expect(shown({ queryCollections: qc })).toEqual([
      'error query-invalid query_collections.yaml:6:16 query "broken" in collection "c" is not valid GraphQL: Syntax Error: Expected Name, found <EOF>. (query line 3, column 1)',
    ]);
  });

  it('checks shapes', () => {
    expect(shown({ queryCollections: '- name: c\n  definition: {queries: [{name: q}], extra: 1}\n' })).toEqual([
      'error metadata-invalid query_collections.yaml:2:26 query "q" in collection "c" is missing required key "query"',
      'warning metadata-unknown-key query_collections.yaml:2:38 unknown key "extra" in "definition" of query collection "c"',
    ]);
  });

  it('needs allow-list collections to exist', () => {
    const texts = { queryCollections: '- name: c\n  definition: {queries: []}\n', allowList: '- collection: c\n- collection: d\n- {}\n' };
    expect(shown(texts)).toEqual([
      'error reference-invalid allow_list.yaml:2:15 allow list entry refers to unknown query collection "d"',
      'error metadata-invalid allow_list.yaml:3:3 allow list entry #3 is missing required key "collection"',
    ]);
    expect(shown({ allowList: '- collection: c\n' })).toEqual([
      'error reference-invalid allow_list.yaml:1:15 allow list entry refers to unknown query collection "c"',
    ]);
  });
});

describe('cron_triggers.yaml', () => {
  it('accepts a full trigger', () => {
    const ct = '- name: n\n  webhook: "{{CRON_URL}}/n"\n  schedule: "*/5 0-6,22 1 * 1-5/2"\n  include_in_metadata: true\n  payload: {a: [1]}\n  retry_conf: {num_retries: 1}\n  headers: [{name: a, value: b}]\n  comment: c\n';
    expect(shown({ cronTriggers: ct })).toEqual([]);
  });

  it('checks required keys and the schedule', () => {
    expect(shown({ cronTriggers: '- name: n\n  schedule: "* * * *"\n- {name: m, webhook: "http://x", schedule: "60 * * * *", include_in_metadata: yes}\n' })).toEqual([
      'error metadata-invalid cron_triggers.yaml:1:3 cron trigger "n" is missing required key "webhook"',
      'error metadata-invalid cron_triggers.yaml:1:3 cron trigger "n" is missing required key "include_in_metadata"',
      'error cron-schedule-invalid cron_triggers.yaml:2:13 invalid cron schedule "* * * *": expected 5 fields (minute hour day-of-month month day-of-week)',
      'error cron-schedule-invalid cron_triggers.yaml:3:44 invalid cron schedule "60 * * * *": field "minute" is out of range',
      'error metadata-invalid cron_triggers.yaml:3:79 expected a boolean for "include_in_metadata", got a string',
    ]);
  });

  it('validates each field of a schedule', () => {
    expect(cronProblems('0 0 * * *')).toEqual([]);
    expect(cronProblems('0,15,30,45 */2 1-31 1-12 0-7')).toEqual([]);
    expect(cronProblems('* 24 0 13 8')).toEqual(['hour', 'day-of-month', 'month', 'day-of-week'].map(
      (f) => `invalid cron schedule "* 24 0 13 8": field "${f}" is out of range`));
    expect(cronProblems('*/0 5-1 a * *')).toEqual(['minute', 'hour', 'day-of-month'].map(
      (f) => `invalid cron schedule "*/0 5-1 a * *": field "${f}" is out of range`));
    expect(cronProblems('')).toEqual(['invalid cron schedule "": expected 5 fields (minute hour day-of-month month day-of-week)']);
  });
});
