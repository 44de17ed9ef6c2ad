import { afterEach, describe, expect, it } from 'vitest';
import { post } from '../helpers/engine.js';
import { legacyClient, modernClient, until, type LegacyClient, type ModernClient, type Received } from '../helpers/subscriptions.js';
import { useExampleEngine } from './graphql-fixture.js';

// Issue 32.4: streaming subscriptions `<t>_stream(batch_size, cursor, where)` as the incumbent's — rows after the
// cursor in cursor order, batch by batch, never an empty batch, a full batch completed with its last value's ties —
// pushed on commit (the fallback refetch is off here: every batch after the first ones came through a commit).

const SECRET = 'stream-s3cret';
const e = useExampleEngine({ adminSecret: SECRET, http: { liveQueriesRefetchMs: 0 } });
const admin = { 'x-engine-admin-secret': SECRET };
const user = (id: number) => ({ ...admin, 'x-engine-role': 'user', 'x-engine-user-id': String(id) });

const open: (ModernClient | LegacyClient)[] = [];
const modern = (h: Record<string, string>) => { const c = modernClient(e.url, h); open.push(c); return c; };
const legacy = (h: Record<string, string>) => { const c = legacyClient(e.url, h); open.push(c); return c; };
afterEach(async () => {
  for (const c of open.splice(0)) await ('dispose' in c ? c.dispose() : c.close());
});

const mutate = (query: string, headers: Record<string, string> = admin) => post(`${e.url}/v1/graphql`, { query }, headers);
const rows = (r: Received, key = 'article_stream') => r.results.map((x) => x.data[key]);
const count = (r: Received, n: number, what: string) => until(() => (r.results.length >= n ? true : undefined), what);

