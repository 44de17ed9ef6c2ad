import type { Server } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Engine } from '../../src/server/engine.js';
import { GraphqlService } from '../../src/server/graphql/service.js';
import { createHttpServer, listen } from '../../src/server/http/index.js';
import { silentLogger } from '../../src/logger.js';
import { post } from '../helpers/engine.js';
import { countingDatabase } from '../helpers/counting-db.js';
import { startWebhook } from '../helpers/webhook.js';
import { as, USER2, useExampleEngine, type Headers } from './graphql-fixture.js';

// graphql-api.md §7.1–§7.2 (one statement per root field, no N+1), §4.1 (one read-only transaction, none without
// SQL), §7.4 (plan cache, evicted on metadata change) and §2.1/engine-api.md §3.3 (a second instance on the same
// database sees metadata changes made through the first).

const e = useExampleEngine();

let second: { url: string; server: Server; log: string[]; params: unknown[][]; service: GraphqlService };

beforeEach(async () => {
  const counting = countingDatabase(e.db);
  const engine = await Engine.start(counting.db, silentLogger);
  const service = new GraphqlService(engine);
  const server = createHttpServer(engine, { logger: { ...silentLogger, error: (m: string) => console.error(m) }, graphql: service });
  const addr = await listen(server, 0, '127.0.0.1');
  second = { url: `http://127.0.0.1:${addr.port}`, server, log: counting.log, params: counting.params, service };
  counting.log.length = 0;
});

afterEach(async () => {
  await new Promise<void>((resolve) => {
    second.server.close(() => resolve());
    second.server.closeAllConnections();
  });
});

/** Sends the query to the counting instance and returns the body and the statements it sent. */
async function run(query: string, headers: Headers = {}, variables?: unknown): Promise<{ body: any; statements: string[] }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  second.log.length = 0;
  const r = await post(`${second.url}/v1/graphql`, variables === undefined ? { query } : { query, variables }, headers);
  expect(r.status).toBe(200);
  return { body: r.body, statements: [...second.log] };
}

const VERSION_CHECK = /^SELECT resource_version/;
const isVersionCheck = (s: string) => VERSION_CHECK.test(s);

describe('§7.1–§7.2 one statement per root field', () => {
  it('1,000 authors × 3 articles × author: one statement in one transaction', async () => {
    await e.sql(`INSERT INTO author (name) SELECT 'a' || g FROM generate_series(1, 997) g;
      INSERT INTO article (title, author_id, published) SELECT 't' || a.id || '-' || k, a.id, true FROM author a, generate_series(1, 3) k WHERE a.id > 2;`);
    const { body, statements } = await run('{ author(order_by: {id: asc}) { id articles(order_by: {id: asc}) { id author { name } } } }', USER2);
    expect(body.data.author).toHaveLength(1000);
    expect(body.data.author[999].articles).toHaveLength(3);
    expect(body.data.author[999].articles[0].author).toEqual({ name: 'a997' });
    expect(statements.filter((s) => !isVersionCheck(s))).toEqual(['BEGIN', expect.stringMatching(/^SELECT /), 'COMMIT']);
    // The version check is sent with BEGIN (one round trip, TransactionOptions.first): three round trips in all.
    expect(statements.slice(0, 2)).toEqual(['BEGIN', expect.stringMatching(VERSION_CHECK)]);
    expect(statements.filter(isVersionCheck)).toHaveLength(1);
  });

  it('each root field is one statement; aggregates, filters through relationships and computed fields add none', async () => {
    const { body, statements } = await run(`{ a: author(where: {articles: {author: {name: {_eq: "Ann"}}}}) { full_name greet(args: {greeting: "Hi"}) articles_aggregate { aggregate { count } nodes { title } } }
      b: article_aggregate(where: {author: {is_active: {_eq: true}}}) { aggregate { sum { views } } } c: search_articles(args: {search: "e"}) { author { name } } __typename }`, USER2);
    expect(Object.keys(body.data)).toEqual(['a', 'b', 'c', '__typename']);
    const inTx = statements.filter((s) => !isVersionCheck(s));
    expect(inTx).toHaveLength(5);
    expect(inTx[0]).toBe('BEGIN');
    expect(inTx[4]).toBe('COMMIT');
  });

  it('introspection, __typename and no_queries_available send no statement besides the version check; errors stop before SQL', async () => {
    expect((await run('{ __typename __schema { queryType { name } } }', USER2)).statements.filter((s) => !isVersionCheck(s))).toEqual([]);
    expect((await run('{ no_queries_available }', as('nobody'))).statements.filter((s) => !isVersionCheck(s))).toEqual([]);
    const missing = await run('{ author { id } article { id } }', as('user'));
    expect(missing.body.errors[0].message).toBe('missing session variable: "x-engine-user-id"');
    expect(missing.statements.filter((s) => !isVersionCheck(s))).toEqual([]);
  });

  it('SQL text never contains a value: literals, variables and session variables are parameters', async () => {
    const { statements } = await run('query ($t: String!) { article(where: {title: {_eq: $t}, content: {_ilike: "zz_literal%"}}) { id } }', as('user', 'zz_session'), { t: 'zz_variable' });
    const sql = statements.find((s) => s.startsWith('SELECT ('));
    expect(sql).toBeDefined();
    expect(sql).not.toMatch(/zz_/);
  });
});

