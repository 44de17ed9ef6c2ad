import { afterEach, describe, expect, it } from 'vitest';
import { post } from '../helpers/engine.js';
import { modernClient, until, type ModernClient, type Received } from '../helpers/subscriptions.js';
import { useExampleEngine } from './graphql-fixture.js';

// Issue 32: a select permission's `subscription_root_fields` decide which root fields a role may subscribe to, apart
// from its `query_root_fields` (the incumbent's), and each role's schema has its `subscription_root`.

const SECRET = 'root-fields-s3cret';
const e = useExampleEngine({ adminSecret: SECRET, http: { liveQueriesRefetchMs: 0 } });
const admin = { 'x-engine-admin-secret': SECRET };
const as = (role: string) => ({ ...admin, 'x-engine-role': role });

const open: ModernClient[] = [];
const subscribe = (role: string | null, query: string): Received => {
  const c = modernClient(e.url, role ? as(role) : admin);
  open.push(c);
  return c.subscribe(query);
};
afterEach(async () => {
  for (const c of open.splice(0)) await c.dispose();
});

const gql = async (query: string, headers: Record<string, string>) => (await post(`${e.url}/v1/graphql`, { query }, headers)).body;
const perm = (role: string, table: string, permission: Record<string, unknown>) => e.ok({ type: 'create_select_permission', args: { table, role, permission: { filter: {}, ...permission } } });
const notFound = (field: string, key = field) => [{ message: `field "${field}" not found in type: 'subscription_root'`, extensions: { path: `$.selectionSet.${key}`, code: 'validation-failed' } }];