/** Waits until no trigger of the live queries is left: the state a failed subscription must come back to. */
async function settled(before: unknown): Promise<void> {
  const same = JSON.stringify(before);
  for (let i = 0; JSON.stringify(await e.state()) !== same; i++) {
    if (i > 500) throw new Error('the state did not come back');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('streams (graphql-transport-ws)', () => {
  it('existing rows in batches of batch_size, then each commit\'s new rows; an empty batch is never sent', async () => {
    const c = modern(admin);
    const r = c.subscribe('subscription { article_stream(batch_size: 2, cursor: {initial_value: {id: 0}}) { id title } }');
    await count(r, 2, 'the existing rows');
    expect(rows(r)).toEqual([[{ id: 1, title: 'Intro' }, { id: 2, title: 'Draft' }], [{ id: 3, title: 'News' }]]);
    const m = await mutate('mutation { insert_article(objects: [{title: "A", author_id: 2}, {title: "B", author_id: 2}]) { affected_rows } }');
    expect(m.body).toEqual({ data: { insert_article: { affected_rows: 2 } } });
    await count(r, 3, 'the inserted rows');
    // An update of a row already streamed is not streamed again; an outside insert is.
    await e.db.query("UPDATE article SET title = 'Intro2' WHERE id = 1");
    await e.db.query("INSERT INTO article (title, author_id) VALUES ('C', 1)");
    await count(r, 4, 'the outside insert');
    expect(rows(r).slice(2)).toEqual([[{ id: 4, title: 'A' }, { id: 5, title: 'B' }], [{ id: 6, title: 'C' }]]);
    expect(r.error).toBeUndefined();
  });

  it('a full batch is completed with every row of its last cursor value (ties), the next starts after it', async () => {
    const c = modern(admin);
    const r = c.subscribe('subscription { article_stream(batch_size: 1, cursor: [{initial_value: {author_id: 0}, ordering: ASC}]) { id author_id } }');
    await count(r, 2, 'two batches');
    expect(rows(r)[0].map((x: { id: number }) => x.id).sort()).toEqual([1, 2]);
    expect(rows(r)[1]).toEqual([{ id: 3, author_id: 2 }]);
    await e.db.query("INSERT INTO author (name) VALUES ('Dee')");
    await e.db.query("INSERT INTO article (title, author_id) VALUES ('D1', 4), ('D2', 4), ('D3', 4)");
    await count(r, 3, 'the new author\'s rows');
    expect(rows(r)[2].map((x: { id: number }) => x.id).sort()).toEqual([4, 5, 6]);
  });

  it('a bigint cursor past 2^53 keeps its digits: the row at the cursor is not sent again', async () => {
    const c = modern(admin);
    const r = c.subscribe('subscription { article_stream(batch_size: 5, cursor: {initial_value: {views: -1}}) { id } }');
    await count(r, 1, 'the rows');
    expect(rows(r)).toEqual([[{ id: 2 }, { id: 3 }, { id: 1 }]]);
    // Intro's views are 9007199254740993: a cursor rounded to ...992 would send Intro again with the new row.
    await e.db.query("INSERT INTO article (title, author_id, views) VALUES ('Big', 1, 9007199254740994)");
    await count(r, 2, 'the new row');
    expect(rows(r)[1]).toEqual([{ id: 4 }]);
  });

  it('DESC with where, an alias and variables (legacy graphql-ws)', async () => {
    const c = legacy(admin);
    const r = c.subscribe('subscription($from: Int!, $n: Int!) { s: article_stream(batch_size: $n, cursor: {initial_value: {id: $from}, ordering: DESC}, where: {published: {_eq: true}}) { id } }', { from: 100, n: 5 });
    await count(r, 1, 'the batch');
    expect(rows(r, 's')).toEqual([[{ id: 3 }, { id: 1 }]]);
    // Rows above the cursor (now 1) never come in a DESC stream.
    await e.db.query("INSERT INTO article (title, author_id, published) VALUES ('Later', 1, true)");
    const probe = c.subscribe('subscription { s: article_stream(batch_size: 5, cursor: {initial_value: {id: 3}}) { id } }');
    await count(probe, 1, 'the probe');
    expect(rows(probe, 's')).toEqual([[{ id: 4 }]]);
    expect(r.results).toHaveLength(1);
  });

  it('a user streams only the rows its permission shows', async () => {
    const two = modern(user(2));
    const r = two.subscribe('subscription { article_stream(batch_size: 10, cursor: {initial_value: {id: 0}}) { id title } }');
    await count(r, 1, 'the visible rows');
    expect(rows(r)).toEqual([[{ id: 1, title: 'Intro' }, { id: 3, title: 'News' }]]);
    await mutate('mutation { insert_article_one(object: {title: "Secret"}) { id } }', user(1));
    await mutate('mutation { insert_article_one(object: {title: "Mine"}) { id } }', user(2));
    await count(r, 2, 'user 2\'s own row');
    expect(rows(r)).toEqual([[{ id: 1, title: 'Intro' }, { id: 3, title: 'News' }], [{ id: 5, title: 'Mine' }]]);
  });
});

describe('stream errors: the error message, nothing changed', () => {
  const cases: [string, string, unknown][] = [
    ['two cursors', 'subscription { article_stream(batch_size: 1, cursor: [{initial_value: {id: 0}}, {initial_value: {title: ""}}]) { id } }',
      { message: 'one cursor is expected: multiple column cursors are not supported', extensions: { path: '$.selectionSet.article_stream.args.cursor', code: 'validation-failed' } }],
    ['no batch_size', 'subscription { article_stream(cursor: {initial_value: {id: 0}}) { id } }',
      { message: 'the argument "batch_size" must be a non-negative Int', extensions: { path: '$.selectionSet.article_stream.args.batch_size', code: 'validation-failed' } }],
    ['an unknown cursor column', 'subscription { article_stream(batch_size: 1, cursor: {initial_value: {nope: 0}}) { id } }',
      { message: 'field "nope" not found in type: \'article_stream_cursor_value_input\'', extensions: { path: '$.selectionSet.article_stream.args.cursor.initial_value.nope', code: 'validation-failed' } }],
    ['a second root field', 'subscription { article_stream(batch_size: 1, cursor: {initial_value: {id: 0}}) { id } author { id } }',
      { message: 'a streaming subscription must have exactly one root field', extensions: { path: '$.selectionSet', code: 'validation-failed' } }],
    ['an unknown argument', 'subscription { article_stream(batch_size: 1, cursor: {initial_value: {id: 0}}, limit: 3) { id } }',
      { message: '\'article_stream\' has no argument named \'limit\'', extensions: { path: '$.selectionSet.article_stream.args.limit', code: 'validation-failed' } }],
    ['a column of the selection that does not exist', 'subscription { article_stream(batch_size: 1, cursor: {initial_value: {id: 0}}) { nope } }',
      { message: 'field "nope" not found in type: \'article\'', extensions: { path: '$.selectionSet.article_stream.selectionSet.nope', code: 'validation-failed' } }],
  ];
  for (const [name, query, error] of cases) {
    it(name, async () => {
      const before = await e.state();
      const c = modern(admin);
      const r = c.subscribe(query);
      await until(() => r.error, 'the error');
      expect(r.error).toEqual([error]);
      expect(r.results).toEqual([]);
      await settled(before);
    });
  }

  it('a role whose subscription_root_fields leave out select_stream has no such field', async () => {
    await e.ok({ type: 'create_select_permission', args: { table: 'author', role: 'reader', permission: { columns: ['id'], filter: {}, subscription_root_fields: ['select'] } } });
    const before = await e.state();
    const c = modern({ ...admin, 'x-engine-role': 'reader' });
    const r = c.subscribe('subscription { author_stream(batch_size: 1, cursor: {initial_value: {id: 0}}) { id } }');
    await until(() => r.error, 'the error');
    expect(r.error).toEqual([{ message: 'field "author_stream" not found in type: \'subscription_root\'', extensions: { path: '$.selectionSet.author_stream', code: 'validation-failed' } }]);
    await settled(before);
  });
});
