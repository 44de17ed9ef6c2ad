import type { ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { asyncTargets } from '../../src/server/graphql/actions/index.js';
import { GraphqlService } from '../../src/server/graphql/service.js';
import { ActionWorker } from '../../src/server/workers/action-worker.js';
import { startWebhook, type Webhook } from '../helpers/webhook.js';
import { legacyClient, modernClient, until, type LegacyClient, type ModernClient } from '../helpers/subscriptions.js';
import { gql, USER1, USER2, useExampleEngine } from './graphql-fixture.js';

// Issue 32.5: an asynchronous action's result as a subscription. The worker's recording of the handler's answer is a
// commit on the action log, which wakes the subscription at once (the fallback refetch is off here).

const env: Record<string, string | undefined> = {};
const e = useExampleEngine({ env, http: { liveQueriesRefetchMs: 0 } });
let hook: Webhook;
/** The handler's answers wait here until the test releases them. */
const waiting: ServerResponse[] = [];
const workers: ActionWorker[] = [];
const open: (ModernClient | LegacyClient)[] = [];

beforeAll(async () => {
  hook = await startWebhook((_req, res) => { waiting.push(res); });
});
afterAll(async () => hook.close());
afterEach(async () => {
  for (const res of waiting.splice(0)) res.destroy();
  for (const c of open.splice(0)) await ('dispose' in c ? c.dispose() : c.close());
  for (const w of workers.splice(0)) await w.stop();
});

async function start(): Promise<void> {
  await e.ok({ type: 'update_action', args: { name: 'export_articles', definition: {
    kind: 'asynchronous', handler: `${hook.url}/export`, output_type: 'ExportResult', arguments: [{ name: 'format', type: 'String!' }],
  } } });
  const service = new GraphqlService(e.engine, env);
  workers.push(await ActionWorker.start(e.db, { targets: async () => asyncTargets(await service.schemaFor('admin')), env }));
}

async function call(headers: Record<string, string>): Promise<string> {
  const r = await gql(e, { query: 'mutation { export_articles(format: "csv") }' }, headers);
  const id = (r.body as { data?: { export_articles?: string } }).data?.export_articles;
  if (typeof id !== 'string') throw new Error(`no id: ${r.text}`);
  return id;
}

const answer = (status: number, body: unknown) => {
  const res = waiting.shift() as ServerResponse;
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

const RESULT = 'subscription($id: uuid!) { export_articles(id: $id) { id output { url } errors } }';

describe('async action results through subscriptions', () => {
  it('the pending result at once, the handler\'s answer when the worker records it; another user never sees it', async () => {
    await start();
    const id = await call(USER2);
    const mine = modernClient(e.url, USER2);
    const other = modernClient(e.url, USER1);
    open.push(mine, other);
    const r = mine.subscribe(RESULT, { id });
    const theirs = other.subscribe(RESULT, { id });
    expect((await r.next(() => true)).data).toEqual({ export_articles: { id, output: null, errors: null } });
    expect((await theirs.next(() => true)).data).toEqual({ export_articles: null });
    await until(() => (waiting.length > 0 ? true : undefined), 'the handler\'s call');
    answer(200, { url: 'https://x/y.csv' });
    const done = await r.next((x) => x.data.export_articles.output !== null, 'the recorded result');
    expect(done.data).toEqual({ export_articles: { id, output: { url: 'https://x/y.csv' }, errors: null } });
    // User 1's cohort was refetched on the same commit: its answer did not change, so nothing was sent.
    expect(theirs.results).toEqual([{ data: { export_articles: null } }]);
  });

  it('a handler\'s error arrives as the result\'s errors (legacy graphql-ws)', async () => {
    await start();
    const id = await call(USER2);
    const c = legacyClient(e.url, USER2);
    open.push(c);
    const r = c.subscribe(RESULT, { id });
    await r.next(() => true);
    await until(() => (waiting.length > 0 ? true : undefined), 'the handler\'s call');
    answer(400, { message: 'no export today' });
    const failed = await r.next((x) => x.data.export_articles.errors !== null, 'the recorded error');
    expect(failed.data.export_articles.output).toBeNull();
    expect(JSON.stringify(failed.data.export_articles.errors)).toContain('no export today');
  });
});
