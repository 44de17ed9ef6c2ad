import { describe, expect, it } from 'vitest';
import { post } from '../helpers/engine.js';
import { inconsistentError } from '../helpers/assertions.js';
import { ANON, gql, gqlErr, USER1, USER2, useExampleEngine } from './graphql-fixture.js';

/** Query collections, the allow list and REST endpoints (issue 20), on the running example of graphql-api.md §0. */

const e = useExampleEngine({ enableAllowlist: true });

const ARTICLES = `query articles {
  # the published ones, and the caller's own
  article(order_by: {id: asc}) { id title }
}`;
const BY_ID = 'query byId($id: Int!, $title: String) { article(where: {id: {_eq: $id}, title: {_neq: $title}}) { id title } }';

const collection = (name: string, queries: { name: string; query: string }[]) =>
  ({ type: 'create_query_collection', args: { name, definition: { queries } } });

async function setup(): Promise<void> {
  await e.ok(collection('public', [{ name: 'articles', query: ARTICLES }, { name: 'by_id', query: BY_ID }]));
  await e.ok({ type: 'add_collection_to_allowlist', args: { collection: 'public' } });
}

describe('the allow list', () => {
  it('admits allow-listed documents (whitespace, commas and comments aside) for non-admin roles; admin is never checked', async () => {
    await setup();
    const reformatted = 'query articles { article(order_by: {id: asc}) { id, title } }';
    expect((await gql(e, { query: reformatted }, ANON)).body).toEqual({ data: { article: [{ id: 1, title: 'Intro' }, { id: 3, title: 'News' }] } });
    expect((await gql(e, { query: ARTICLES }, USER1)).body).toEqual({ data: { article: [{ id: 1, title: 'Intro' }, { id: 2, title: 'Draft' }, { id: 3, title: 'News' }] } });
    const other = '{ article { id } }';
    expect((await gql(e, { query: other }, USER1)).body).toEqual(gqlErr('query is not allowed', '$', 'validation-failed'));
    expect((await gql(e, { query: other }, ANON)).body).toEqual(gqlErr('query is not allowed', '$', 'validation-failed'));
    expect((await gql(e, { query: other })).body).toEqual({ data: { article: [{ id: 1 }, { id: 2 }, { id: 3 }] } });
    // Dropped from the allow list: nothing is admitted any more.
    await e.ok({ type: 'drop_collection_from_allowlist', args: { collection: 'public' } });
    expect((await gql(e, { query: ARTICLES }, USER2)).body).toEqual(gqlErr('query is not allowed', '$', 'validation-failed'));
  });

  it('operations: errors at their paths, and nothing changes', async () => {
    await setup();
    const before = await e.state();
    const bad = async (body: unknown, code: string, path: string, error: string) => {
      const r = await e.query(body);
      expect([r.status, r.body]).toEqual([400, { code, path, error }]);
      expect(await e.state()).toEqual(before);
    };
    await bad(collection('public', []), 'already-exists', '$.args.name', 'query collection "public" already exists');
    await bad(collection('c', [{ name: 'q', query: 'query { article { id ' }]), 'parse-failed', '$.args.definition.queries[0].query',
      'query "q" is not a valid GraphQL document: Expected Name, found <EOF>. (query line 1, column 22)');
    await bad(collection('c', [{ name: 'q', query: '{ nope }' }]), 'validation-failed', '$.args.definition.queries[0].query',
      'query "q" is not valid against the schema: Cannot query field "nope" on type "query_root".');
    await bad(collection('c', [{ name: 'q', query: '{ a: article { id } }' }, { name: 'q', query: '{ article { id } }' }]), 'parse-failed',
      '$.args.definition.queries[1].name', 'query "q" appears more than once in collection "c"');
    await bad({ type: 'add_query_to_collection', args: { collection_name: 'nope', query_name: 'x', query: '{ article { id } }' } }, 'not-exists',
      '$.args.collection_name', 'query collection "nope" does not exist');
    await bad({ type: 'add_query_to_collection', args: { collection_name: 'public', query_name: 'articles', query: '{ article { id } }' } }, 'already-exists',
      '$.args.query_name', 'query "articles" already exists in collection "public"');
    await bad({ type: 'drop_query_from_collection', args: { collection_name: 'public', query_name: 'x' } }, 'not-exists',
      '$.args.query_name', 'query "x" does not exist in collection "public"');
    await bad({ type: 'add_collection_to_allowlist', args: { collection: 'nope' } }, 'not-exists', '$.args.collection', 'query collection "nope" does not exist');
    await bad({ type: 'add_collection_to_allowlist', args: { collection: 'public' } }, 'already-exists', '$.args.collection', 'collection "public" is already in the allow list');
    await bad({ type: 'drop_query_collection', args: { collection: 'public' } }, 'dependency-error', '$.args',
      'cannot drop due to the following dependent objects : allowlist entry public');
    await e.ok({ type: 'add_query_to_collection', args: { collection_name: 'public', query_name: 'more', query: '{ author { id } }' } });
    await e.ok({ type: 'drop_query_from_collection', args: { collection_name: 'public', query_name: 'more' } });
    expect((await e.ok({ type: 'export_metadata', args: {} })).query_collections).toEqual([
      { name: 'public', definition: { queries: [{ name: 'articles', query: ARTICLES }, { name: 'by_id', query: BY_ID }] } },
    ]);
    await e.ok({ type: 'drop_query_collection', args: { collection: 'public', cascade: true } });
    const after = await e.ok({ type: 'export_metadata', args: {} });
    expect([after.query_collections, after.allowlist]).toEqual([undefined, undefined]);
  });
});

