import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.js';
import { client, closeAfterEach, failure, SECRET, summary } from './engine-client-fixtures.js';

// The CLI's HTTP client against the real engine (cli.md §1.5, §3.6, §6). Servers we control: engine-client-*.test.ts.

closeAfterEach();

describe('against the real engine', () => {
  let te: TestEngine;
  beforeAll(async () => {
    te = await startTestEngine({ adminSecret: SECRET });
  });
  afterAll(async () => {
    await te?.close();
  });

  it('exports, replaces with the version read, and reports a stale version as metadata-conflict', async () => {
    await te.sql('CREATE TABLE public.author (id serial PRIMARY KEY, name text)');
    const { c, logs } = client(te.url, { adminSecret: SECRET });
    expect(await c.version()).toMatch(/^\d+\.\d+\.\d+/);
    const first = await c.exportMetadata();
    expect(first.metadata).toEqual({ version: 2, tables: [] });
    expect(typeof first.resourceVersion).toBe('number');
    const v = first.resourceVersion as number;
    const doc = { version: 2, tables: [{ table: { schema: 'public', name: 'author' } }] };
    const replaced = await c.replaceMetadata(doc, v, false);
    expect(replaced).toEqual({ body: { message: 'success' }, resourceVersion: v + 1 });
    const second = await c.exportMetadata();
    expect(second).toEqual({ metadata: doc, resourceVersion: v + 1 });

    const e = await failure(c.replaceMetadata({ version: 2, tables: [] }, v, false));
    expect(summary(e)).toEqual({ code: 'metadata-conflict', exitCode: 1,
      location: { path: '$.args.resource_version', hint: "run 'engine metadata diff' to review, then apply again" },
      message: `the engine's metadata changed after it was read (resource version ${v}); nothing was applied` });
    expect(e.engineError).toEqual({ path: '$.args.resource_version', error: 'resource version mismatch', code: 'conflict',
      internal: { requested: v, current: v + 1 } });
    expect((await c.exportMetadata()).metadata).toEqual(doc);
    expect(JSON.stringify(logs)).not.toContain(SECRET);
  });

  it('runs SQL, reports a failing bulk sub-operation and a wrong secret', async () => {
    const { c } = client(te.url, { adminSecret: SECRET });
    expect(await c.runSql('select 1 as one', { readOnly: true })).toEqual({ result_type: 'TuplesOk', result: [['one'], ['1']] });
    const e = await failure(c.bulk([
      { type: 'run_sql', args: { sql: 'select 1' } },
      { type: 'track_table', args: { table: { schema: 'public', name: 'nope' } } },
    ]));
    expect(e.code).toBe('server-error');
    expect(e.message).toMatch(/^the engine rejected track_table: .+ \[[a-z-]+\]$/);
    expect(e.location.path).toMatch(/^\$\.args\[1\]/);
    expect(await c.getInconsistentMetadata()).toEqual({ is_consistent: true, inconsistent_objects: expect.any(Array) as unknown });

    const wrong = await failure(client(te.url, { adminSecret: 'wrong' }).c.exportMetadata());
    expect(wrong.message).toBe(`the engine at ${te.url} rejected the admin secret (HTTP 401)`);
    const none = await failure(client(te.url).c.exportMetadata());
    expect(none.message).toBe(`the engine at ${te.url} requires an admin secret (HTTP 401)`);
    // /v1/graphql refuses with a GraphQL error and 200 (issue 27.8): the client still says unauthorized, with its hint.
    const gql = await failure(client(te.url, { adminSecret: 'wrong' }).c.introspect('{ __typename }'));
    expect(gql).toMatchObject({ code: 'unauthorized', message: `the engine at ${te.url} rejected the admin secret (access-denied)` });
  });
});
