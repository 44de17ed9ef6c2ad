/**
 * The console as `engine serve` serves it (the real bin, its embedded database), in real headless Chromium: the Schema
 * view runs SQL on the engine, the GraphiQL explorer builds a query from a click, and a failed one-off scheduled event
 * shows its invocations and is redelivered (issue 34). Nothing is requested from any host but the engine.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../e2e/cli-helpers.js';
import { serve, stopAll } from '../e2e/process-helpers.js';
import { launch, logIn, recordRequests, screenshot } from './browser-helpers.js';

const SECRET = 'serve-console-secret';
let browser: Browser;

beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});
afterEach(stopAll);

/** `engine serve` on a fresh data directory, the console on by default for the embedded database. */
async function engine(): Promise<{ url: string; api: (type: string, args: unknown) => Promise<any> }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const dir = await tempDir('engine-console-serve-');
  const { url } = await serve(dir, ['--data-dir', join(dir, 'data')], { ENGINE_GRAPHQL_ADMIN_SECRET: SECRET });
  const api = async (type: string, args: unknown) => {
    const res = await fetch(`${url}/v1/metadata`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-engine-admin-secret': SECRET }, body: JSON.stringify({ type, args }) });
    const body = (await res.json()) as unknown;
    if (!res.ok) throw new Error(`${type}: ${res.status} ${JSON.stringify(body)}`);
    return body;
  };
  return { url, api };
}

async function open(url: string): Promise<{ page: Page; requests: string[]; errors: string[] }> {
  const page = await browser.newPage();
  page.setDefaultTimeout(30_000);
  const requests = recordRequests(page);
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  await logIn(page, `${url}/console/`, SECRET);
  return { page, requests, errors };
}