describe('§7.4 plan cache', () => {
  it('a repeated request skips parsing, validation and compilation; one plan serves every user of a role', async () => {
    const query = '{ article(order_by: {id: asc}) { id } }';
    const one = await run(query, as('user', 1));
    const two = await run(query, as('user', 2));
    expect(one.body.data.article.map((a: { id: number }) => a.id)).toEqual([1, 2, 3]);
    expect(two.body.data.article.map((a: { id: number }) => a.id)).toEqual([1, 3]);
    expect(second.service.stats).toEqual({ prepared: 1, compiled: 1 });
    await run(query, as('user', 2), {});
    await run(query, as('anonymous'));
    expect(second.service.stats).toEqual({ prepared: 2, compiled: 2 });
  });

  it('scalar variables are bound, not compiled: one plan serves every value; limits are checked when bound', async () => {
    const query = 'query ($t: String!, $l: Int, $n: String!) { article(where: {title: {_neq: $t}}, order_by: {id: asc}, limit: $l) { id } t: __type(name: $n) { name } }';
    const a = await run(query, {}, { t: 'Draft', l: 5, n: 'article' });
    const b = await run(query, {}, { t: 'Intro', l: 1, n: 'author' });
    expect(a.body).toEqual({ data: { article: [{ id: 1 }, { id: 3 }], t: { name: 'article' } } });
    expect(b.body).toEqual({ data: { article: [{ id: 2 }], t: { name: 'author' } } });
    expect(second.service.stats).toEqual({ prepared: 1, compiled: 1 });
    expect((await run(query, {}, { t: 'x', l: -1, n: 'x' })).body).toEqual({ errors: [{ message: 'unexpected negative value', extensions: { path: '$.selectionSet.article.args.limit', code: 'validation-failed' } }] });
    expect((await run(query, as('user', 2), { t: 'x', l: 10, n: 'x' })).body.data.article).toEqual([{ id: 1 }, { id: 3 }]);
    expect((await run(query, as('user'), { t: 'x', l: -1, n: 'x' })).body.errors[0].message).toBe('unexpected negative value');
    // null, objects and booleans shape the SQL: they get plans of their own.
    expect((await run(query, {}, { t: 'x', l: null, n: 'x' })).body.data.article).toHaveLength(3);
    expect(second.service.stats.compiled).toBe(3);
  });

  it('is cleared by a metadata change, seen by the next request on another instance (§2.1, engine-api.md §3.3)', async () => {
    const query = '{ article(order_by: {id: asc}) { id } }';
    expect((await run(query, as('anonymous'))).body.data.article).toEqual([{ id: 1 }, { id: 3 }]);
    await e.ok({ type: 'drop_select_permission', args: { table: 'article', role: 'anonymous' } });
    const after = await run(query, as('anonymous'));
    expect(after.body).toEqual({ errors: [{ message: 'field "article" not found in type: \'query_root\'', extensions: { path: '$.selectionSet.article', code: 'validation-failed' } }] });
    await e.ok({ type: 'create_select_permission', args: { table: 'article', role: 'anonymous', permission: { columns: ['id'], filter: { id: 1 } } } });
    expect((await run(query, as('anonymous'))).body.data.article).toEqual([{ id: 1 }]);
    expect(second.service.stats).toEqual({ prepared: 2, compiled: 2 });
  });

  it('a mutation planned before another instance changed the metadata writes nothing and is planned again', async () => {
    const mutation = 'mutation { update_article(where: {}, _set: {title: "Stale"}) { affected_rows } }';
    const before = await e.db.query<{ title: string }>('SELECT title FROM article ORDER BY id');
    // Planned and cached on the counting instance; the update is within user 1's filter but changes no title.
    const first = await run('mutation { update_article(where: {id: {_eq: 0}}, _set: {title: "Stale"}) { affected_rows } }', as('user', 1));
    expect(first.body).toEqual({ data: { update_article: { affected_rows: 0 } } });
    await e.ok({ type: 'drop_update_permission', args: { table: 'article', role: 'user' } });
    const after = await run(mutation, as('user', 1));
    expect(after.body).toEqual({ errors: [{ message: 'field "update_article" not found in type: \'mutation_root\'', extensions: { path: '$.selectionSet.update_article', code: 'validation-failed' } }] });
    expect(await e.db.query('SELECT title FROM article ORDER BY id')).toEqual(before);
  });

  it('a mutation on a held, stale schema runs its guarded statement once, is rolled back and planned again', async () => {
    const mutation = 'mutation { update_article_by_pk(pk_columns: {id: 1}, _set: {title: "Kept"}) { title } }';
    expect((await run(mutation)).body).toEqual({ data: { update_article_by_pk: { title: 'Kept' } } });
    // Through the other instance: a change the counting instance has not seen; it still holds the old cache.
    await e.ok({ type: 'create_select_permission', args: { table: 'author', role: 'stale_probe', permission: { columns: ['id'], filter: {} } } });
    const again = await run(mutation.replace('Kept', 'Again'));
    expect(again.body).toEqual({ data: { update_article_by_pk: { title: 'Again' } } });
    const writes = again.statements.filter((x) => x.startsWith('WITH "m" AS (UPDATE'));
    // The first attempt was aborted by its guard (stale plan), the second ran on the refreshed schema.
    expect(writes).toHaveLength(2);
    expect(await e.db.query('SELECT title FROM article WHERE id = 1')).toEqual([{ title: 'Again' }]);
  });
});