/** Waits until the state (triggers included) is what it was: a refused subscription left nothing behind. */
async function settled(before: unknown): Promise<void> {
  const same = JSON.stringify(before);
  for (let i = 0; JSON.stringify(await e.state()) !== same; i++) {
    if (i > 500) throw new Error('the state did not come back');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('subscription_root in introspection', () => {
  const rootFields = async (headers: Record<string, string>): Promise<string[] | null> => {
    const r = await gql('{ __schema { subscriptionType { name fields { name } } } }', headers);
    const t = r.data.__schema.subscriptionType as { name: string; fields: { name: string }[] } | null;
    if (t) expect(t.name).toBe('subscription_root');
    return t ? t.fields.map((f) => f.name) : null;
  };

  it('has each role\'s subscription root fields: tables, streams, functions, asynchronous action results', async () => {
    expect(await rootFields(admin)).toEqual([
      'article', 'article_aggregate', 'article_by_pk', 'article_stream', 'author', 'author_aggregate', 'author_by_pk', 'author_stream',
      'export_articles', 'search_articles', 'search_articles_aggregate',
    ]);
    // The user's article permission allows aggregations, its author permission does not; query actions never subscribe.
    expect(await rootFields(as('user'))).toEqual(['article', 'article_aggregate', 'article_by_pk', 'article_stream', 'author', 'author_by_pk', 'author_stream', 'export_articles', 'search_articles', 'search_articles_aggregate']);
    expect(await rootFields(as('anonymous'))).toEqual(['article', 'article_by_pk', 'article_stream', 'search_articles']);
    // A role that may read nothing has no subscription root, as the incumbent's.
    expect(await rootFields(as('nobody'))).toBeNull();
  });

  it('types a stream as the incumbent: batch_size, cursor of <T>_stream_cursor_input, where', async () => {
    const r = await gql(`{ s: __type(name: "subscription_root") { fields { name args { name type { kind name ofType { kind name ofType { kind name } } } } } }
      c: __type(name: "author_stream_cursor_input") { inputFields { name type { kind name ofType { name } } } }
      v: __type(name: "author_stream_cursor_value_input") { inputFields { name type { name } } }
      o: __type(name: "cursor_ordering") { enumValues { name } } }`, as('user'));
    const stream = r.data.s.fields.find((f: { name: string }) => f.name === 'author_stream');
    expect(stream.args).toEqual([
      { name: 'batch_size', type: { kind: 'NON_NULL', name: null, ofType: { kind: 'SCALAR', name: 'Int', ofType: null } } },
      { name: 'cursor', type: { kind: 'NON_NULL', name: null, ofType: { kind: 'LIST', name: null, ofType: { kind: 'INPUT_OBJECT', name: 'author_stream_cursor_input' } } } },
      { name: 'where', type: { kind: 'INPUT_OBJECT', name: 'author_bool_exp', ofType: null } },
    ]);
    expect(r.data.c.inputFields).toEqual([
      { name: 'initial_value', type: { kind: 'NON_NULL', name: null, ofType: { name: 'author_stream_cursor_value_input' } } },
      { name: 'ordering', type: { kind: 'ENUM', name: 'cursor_ordering', ofType: null } },
    ]);
    // Only the columns the role may select.
    expect(r.data.v.inputFields).toEqual([
      { name: 'bio', type: { name: 'String' } }, { name: 'id', type: { name: 'Int' } }, { name: 'is_active', type: { name: 'Boolean' } }, { name: 'name', type: { name: 'String' } },
    ]);
    expect(r.data.o.enumValues).toEqual([{ name: 'ASC' }, { name: 'DESC' }]);
  });

  it('an inherited role gets the union of its roles\' subscription root fields', async () => {
    await perm('r1', 'author', { columns: ['id'], subscription_root_fields: ['select'] });
    await perm('r2', 'author', { columns: ['id', 'name'], subscription_root_fields: ['select_by_pk'] });
    await e.ok({ type: 'add_inherited_role', args: { role_name: 'r12', role_set: ['r1', 'r2'] } });
    expect(await rootFields(as('r12'))).toEqual(['author', 'author_by_pk']);
    const r = subscribe('r12', 'subscription { author_by_pk(id: 2) { id name } }');
    await r.next(() => true, 'the result');
    expect(r.results[0]).toEqual({ data: { author_by_pk: { id: 2, name: 'Bob' } } });
    const refused = subscribe('r12', 'subscription { author_stream(batch_size: 1, cursor: {initial_value: {id: 0}}) { id } }');
    await until(() => refused.error, 'the refusal');
    expect(refused.error).toEqual(notFound('author_stream'));
  });

  it('follows subscription_root_fields, apart from query_root_fields', async () => {
    await perm('reader', 'author', { columns: ['id', 'name'], allow_aggregations: true, query_root_fields: ['select_by_pk'], subscription_root_fields: ['select', 'select_stream'] });
    expect(await rootFields(as('reader'))).toEqual(['author', 'author_stream']);
    const q = await gql('{ __schema { queryType { fields { name } } } }', as('reader'));
    expect(q.data.__schema.queryType.fields).toEqual([{ name: 'author_by_pk' }]);
  });
});

describe('subscription_root_fields enforced', () => {
  it('a live query and a stream run on root fields the query root does not have', async () => {
    await perm('reader', 'author', { columns: ['id', 'name'], query_root_fields: ['select_by_pk'], subscription_root_fields: ['select', 'select_stream'] });
    const live = subscribe('reader', 'subscription { author(order_by: {id: asc}) { id name } }');
    await live.next(() => true, 'the first result');
    expect(live.results[0]).toEqual({ data: { author: [{ id: 1, name: 'Ann' }, { id: 2, name: 'Bob' }, { id: 3, name: 'Cid' }] } });
    const stream = subscribe('reader', 'subscription { author_stream(batch_size: 10, cursor: {initial_value: {id: 1}}) { id } }');
    await stream.next(() => true, 'the first batch');
    expect(stream.results[0]).toEqual({ data: { author_stream: [{ id: 2 }, { id: 3 }] } });
    await e.db.query("INSERT INTO author (name) VALUES ('Dee')");
    await live.next((r) => r.data.author.length === 4, 'the insert in the live query');
    await stream.next((r) => r.data.author_stream[0]?.id === 4, 'the insert in the stream');
    // The query root is unchanged: the same field is not a query root field of the role.
    expect((await gql('{ author { id } }', as('reader'))).errors[0].message).toBe('field "author" not found in type: \'query_root\'');
  });

  it('a root field left out is refused with the incumbent\'s error, through an alias or a fragment too; nothing is left behind', async () => {
    await perm('reader', 'author', { columns: ['id', 'name'], subscription_root_fields: ['select_stream'] });
    await perm('reader', 'article', { columns: ['id', 'author_id'], subscription_root_fields: [] });
    const before = await e.state();
    const cases: [string, unknown][] = [
      ['subscription { author { id } }', notFound('author')],
      ['subscription { a: author_by_pk(id: 1) { id } }', notFound('author_by_pk', 'a')],
      ['subscription { ...F } fragment F on subscription_root { article { id } }', notFound('article')],
      ['subscription { ... on subscription_root { article_stream(batch_size: 1, cursor: {initial_value: {id: 0}}) { id } } }', notFound('article_stream')],
    ];
    for (const [query, error] of cases) {
      const r = subscribe('reader', query);
      await until(() => r.error, `the refusal of ${query}`);
      expect(r.error).toEqual(error);
      expect(r.results).toEqual([]);
    }
    await settled(before);
    // The same role's query root still has them (query_root_fields absent: all).
    expect(await gql('{ author(where: {id: {_eq: 1}}) { name } }', as('reader'))).toEqual({ data: { author: [{ name: 'Ann' }] } });
    // And the stream it was granted runs.
    const ok = subscribe('reader', 'subscription { author_stream(batch_size: 1, cursor: {initial_value: {id: 2}}) { name } }');
    await ok.next(() => true, 'the stream');
    expect(ok.results[0]).toEqual({ data: { author_stream: [{ name: 'Cid' }] } });
  });

  it('a table left out of the subscription root is still read through a relationship', async () => {
    await perm('reader', 'author', { columns: ['id', 'name'], subscription_root_fields: [] });
    await perm('reader', 'article', { columns: ['id', 'author_id'] });
    const r = subscribe('reader', 'subscription { article(where: {id: {_eq: 3}}) { id author { name } } }');
    await r.next(() => true, 'the result');
    expect(r.results[0]).toEqual({ data: { article: [{ id: 3, author: { name: 'Bob' } }] } });
    await e.db.query("UPDATE author SET name = 'Bobby' WHERE id = 2");
    await r.next((x) => x.data.article[0].author.name === 'Bobby', 'the related row\'s change');
  });

  it('the root of a subscription is subscription_root', async () => {
    const r = subscribe(null, 'subscription { __typename ...F } fragment F on subscription_root { author_by_pk(id: 1) { name } }');
    await r.next(() => true, 'the result');
    expect(r.results[0]).toEqual({ data: { __typename: 'subscription_root', author_by_pk: { name: 'Ann' } } });
  });
});