describe('REST endpoints', () => {
  const endpoint = (name: string, url: string, methods: string[], query_name: string) =>
    ({ type: 'create_rest_endpoint', args: { name, url, methods, definition: { query: { collection_name: 'public', query_name } } } });
  const rest = (path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) =>
    fetch(`${e.url}/api/rest/${path}`, {
      method: init.method ?? 'GET', headers: { 'content-type': 'application/json', ...init.headers },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    }).then(async (r) => ({ status: r.status, body: await r.json() }));

  it('GET and POST with path, query-string and body variables, as admin and as a role with a filter', async () => {
    await setup();
    await e.ok(endpoint('article', 'articles/:id', ['GET', 'POST'], 'by_id'));
    await e.ok(endpoint('articles', 'articles', ['GET'], 'articles'));
    expect(await rest('articles/2')).toEqual({ status: 200, body: { data: { article: [{ id: 2, title: 'Draft' }] } } });
    expect(await rest('articles/2', { headers: USER2 })).toEqual({ status: 200, body: { data: { article: [] } } });
    expect(await rest('articles/2', { headers: USER1 })).toEqual({ status: 200, body: { data: { article: [{ id: 2, title: 'Draft' }] } } });
    expect(await rest('articles/1?title=Intro')).toEqual({ status: 200, body: { data: { article: [] } } });
    expect(await rest('articles/3', { method: 'POST', body: { title: 'x' }, headers: ANON })).toEqual({ status: 200, body: { data: { article: [{ id: 3, title: 'News' }] } } });
    expect(await rest('articles', { headers: ANON })).toEqual({ status: 200, body: { data: { article: [{ id: 1, title: 'Intro' }, { id: 3, title: 'News' }] } } });
    // A variable that does not coerce is reported as on /v1/graphql.
    const bad = await rest('articles/abc');
    expect(bad.status).toBe(200);
    expect((bad.body as { errors: { extensions: { code: string } }[] }).errors[0]?.extensions.code).toBe('validation-failed');
    expect(await rest('articles', { method: 'POST' })).toEqual({ status: 405, body: { code: 'method-not-allowed', path: '$', error: 'method POST is not allowed for this endpoint' } });
    expect(await rest('nothing/here')).toEqual({ status: 404, body: { code: 'not-found', path: '$', error: 'resource does not exist' } });
    expect((await post(`${e.url}/api/rest/articles/2`, '[1]')).body).toEqual({ code: 'parse-failed', path: '$', error: 'the request body must be a JSON object of variables' });
  });

  it('operations: collisions, references and invalid queries are errors; nothing changes', async () => {
    await setup();
    await e.ok(endpoint('article', 'articles/:id', ['GET'], 'by_id'));
    let before = await e.state();
    const bad = async (body: unknown, code: string, path: string, error: string) => {
      const r = await e.query(body);
      expect([r.status, r.body]).toEqual([400, { code, path, error }]);
      expect(await e.state()).toEqual(before);
    };
    await bad(endpoint('other', 'articles/new', ['GET', 'POST'], 'articles'), 'already-exists', '$.args.url', 'REST endpoint "other" (articles/new) collides with "article" (articles/:id)');
    await bad(endpoint('article', 'x', ['GET'], 'articles'), 'already-exists', '$.args.name', 'REST endpoint "article" already exists');
    await bad(endpoint('x', 'x', ['GET'], 'nope'), 'not-exists', '$.args.definition.query.query_name', 'query "nope" does not exist in collection "public"');
    await bad(endpoint('x', '/x/', ['GET'], 'articles'), 'parse-failed', '$.args.url',
      'invalid REST endpoint url "/x/": expected segments of letters, digits, "-", ".", "_", "~" or ":<variable>", separated by "/", without a leading or trailing "/"');
    await bad(endpoint('x', 'x', ['FETCH'], 'articles'), 'parse-failed', '$.args.methods[0]', 'expected one of "GET", "POST", "PUT", "PATCH", "DELETE", encountered "FETCH"');
    await bad({ type: 'drop_query_from_collection', args: { collection_name: 'public', query_name: 'by_id' } }, 'dependency-error', '$.args',
      'cannot drop due to the following dependent objects : rest endpoint article');
    await e.ok(endpoint('other', 'articles/new', ['POST'], 'articles'));
    await e.ok({ type: 'drop_rest_endpoint', args: { name: 'other' } });
    before = await e.state();
    await bad({ type: 'drop_rest_endpoint', args: { name: 'other' } }, 'not-exists', '$.args.name', 'REST endpoint "other" does not exist');
    const exported = await e.ok({ type: 'export_metadata', args: {} });
    expect(exported.rest_endpoints).toEqual([{ name: 'article', url: 'articles/:id', methods: ['GET'], definition: { query: { collection_name: 'public', query_name: 'by_id' } } }]);
    await e.ok({ type: 'replace_metadata', args: exported });
    expect(await e.ok({ type: 'export_metadata', args: {} })).toEqual(exported);
  });

  it('an endpoint whose query no longer validates is inconsistent like any other object, and not served', async () => {
    await setup();
    await e.ok(endpoint('article', 'articles/:id', ['GET'], 'by_id'));
    const record = {
      definition: { name: 'article', url: 'articles/:id', methods: ['GET'], definition: { query: { collection_name: 'public', query_name: 'by_id' } } },
      reason: 'in rest endpoint "article": query "by_id" of collection "public" is not valid: Cannot query field "article" on type "query_root".',
      type: 'rest_endpoint',
    };
    const before = await e.state();
    const r = await e.query({ type: 'untrack_table', args: { table: 'article', cascade: true } });
    expect([r.status, r.body]).toEqual([400, inconsistentError('cannot continue due to new inconsistent metadata', [record])]);
    expect(await e.state()).toEqual(before);
    const doc = await e.ok({ type: 'export_metadata', args: {} });
    const without = { ...doc, tables: doc.tables.filter((t: { table: { name: string } }) => t.table.name !== 'article') };
    const lenient = await e.ok({ type: 'replace_metadata', args: { metadata: without, allow_inconsistent_metadata: true } });
    expect(lenient.is_consistent).toBe(false);
    expect(lenient.inconsistent_objects).toContainEqual(record);
    expect(await rest('articles/1')).toEqual({ status: 404, body: { code: 'not-found', path: '$', error: 'resource does not exist' } });
    await e.ok({ type: 'drop_inconsistent_metadata', args: {} });
    expect((await e.ok({ type: 'export_metadata', args: {} })).rest_endpoints).toBeUndefined();
  });
});
