import { describe, expect, it } from 'vitest';
import { EXTERNAL_URL, post } from '../helpers/engine.js';
import { ADMIN, ANON, as, gql, gqlErr, USER1, USER2, useExampleEngine } from './graphql-fixture.js';

// Issue 31 item 6: the incumbent's API limits — metadata (set_api_limits, remove_api_limits, export) and what each
// limit does to /v1/graphql requests, per role and global, and the `disabled` flag. Rate limits shared by several
// engines are in api-limits-shared.test.ts.

const vf = (message: string) => gqlErr(message, '$', 'validation-failed');
const limits = (args: unknown) => ({ type: 'set_api_limits', args });
const DEEP = '{ article { id author { id } } }'; // depth 2, 2 nodes
const FLAT = '{ article(order_by: {id: asc}) { id } }'; // depth 1, 1 node

describe('API limits', () => {
  const e = useExampleEngine();

  it('set_api_limits stores the incumbent\'s format, export_metadata gives it back canonical; remove_api_limits drops it', async () => {
    await e.ok(limits({
      depth_limit: { global: 5, per_role: { user: 3 } },
      rate_limit: { per_role: { user: { max_reqs_per_min: 10, unique_params: ['X-Hasura-User-Id'] } }, global: { max_reqs_per_min: 100, unique_params: 'IP' } },
      node_limit: { global: 4 },
      time_limit: { global: 10, per_role: {} },
      batch_limit: { global: 5, per_role: { anonymous: 1 } },
    }));
    const md = (await e.ok({ type: 'export_metadata', args: {} })) as { api_limits: unknown };
    expect(md.api_limits).toEqual({
      batch_limit: { global: 5, per_role: { anonymous: 1 } },
      depth_limit: { global: 5, per_role: { user: 3 } },
      disabled: false,
      node_limit: { global: 4, per_role: {} },
      rate_limit: { global: { max_reqs_per_min: 100, unique_params: 'IP' }, per_role: { user: { max_reqs_per_min: 10, unique_params: ['x-hasura-user-id'] } } },
      time_limit: { global: 10, per_role: {} },
    });
    expect(Object.keys(md.api_limits as object)).toEqual(['batch_limit', 'depth_limit', 'disabled', 'node_limit', 'rate_limit', 'time_limit']);
    // replace_metadata takes the exported document back unchanged.
    const before = (await e.state()).metadata;
    await e.ok({ type: 'replace_metadata', args: md });
    expect((await e.state()).metadata).toEqual(before);
    await e.ok({ type: 'remove_api_limits', args: {} });
    expect((await e.ok({ type: 'export_metadata', args: {} })) as object).not.toHaveProperty('api_limits');
  });

  it('remove_api_limits without limits, and bad arguments, are errors at their path; nothing changed', async () => {
    const before = await e.state();
    const r = await e.query({ type: 'remove_api_limits', args: {} });
    expect([r.status, r.body]).toEqual([400, { path: '$.args', error: 'api limits are not defined', code: 'not-exists' }]);
    const cases: [unknown, string, string][] = [
      [{ depth_limit: { per_role: {} } }, '$.args.depth_limit', 'the key "global" was not present'],
      [{ depth_limit: { global: -1 } }, '$.args.depth_limit.global', 'expected an integer >= 0, encountered -1'],
      [{ rate_limit: { global: { max_reqs_per_min: 5, unique_params: 'MAC' } } }, '$.args.rate_limit.global.unique_params', 'expected "IP" or a list of session variables, encountered "MAC"'],
      [{ rate_limit: { global: { max_reqs_per_min: 5, unique_params: ['user-id'] } } }, '$.args.rate_limit.global.unique_params[0]', '"user-id" is not a session variable (x-hasura-… or x-engine-…)'],
      [{ cost_limit: 3 }, '$.args', 'unexpected keys in api limits: "cost_limit"'],
      [{ disabled: 'no' }, '$.args.disabled', 'expected Boolean, encountered String'],
    ];
    for (const [args, path, error] of cases) {
      const bad = await e.query(limits(args));
      expect([bad.status, bad.body], JSON.stringify(args)).toEqual([400, { path, error, code: 'parse-failed' }]);
    }
    expect(await e.state()).toEqual(before);
  });

  it('depth limit: the role\'s own, else the global one; admin and introspection are exempt', async () => {
    await e.ok(limits({ depth_limit: { global: 1, per_role: { user: 2 } } }));
    expect((await gql(e, { query: DEEP }, USER1)).body).toHaveProperty('data.article');
    expect((await gql(e, { query: '{ author { articles { author { id } } } }' }, USER1)).body)
      .toEqual(vf('the operation has depth 3, over the depth limit of 2'));
    expect((await gql(e, { query: '{ article { id } }' }, ANON)).body).toHaveProperty('data.article');
    expect((await gql(e, { query: '{ article { id ... on article { id } } }' }, ANON)).body).toHaveProperty('data.article');
    expect((await gql(e, { query: 'query { author { ...F } } fragment F on author { articles { author { id } } }' }, USER1)).body)
      .toEqual(vf('the operation has depth 3, over the depth limit of 2'));
    expect((await gql(e, { query: '{ author { articles { author { id } } } }' }, ADMIN)).body).toHaveProperty('data.author');
    const intro = await gql(e, { query: '{ __schema { types { name fields { name type { name ofType { name } } } } } }' }, ANON);
    expect(intro.body).toHaveProperty('data.__schema');
  });

  it('node limit: fields with a selection set, fragments expanded; per role and global', async () => {
    await e.ok(limits({ node_limit: { global: 1, per_role: { user: 3 } } }));
    expect((await gql(e, { query: FLAT }, ANON)).body).toEqual({ data: { article: [{ id: 1 }, { id: 3 }] } });
    expect((await gql(e, { query: '{ a: article { id } b: article { id } }' }, ANON)).body)
      .toEqual(vf('the operation has 2 nodes, over the node limit of 1'));
    expect((await gql(e, { query: '{ a: article { id } b: article { id author { id } } }' }, USER1)).body).toHaveProperty('data.b');
    expect((await gql(e, { query: '{ a: article { ...F } b: article { ...F } } fragment F on article { author { id } }' }, USER1)).body)
      .toEqual(vf('the operation has 4 nodes, over the node limit of 3'));
  });

  it('disabled: true turns every limit off; set again without it, they apply', async () => {
    await e.ok(limits({ disabled: true, node_limit: { global: 0 }, depth_limit: { global: 0 }, rate_limit: { global: { max_reqs_per_min: 1 } } }));
    for (let i = 0; i < 3; i++) expect((await gql(e, { query: DEEP }, USER2)).body).toHaveProperty('data.article');
    await e.ok(limits({ node_limit: { global: 0 } }));
    expect((await gql(e, { query: FLAT }, USER2)).body).toEqual(vf('the operation has 1 nodes, over the node limit of 0'));
  });

  it('batch limit: a batched request of more operations than the role\'s limit is refused whole, before any runs', async () => {
    await e.ok(limits({ batch_limit: { global: 2, per_role: { anonymous: 1 } } }));
    const one = { query: FLAT };
    const insert = { query: 'mutation { insert_article_one(object: {title: "Batched"}) { id } }' };
    const ok = await gql(e, [one, one], USER1);
    expect(ok.body).toHaveLength(2);
    const before = await e.state();
    const over = await gql(e, [insert, one, one], USER1);
    expect([over.status, over.body]).toEqual([200, gqlErr('the batch has 3 operations, over the batch limit of 2', '$', 'batch-limit-exceeded')]);
    expect((await gql(e, [one, one], ANON)).body).toEqual(gqlErr('the batch has 2 operations, over the batch limit of 1', '$', 'batch-limit-exceeded'));
    expect(await e.state()).toEqual(before);
    // One operation not in an array is no batch; admin is exempt.
    expect((await gql(e, one, ANON)).body).toHaveProperty('data');
    expect((await gql(e, [one, one, one], ADMIN)).body).toHaveLength(3);
  });

  it('rate limit per role keyed by a session variable: each user has its own count; admin is exempt', async () => {
    await e.ok(limits({ rate_limit: { global: { max_reqs_per_min: 100 }, per_role: { user: { max_reqs_per_min: 2, unique_params: ['x-hasura-user-id'] } } } }));
    const u = as('user', 9101);
    const v = as('user', 9102);
    for (let i = 0; i < 2; i++) expect((await gql(e, { query: FLAT }, u)).body).toHaveProperty('data');
    const over = await gql(e, { query: FLAT }, u);
    expect([over.status, over.body]).toEqual([200, gqlErr('too many requests: the rate limit is 2 requests per minute', '$', 'rate-limit-exceeded')]);
    expect((await gql(e, { query: FLAT }, v)).body).toHaveProperty('data');
    for (let i = 0; i < 4; i++) expect((await gql(e, { query: FLAT }, ADMIN)).body).toHaveProperty('data');
    // The table holds digests, never the session values.
    const rows = await e.db.query<{ key: string }>('SELECT key FROM engine_catalog.rate_limits');
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.some((r) => r.key.includes('9101'))).toBe(false);
  });

  it('global rate limit by IP: a batch counts its operations', async () => {
    await e.ok(limits({ rate_limit: { global: { max_reqs_per_min: 3, unique_params: 'IP' } } }));
    const role = as('ratelimited-ip');
    expect((await gql(e, [{ query: '{ __typename }' }, { query: '{ __typename }' }], role)).body).toHaveLength(2);
    expect((await gql(e, { query: '{ __typename }' }, role)).body).toEqual({ data: { __typename: 'query_root' } });
    expect((await gql(e, { query: '{ __typename }' }, role)).body)
      .toEqual(gqlErr('too many requests: the rate limit is 3 requests per minute', '$', 'rate-limit-exceeded'));
  });

  it.skipIf(!EXTERNAL_URL)('time limit: the role\'s statement is cancelled after its limit (PostgreSQL)', async () => {
    await e.sql('CREATE VIEW slow AS SELECT 1 AS id FROM pg_sleep(30)');
    await e.ok({ type: 'track_table', args: { table: 'slow' } });
    await e.ok({ type: 'create_select_permission', args: { table: 'slow', role: 'user', permission: { columns: ['id'], filter: {} } } });
    await e.ok(limits({ time_limit: { global: 60, per_role: { user: 1 } } }));
    const r = await post(`${e.url}/v1/graphql`, { query: '{ slow { id } }' }, USER1);
    expect([r.status, r.body]).toEqual([200, gqlErr('the operation took longer than the time limit of 1 s and was cancelled', '$', 'timeout')]);
  }, 60_000);
});