describe('§2.1 the schema follows the metadata', () => {
  it('reload_metadata clears cached plans although resource_version stays the same', async () => {
    expect((await run('{ author_by_pk(id: 1) { bio } }')).body).toEqual({ data: { author_by_pk: { bio: 'Writes' } } });
    await e.db.runScript('ALTER TABLE author RENAME COLUMN bio TO biography');
    expect((await post(`${second.url}/v1/query`, { type: 'reload_metadata', args: {} })).status).toBe(200);
    expect((await run('{ author_by_pk(id: 1) { bio } }')).body.errors[0].message).toBe('field "bio" not found in type: \'author\'');
  });


  it('run_sql renaming a column, reload_metadata and replace_metadata are seen by the next request', async () => {
    await e.sql('ALTER TABLE author RENAME COLUMN bio TO biography');
    expect((await run('{ author_by_pk(id: 1) { biography } }')).body).toEqual({ data: { author_by_pk: { biography: 'Writes' } } });
    await e.db.runScript('ALTER TABLE author ADD COLUMN nick text');
    expect((await run('{ author_by_pk(id: 1) { nick } }')).body.errors[0].message).toBe('field "nick" not found in type: \'author\'');
    // reload_metadata never changes resource_version (engine-api.md §3.3): it is seen by the instance that ran it.
    expect((await post(`${second.url}/v1/query`, { type: 'reload_metadata', args: {} })).status).toBe(200);
    expect((await run('{ author_by_pk(id: 1) { nick } }')).body).toEqual({ data: { author_by_pk: { nick: null } } });
    await e.ok({ type: 'replace_metadata', args: { version: 2, tables: [{ table: { schema: 'public', name: 'author' } }] } });
    expect((await run('{ __schema { queryType { fields { name } } } }')).body.data.__schema.queryType.fields.map((f: { name: string }) => f.name))
      .toEqual(['author', 'author_aggregate', 'author_by_pk']);
  });

  it('an inconsistent object is absent from every schema', async () => {
    const metadata = { version: 2, tables: [
      { table: { schema: 'public', name: 'author' }, array_relationships: [{ name: 'gone', using: { manual_configuration: { remote_table: 'nope', column_mapping: { id: 'id' } } } }] },
      { table: { schema: 'public', name: 'missing' } },
    ] };
    await e.ok({ type: 'replace_metadata', args: { metadata, allow_inconsistent_metadata: true } });
    const names = (await run('{ __schema { queryType { fields { name } } } }')).body.data.__schema.queryType.fields.map((f: { name: string }) => f.name);
    expect(names).toEqual(['author', 'author_aggregate', 'author_by_pk']);
    expect((await run('{ author { gone { id } } }')).body.errors[0].message).toBe('field "gone" not found in type: \'author\'');
  });
});