describe('the console under engine serve', () => {
  it('runs SQL from the Schema view, and the explorer builds a query from a click', { timeout: 180_000 }, async () => {
    const { url, api } = await engine();
    const { page, requests, errors } = await open(url);

    await page.getByRole('link', { name: 'Schema' }).click();
    // Served by the engine: SQL that runs as it is, no migration fields.
    expect(await page.getByLabel('Migration name').count()).toBe(0);
    await page.getByLabel('SQL', { exact: true }).fill("create table item (id int primary key, label text); insert into item values (1, 'first'), (2, 'second');");
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await expect.poll(() => page.getByRole('status').innerText(), { timeout: 20_000 }).toBe('Done.');
    await page.getByLabel('SQL', { exact: true }).fill('select label from item order by id');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await expect.poll(() => page.locator('table.grid tbody td').allInnerTexts(), { timeout: 20_000 }).toEqual(['first', 'second']);
    expect((await api('run_sql', { sql: 'select count(*) from item' })).result).toEqual([['count'], ['2']]);
    await screenshot(page, 'schema-serve');

    await api('track_table', { table: 'item' });
    await page.getByRole('link', { name: 'GraphiQL' }).click();
    await page.locator('.graphiql-query-editor .CodeMirror').waitFor({ timeout: 30_000 });
    await page.evaluate("document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.setValue('')");
    await page.getByRole('button', { name: 'Show GraphiQL Explorer' }).click();
    // Clicks in the explorer write the query into the editor: the root field `item`, then its column `label`.
    const query = () => page.evaluate("document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.getValue()") as Promise<string>;
    await page.locator('.graphiql-explorer-root [data-field-name="item"]').first().click();
    await expect.poll(query, { timeout: 20_000 }).toMatch(/^query \w+ \{\s+item\s+\}\s*$/);
    await page.locator('.graphiql-explorer-root [data-field-name="label"]').first().click();
    await expect.poll(query, { timeout: 20_000 }).toMatch(/^query \w+ \{\s+item \{\s+label\s+\}\s+\}\s*$/);
    await page.locator('.graphiql-execute-button').click();
    await expect.poll(() => page.locator('.graphiql-response').innerText(), { timeout: 30_000 }).toMatch(/"label": "second"/);
    await screenshot(page, 'graphiql-explorer');
    // The explorer follows the console's theme: GraphiQL's theme class flips and the explorer's field colour with it.
    const look = () => page.evaluate(`[document.body.className, getComputedStyle(document.querySelector('.graphiql-explorer-root .graphiql-explorer-field-view')).color]`) as Promise<[string, string]>;
    const before = await look();
    await page.getByRole('button', { name: /^Switch to (dark|light) theme$/ }).click();
    const theme = (await page.evaluate('document.documentElement.dataset.theme')) as string;
    await expect.poll(async () => (await look())[0], { timeout: 10_000 }).toContain(`graphiql-${theme}`);
    expect(before[0]).not.toContain(`graphiql-${theme}`);
    expect((await look())[1]).not.toBe(before[1]);
    await screenshot(page, 'graphiql-explorer-theme');
    expect(requests.filter((u) => !u.startsWith(`${url}/`))).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('shows a failed scheduled event\'s invocations and redelivers it', { timeout: 180_000 }, async () => {
    // The webhook fails its first call and accepts the next: the redelivery is what delivers the event.
    let calls = 0;
    const hook: Server = createServer((req, res) => {
      req.resume();
      calls += 1;
      res.writeHead(calls === 1 ? 500 : 200, { 'content-type': 'application/json' }).end(calls === 1 ? '{"error":"down"}' : '{"ok":true}');
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));
    try {
      const { url, api } = await engine();
      const created = (await api('create_scheduled_event', {
        webhook: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/`, schedule_at: new Date(Date.now() + 1_000).toISOString(),
        payload: { n: 1 }, retry_conf: { num_retries: 0 },
      })) as { event_id: string };
      const stateOf = async () => ((await api('get_scheduled_events', { type: 'one_off' })) as { state: string }[])[0]?.state;
      await expect.poll(stateOf, { timeout: 30_000 }).toBe('error');

      const { page, requests, errors } = await open(url);
      await page.getByRole('link', { name: 'Scheduled' }).click();
      const states = () => page.locator('table.grid tbody tr td:nth-child(5)').allInnerTexts();
      await expect.poll(states, { timeout: 20_000 }).toEqual(['error']);
      await page.getByRole('link', { name: created.event_id }).click();
      const logs = page.getByRole('region', { name: `Invocations of ${created.event_id}` }).locator('details.invocation');
      await expect.poll(() => logs.count(), { timeout: 20_000 }).toBe(1);
      expect(await logs.first().locator('summary').innerText()).toContain('status 500');
      await logs.first().locator('summary').click();
      const shown = await logs.first().locator('pre').innerText();
      expect(shown).toContain('"status": 500');
      expect(shown).toContain('down');

      await page.getByRole('button', { name: `Redeliver ${created.event_id}` }).click();
      await expect.poll(() => page.getByRole('status').innerText(), { timeout: 20_000 }).toBe(`Event ${created.event_id} queued for redelivery.`);
      await expect.poll(stateOf, { timeout: 30_000 }).toBe('delivered');
      expect(calls).toBe(2);
      await page.getByRole('button', { name: 'Refresh' }).click();
      await expect.poll(states, { timeout: 20_000 }).toEqual(['delivered']);
      await expect.poll(() => logs.count(), { timeout: 20_000 }).toBe(2);
      // The latest attempt first.
      expect(await logs.first().locator('summary').innerText()).toContain('status 200');
      await screenshot(page, 'scheduled-invocations');

      page.once('dialog', (d) => void d.accept());
      await page.getByRole('button', { name: `Delete ${created.event_id}` }).click();
      await expect.poll(() => page.getByText('No scheduled events.').count(), { timeout: 20_000 }).toBe(1);
      expect(await api('get_scheduled_events', {})).toEqual([]);
      expect(requests.filter((u) => !u.startsWith(`${url}/`))).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await new Promise<void>((r) => hook.close(() => r()));
    }
  });
});
