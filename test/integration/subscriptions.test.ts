import { afterEach, describe, expect, it } from 'vitest';
import { post } from '../helpers/engine.js';
import { legacyClient, modernClient, rawSocket, until, type LegacyClient, type ModernClient } from '../helpers/subscriptions.js';
import { useExampleEngine } from './graphql-fixture.js';

// Issue 32.1–32.3: live queries over both WebSocket protocols of /v1/graphql, pushed on commit. The fallback refetch
// is off here (0), so every update below arrived through a commit's notification, never a timer.

const SECRET = 'subs3cret';
const e = useExampleEngine({ adminSecret: SECRET, http: { liveQueriesRefetchMs: 0 } });
const admin = { 'x-engine-admin-secret': SECRET };
const user = (id: number) => ({ ...admin, 'x-engine-role': 'user', 'x-engine-user-id': String(id) });

const open: (ModernClient | LegacyClient)[] = [];
const modern = (h: Record<string, string>) => { const c = modernClient(e.url, h); open.push(c); return c; };
const legacy = (h: Record<string, string>) => { const c = legacyClient(e.url, h); open.push(c); return c; };
afterEach(async () => {
  for (const c of open.splice(0)) await ('dispose' in c ? c.dispose() : c.close());
});

const mutate = (query: string, headers: Record<string, string>) => post(`${e.url}/v1/graphql`, { query }, headers);
const titles = (r: any) => (r.data.article as { title: string }[]).map((a) => a.title); // eslint-disable-line @typescript-eslint/no-explicit-any

describe('live queries (graphql-transport-ws)', () => {
  it('the first result at once; a mutation through the engine and an outside SQL write arrive', async () => {
    const c = modern(admin);
    const r = c.subscribe('subscription { article(order_by: {id: asc}) { title } }');
    expect(titles(await r.next(() => true))).toEqual(['Intro', 'Draft', 'News']);
    const m = await mutate('mutation { insert_article_one(object: {title: "Live", author_id: 2}) { id } }', admin);
    expect(m.body.data.insert_article_one.id).toBe(4);
    await r.next((x) => titles(x).includes('Live'), 'the inserted row');
    await e.db.query("UPDATE article SET title = 'Outside' WHERE id = 1");
    expect(titles(await r.next((x) => titles(x)[0] === 'Outside', 'the outside write'))).toEqual(['Outside', 'Draft', 'News', 'Live']);
  });

  it('_by_pk, _aggregate and relationships, with variables', async () => {
    const c = modern(admin);
    const byPk = c.subscribe('subscription($id: Int!) { author_by_pk(id: $id) { name articles(order_by: {id: asc}) { title } } }', { id: 1 });
    const agg = c.subscribe('subscription { article_aggregate { aggregate { count } } }');
    expect((await byPk.next(() => true)).data).toEqual({ author_by_pk: { name: 'Ann', articles: [{ title: 'Intro' }, { title: 'Draft' }] } });
    expect((await agg.next(() => true)).data).toEqual({ article_aggregate: { aggregate: { count: 3 } } });
    await e.db.query("INSERT INTO article (title, author_id) VALUES ('More', 1)");
    await byPk.next((x) => x.data.author_by_pk.articles.length === 3, 'the related row');
    await agg.next((x) => x.data.article_aggregate.aggregate.count === 4, 'the new count');
  });

  it('user 2 never receives user 1\'s rows, also through a relationship', async () => {
    const one = modern(user(1));
    const two = modern(user(2));
    const q = 'subscription { author(order_by: {id: asc}) { name articles(order_by: {id: asc}) { title } } }';
    const r1 = one.subscribe(q);
    const r2 = two.subscribe(q);
    const drafts = (x: any) => JSON.stringify(x).includes('Draft'); // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(drafts(await r1.next(() => true))).toBe(true);
    expect(drafts(await r2.next(() => true))).toBe(false);
    // User 1 writes a second draft; user 2's result does not change, so user 2 receives nothing new.
    await mutate('mutation { insert_article_one(object: {title: "Secret"}) { id } }', user(1));
    await r1.next((x) => JSON.stringify(x).includes('Secret'), 'user 1\'s draft');
    await mutate('mutation { update_article_by_pk(pk_columns: {id: 3}, _set: {title: "News2"}) { id } }', user(2));
    await r2.next((x) => JSON.stringify(x).includes('News2'), 'user 2\'s own change');
    expect(r2.results.some((x) => JSON.stringify(x).includes('Secret') || drafts(x))).toBe(false);
    expect(r2.results).toHaveLength(2);
  });

  it('queries and mutations over the socket: one result, then complete', async () => {
    const c = modern(admin);
    const q = c.subscribe('{ author_by_pk(id: 2) { name } }');
    await until(() => (q.done ? true : undefined), 'complete');
    expect(q.results).toEqual([{ data: { author_by_pk: { name: 'Bob' } } }]);
    const m = c.subscribe('mutation { update_author_by_pk(pk_columns: {id: 2}, _set: {name: "Bo"}) { name } }');
    await until(() => (m.done ? true : undefined), 'complete');
    expect(m.results).toEqual([{ data: { update_author_by_pk: { name: 'Bo' } } }]);
  });

  it('a validation error is an error message with the errors; nothing changed', async () => {
    const before = await e.state();
    const c = modern(admin);
    const r = c.subscribe('subscription { article { nope } }');
    await until(() => r.error, 'the error');
    expect(r.error).toEqual([{ message: 'field "nope" not found in type: \'article\'', extensions: { path: '$.selectionSet.article.selectionSet.nope', code: 'validation-failed' } }]);
    expect(r.results).toEqual([]);
    // The trigger installed for the failed live query is dropped as it ends.
    const same = JSON.stringify(before);
    for (let i = 0; JSON.stringify(await e.state()) !== same; i++) {
      if (i > 500) throw new Error('the state did not come back');
      await new Promise((r) => setTimeout(r, 10));
    }
  });

  it('a wrong admin secret closes the socket with 4403', async () => {
    const c = modern({ 'x-engine-admin-secret': 'wrong' });
    const r = c.subscribe('subscription { article { id } }');
    await until(() => c.closed ?? undefined, 'the close');
    expect(c.closed).toEqual({ code: 4403, reason: 'Forbidden: invalid x-engine-admin-secret' });
    expect(r.results).toEqual([]);
  });

  it('ping is answered with pong; an unknown message closes with 4400; a second connection_init with 4429', async () => {
    const s = rawSocket(e.url, 'graphql-transport-ws');
    await s.open;
    expect(s.ws.protocol).toBe('graphql-transport-ws');
    s.ws.send(JSON.stringify({ type: 'connection_init', payload: { headers: admin } }));
    s.ws.send(JSON.stringify({ type: 'ping', payload: { n: 1 } }));
    await until(() => (s.messages.length >= 2 ? true : undefined), 'ack and pong');
    expect(s.messages).toEqual([{ type: 'connection_ack' }, { type: 'pong', payload: { n: 1 } }]);
    s.ws.send(JSON.stringify({ type: 'connection_init', payload: { headers: admin } }));
    await until(() => s.closed ?? undefined, 'the close');
    expect(s.closed).toEqual({ code: 4429, reason: 'Too many initialisation requests' });
    const t = rawSocket(e.url, 'graphql-transport-ws');
    await t.open;
    t.ws.send('{"type":"test"}');
    await until(() => t.closed ?? undefined, 'the close');
    expect(t.closed).toEqual({ code: 4400, reason: 'Invalid message type "test"' });
  });

  it('a subscribe before connection_init closes with 4401', async () => {
    const s = rawSocket(e.url, 'graphql-transport-ws');
    await s.open;
    s.ws.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: '{ __typename }' } }));
    await until(() => s.closed ?? undefined, 'the close');
    expect(s.closed).toEqual({ code: 4401, reason: 'Unauthorized' });
  });

  it('an upgrade on another path is refused with 404', async () => {
    const s = rawSocket(e.url.replace(/$/, '/v1'), 'graphql-transport-ws');
    await expect(s.open).rejects.toThrow(/404/);
  });
});

