/**
 * `engine test` with events and action calls (issue 33 point 1) on the example project's ephemeral engine: the
 * example's publish cases pass; each kind of mismatch fails with what was expected and what came; an action without
 * an answer fails at its handler; the project's own handler and webhook are never called; on a running engine
 * (`--endpoint`) such cases are skipped. The ephemeral engine is always embedded: the run is the same on either
 * database setting.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMetadata } from '../../src/project/metadata-dir/build.js';
import { parseTestFile, type TestFile } from '../../src/project/test/format.js';
import { runTests, type TestRun } from '../../src/project/test/index.js';
import { runCases } from '../../src/project/test/runner.js';
import { silentLogger } from '../../src/logger.js';
import { startWebhook, type Webhook } from '../helpers/webhook.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/quickstart', import.meta.url));
const T = 240_000;

const FAILING = `cases:
  - name: an event that does not come
    role: user
    session: {x-engine-user-id: u1}
    query: |
      mutation { update_article(where: {title: {_eq: "Draft by Ann"}}, _set: {title: "Renamed"}) { affected_rows } }
    expect:
      events: [{trigger: article_published}]

  - name: an event not expected
    role: user
    session: {x-engine-user-id: u1}
    query: |
      mutation { update_article(where: {title: {_eq: "Draft by Ann"}}, _set: {published: true}) { affected_rows } }
    expect:
      events: []

  - name: a call with other input
    role: user
    session: {x-engine-user-id: u1}
    action_responses:
      publishArticle: {body: {articleId: 2, publishedAt: "2026-01-01T00:00:00Z"}}
    query: "mutation { publishArticle(articleId: 2) { articleId } }"
    expect:
      action_calls: [{action: publishArticle, payload: {input: {articleId: 3}}}]

  - name: an action without an answer
    role: user
    session: {x-engine-user-id: u1}
    query: "mutation { publishArticle(articleId: 2) { articleId } }"
    expect:
      data: {publishArticle: {articleId: 2}}
`;

let real: Webhook;
let run: TestRun;
let files: TestFile[];

beforeAll(async () => {
  real = await startWebhook((_, res) => void res.end('{"articleId": 99, "publishedAt": "2000-01-01T00:00:00Z"}'));
  const built = buildMetadata(join(EXAMPLE, 'metadata'), EXAMPLE, 2);
  if (!built.document) throw new Error(JSON.stringify(built.problems.errors));
  const vars: Record<string, string> = { ACTION_BASE_URL: real.url, EVENTS_BASE_URL: real.url };
  files = [
    parseTestFile('tests/publish.test.yaml', readFileSync(join(EXAMPLE, 'tests/publish.test.yaml'), 'utf8')),
    parseTestFile('tests/failing.test.yaml', FAILING),
  ];
  run = await runTests({
    sources: { projectDir: EXAMPLE, migrationsDirectory: join(EXAMPLE, 'migrations'), built: { ...built, document: built.document }, variable: (n) => vars[n] },
    files, logger: silentLogger,
  });
}, T);

afterAll(async () => {
  await real?.close();
});

const result = (name: string) => {
  const r = run.results.find((x) => x.name === name);
  if (!r) throw new Error(`no case ${name}`);
  return r;
};

describe('engine test: events and action calls', () => {
  it("passes the example's publish cases: the event and its payload, no event, the action call and its session", () => {
    for (const c of files[0]?.cases ?? []) expect(result(c.name), JSON.stringify(result(c.name))).toMatchObject({ status: 'passed', mismatches: [] });
  });

  it('an expected event that does not come: the expected list and the (empty) actual one', () => {
    expect(result('an event that does not come')).toMatchObject({
      status: 'failed', mismatches: [{ message: 'events missing: article_published', expected: [{ trigger: 'article_published' }], actual: [] }],
    });
  });

  it('an event not expected: shown with its payload', () => {
    const r = result('an event not expected');
    expect(r.status).toBe('failed');
    expect(r.mismatches).toHaveLength(1);
    expect(r.mismatches[0]).toMatchObject({
      message: 'events not expected: article_published', expected: [],
      actual: [{ trigger: 'article_published', payload: { op: 'UPDATE', data: { old: { title: 'Draft by Ann', published: false }, new: { title: 'Draft by Ann', published: true } } } }],
    });
  });

  it('an action call whose payload differs: the call as the handler received it', () => {
    const r = result('a call with other input');
    expect(r.status).toBe('failed');
    expect(r.mismatches[0]).toMatchObject({
      message: 'action calls missing: publishArticle',
      expected: [{ action: 'publishArticle', payload: { input: { articleId: 3 } } }],
      actual: [{ action: 'publishArticle', payload: { action: { name: 'publishArticle' }, input: { articleId: 2 }, request_query: 'mutation { publishArticle(articleId: 2) { articleId } }' } }],
    });
  });

  it('an action the case gives no answer for fails with the reason, not with the real handler', () => {
    const r = result('an action without an answer');
    expect(r.status).toBe('failed');
    expect(r.mismatches[0]?.message).toBe('the operation failed');
    expect(JSON.stringify(r.mismatches[0]?.actual)).toContain('engine test: the case gives no response for action \\"publishArticle\\" (action_responses)');
  });

  it("never calls the project's handler or webhook", () => {
    expect(real.received).toEqual([]);
  });

  it('on a running engine (--endpoint) the cases that observe events or calls are skipped before any request', async () => {
    const sql: string[] = [];
    const results = await runCases({ url: 'http://127.0.0.1:9', sql: async (s) => void sql.push(s), writes: 'allow' }, [files[0] as TestFile]);
    expect(results.map((r) => [r.status, r.reason])).toEqual(Array.from({ length: files[0]?.cases.length ?? 0 }, () => [
      'skipped', 'the case checks events or action calls (or mocks a handler): only the ephemeral engine runs it',
    ]));
    expect(sql).toEqual([]);
  });
});