describe('§7.1 synchronous actions', () => {
  it('send no statement, or one when the selection uses relationships, with the handler\'s objects as one parameter', async () => {
    const hook = await startWebhook((_, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('[{"id":1},{"id":2},{"id":3}]');
    });
    try {
      await e.ok({ type: 'update_action', args: { name: 'create_user', definition: { handler: hook.url, output_type: '[UserId!]!', arguments: [{ name: 'email', type: 'String!' }] } } });
      await run('{ __typename }'); // the counting instance reloads the changed metadata here
      let r = await run('mutation { create_user(email: "e") { id } }', USER2);
      expect(r.body).toEqual({ data: { create_user: [{ id: 1 }, { id: 2 }, { id: 3 }] } });
      expect(r.statements.filter((s) => !isVersionCheck(s))).toEqual([]);
      r = await run('mutation { create_user(email: "e") { id author { name articles { author { name } } } } }', USER2);
      expect(r.body.data.create_user.map((u: { author: { name: string } }) => u.author.name)).toEqual(['Ann', 'Bob', 'Cid']);
      expect(r.statements.filter((s) => !isVersionCheck(s))).toEqual(['BEGIN', expect.stringMatching(/^SELECT /), 'COMMIT']);
    } finally {
      await hook.close();
    }
  });
});

describe('§7.1–§7.3 mutations: one statement per root field, checks in it', () => {
  const inTx = (s: string[]) => s.filter((x) => !isVersionCheck(x));
  // Each statement records who writes and checks the plan's resource_version itself, before it writes (its guard).
  const GUARD = /FROM \(SELECT set_config\('engine\.session_variables', \$\d+::text, true\) AS "s", set_config\('hasura\.user', [^]*?, true\) AS "h", CASE WHEN \(SELECT resource_version FROM engine_catalog\.metadata_globals WHERE id = 1\) IS DISTINCT FROM \$\d+::integer THEN engine_catalog\.raise_error\('EN002', 'stale plan'\) END AS "v"\) AS "_g"$/;
  const guarded = (write: string) => expect.stringMatching(new RegExp(`^WITH "m" AS \\(${write} [^]*${GUARD.source}`));

  it('1,000 inserted objects with a check through a relationship and returning: one statement', async () => {
    const objects = Array.from({ length: 1000 }, (_, i) => ({ title: `t${i}`, content: String(i) }));
    const { body, statements } = await run('mutation ($o: [article_insert_input!]!) { insert_article(objects: $o) { affected_rows returning { id author { name } } } }', as('user', 1), { o: objects });
    expect(body.data.insert_article.affected_rows).toBe(1000);
    expect(body.data.insert_article.returning).toHaveLength(1000);
    expect(body.data.insert_article.returning[999].author).toEqual({ name: 'Ann' });
    expect(inTx(statements)).toEqual(['BEGIN', guarded('INSERT'), 'COMMIT']);
  });

  it('a failed check costs no extra statement: the statement aborts itself; the session variables are its parameter', async () => {
    second.log.length = 0;
    second.params.length = 0;
    const { body, statements } = await run('mutation { insert_article_one(object: {title: "Mine"}) { id } }', as('user', 3));
    expect(body.errors[0].message).toBe('check constraint of an insert permission has failed');
    expect(inTx(statements)).toEqual(['BEGIN', guarded('INSERT'), 'COMMIT']);
    expect(inTx(statements)[1]).toMatch(/THEN engine_catalog\.raise_error\('EN001', 'insert'\)/);
    expect(second.params.flat()).toContain('{"x-engine-role":"user","x-engine-user-id":"3"}');
  });

  it('three root fields: three statements in one transaction, in document order', async () => {
    const { body, statements } = await run(`mutation { a: update_article(where: {id: {_eq: 2}}, _set: {title: "T"}, _inc: {views: 1}) { affected_rows }
      b: delete_article_by_pk(id: 2) { title views } c: insert_author_one(object: {name: "Dee"}) { id } }`);
    expect(body).toEqual({ data: { a: { affected_rows: 1 }, b: { title: 'T', views: 1 }, c: { id: 4 } } });
    expect(inTx(statements)).toEqual(['BEGIN', guarded('UPDATE'), guarded('DELETE'), guarded('INSERT'), 'COMMIT']);
  });

  it('SQL text never contains a value: objects, presets, session variables and checks are parameters', async () => {
    const { statements } = await run('mutation ($c: String) { insert_article(objects: [{title: "zz_literal", content: $c}]) { returning { id } } update_article(where: {title: {_eq: "zz_where"}}, _set: {content: "zz_set"}) { affected_rows } }', { ...as('user', 1), 'x-engine-extra': 'zz_session' }, { c: 'zz_variable' });
    const sql = statements.filter((s) => s.startsWith('WITH'));
    expect(sql).toHaveLength(2);
    for (const s of sql) expect(s).not.toMatch(/zz_/);
    expect(second.params.flat().join(' ')).toMatch(/zz_session/);
  });
});