describe('live queries (legacy graphql-ws of subscriptions-transport-ws)', () => {
  it('data at once and on commit; a query completes', async () => {
    const c = legacy(user(2));
    const r = c.subscribe('subscription { article(order_by: {id: asc}) { title } }');
    expect(titles(await r.next(() => true))).toEqual(['Intro', 'News']);
    await e.db.query("UPDATE article SET published = true WHERE id = 2");
    expect(titles(await r.next((x) => titles(x).length === 3, 'the published draft'))).toEqual(['Intro', 'Draft', 'News']);
    const q = c.subscribe('query { author_by_pk(id: 1) { name } }');
    await until(() => (q.done ? true : undefined), 'complete');
    expect(q.results).toEqual([{ data: { author_by_pk: { name: 'Ann' } } }]);
  });

  it('errors as {errors}; connection_error for a bad message and for a wrong secret; ka keep-alive', async () => {
    const s = rawSocket(e.url, 'graphql-ws');
    await s.open;
    s.ws.send(JSON.stringify({ type: 'connection_init', payload: { headers: admin } }));
    s.ws.send(JSON.stringify({ id: '2', type: 'start', payload: { query: 'subscription { nope { id } }' } }));
    s.ws.send('{"type":"stop"}');
    await until(() => (s.messages.length >= 4 ? true : undefined), 'four messages');
    expect(s.messages.slice(0, 2)).toEqual([{ type: 'connection_ack' }, { type: 'ka' }]);
    expect(s.messages.slice(2)).toContainEqual({ type: 'connection_error', payload: { message: '"stop" without an id' } });
    expect(s.messages.slice(2)).toContainEqual({ type: 'error', id: '2', payload: { errors: [{ message: 'field "nope" not found in type: \'subscription_root\'', extensions: { path: '$.selectionSet.nope', code: 'validation-failed' } }] } });
    const bad = rawSocket(e.url, 'graphql-ws');
    await bad.open;
    bad.ws.send(JSON.stringify({ type: 'connection_init', payload: { headers: { 'x-engine-admin-secret': 'wrong' } } }));
    await until(() => bad.closed ?? undefined, 'the close');
    expect(bad.messages).toEqual([{ type: 'connection_error', payload: { message: 'invalid x-engine-admin-secret' } }]);
    expect(bad.closed?.code).toBe(4403);
  });
});
