/**
 * The web console in real headless Chromium against `engine console` (the real bin) and a real engine: log in, GraphiQL
 * as role `user` sees only its rows, a permission edited in the matrix reaches metadata/tables.yaml (its comment kept)
 * and the engine; nothing is requested from any other host (issue 34).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cli, initProject, show, useTestEngine } from '../e2e/cli-helpers.js';
import { stopAll } from '../e2e/process-helpers.js';
import { startProcessor, useProcessors } from '../helpers/events.js';
import { launch, logIn, recordRequests, screenshot, startConsole } from './browser-helpers.js';

const SECRET = 'console-secret';
const e = useTestEngine({ adminSecret: SECRET });
const env = { ENGINE_GRAPHQL_ADMIN_SECRET: SECRET };
let browser: Browser;
useProcessors();

beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});
afterEach(stopAll);

async function seededProject(): Promise<string> {
  await e.sql(`create table item (id int primary key, owner int not null, label text not null);
    insert into item values (1, 1, 'mine-a'), (2, 1, 'mine-b'), (3, 2, 'theirs');`);
  await e.ok({ type: 'bulk', args: [
    { type: 'track_table', args: { table: 'item' } },
    { type: 'create_select_permission', args: { table: 'item', role: 'user', permission: { columns: ['id', 'owner', 'label'], filter: { owner: { _eq: 'X-Engine-User-Id' } } } } },
  ] });
  const { dir } = await initProject(e.url, 'proj', env);
  const exported = await cli(['metadata', 'export'], { cwd: dir, env });
  expect(exported.code, show(exported)).toBe(0);
  // A comment of the user's: the console's write must keep it (the writer of `metadata export`).
  const file = join(dir, 'metadata/tables.yaml');
  writeFileSync(file, readFileSync(file, 'utf8').replace('- table:', '# items belong to their owner\n- table:'));
  return dir;
}

const exportedPermission = async () => {
  const doc = (await e.ok({ type: 'export_metadata', args: {} })) as { tables: { table: { name: string }; select_permissions?: { role: string; permission: Record<string, unknown> }[] }[] };
  return doc.tables.find((t) => t.table.name === 'item')?.select_permissions?.find((p) => p.role === 'user')?.permission;
};

describe('engine console in Chromium', () => {
  it('logs in, queries as role user, edits a permission into metadata/ and the engine', async () => {
    const dir = await seededProject();
    const { url, origin } = await startConsole(dir, env);
    const page = await browser.newPage();
    const requests = recordRequests(page);
    const pageErrors: string[] = [];
    page.on('pageerror', (err) => pageErrors.push(err.message));

    await page.goto(url);
    await screenshot(page, 'login');
    await logIn(page, url, SECRET);
    await page.getByRole('link', { name: 'public.item' }).click();
    await expect.poll(() => page.locator('table.grid tbody tr').count(), { timeout: 20_000 }).toBe(3);
    // Row insert and delete through /v1/graphql as admin.
    await page.getByLabel('New row (JSON)').fill('{"id": 9, "owner": 3, "label": "temp"}');
    await page.getByRole('button', { name: 'Insert' }).click();
    await expect.poll(() => page.locator('table.grid tbody tr').count(), { timeout: 20_000 }).toBe(4);
    await page.getByRole('button', { name: 'Delete row 4' }).click();
    await expect.poll(() => page.locator('table.grid tbody tr').count(), { timeout: 20_000 }).toBe(3);
    expect((await e.sql('select count(*) as n from item')).result).toEqual([['n'], ['3']]);
    await screenshot(page, 'tables');

    // GraphiQL as role user with x-engine-user-id 1: the rows of owner 1 only.
    await page.getByRole('link', { name: 'GraphiQL' }).click();
    await page.getByLabel('Role').selectOption('user');
    await page.getByLabel('Session variables').fill('{"x-engine-user-id": "1"}');
    // Keyboard only: Enter in the field applies the identity.
    await page.getByLabel('Session variables').press('Enter');
    await expect.poll(() => page.getByText('as user', { exact: true }).count()).toBe(1);
    await page.locator('.graphiql-query-editor .CodeMirror').waitFor({ timeout: 30_000 });
    // CodeMirror 5 keeps its editor on its element: the query is set as a whole (typing would auto-close brackets).
    await page.evaluate("document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.setValue('query Mine { item(order_by: {id: asc}) { id label } }')");
    await page.locator('.graphiql-execute-button').click();
    const response = page.locator('.graphiql-response');
    await expect.poll(() => response.innerText(), { timeout: 30_000 }).toContain('mine-b');
    const answer = await response.innerText();
    expect(answer).toContain('mine-a');
    expect(answer).not.toContain('theirs');
    await screenshot(page, 'graphiql');

    // The matrix: the user's select cell, edited to add a limit; the file and the engine both change.
    await page.getByRole('link', { name: 'Permissions' }).click();
    // Keyboard only: the cell is a button that takes focus and opens the editor with Enter.
    await page.getByRole('button', { name: 'select on public.item for user: with filter' }).focus();
    await page.keyboard.press('Enter');
    const editor = page.getByLabel(/^Permission \(/);
    await expect.poll(() => editor.inputValue(), { timeout: 20_000 }).toContain('X-Engine-User-Id');
    // The columns as a form: unchecking one edits the JSON.
    await page.getByRole('checkbox', { name: 'owner' }).uncheck();
    await expect.poll(async () => (JSON.parse(await editor.inputValue()) as { columns: string[] }).columns).toEqual(['id', 'label']);
    const edited = JSON.parse(await editor.inputValue()) as Record<string, unknown>;
    await editor.fill(JSON.stringify({ ...edited, limit: 1 }, null, 2));
    await page.getByRole('button', { name: 'Validate' }).click();
    await expect(page.getByRole('status').textContent()).resolves.not.toBeNull();
    await expect.poll(() => page.getByRole('status').innerText(), { timeout: 20_000 }).toBe('The engine accepts this permission.');
    expect(readFileSync(join(dir, 'metadata/tables.yaml'), 'utf8')).not.toContain('limit: 1');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('status').innerText(), { timeout: 20_000 }).toBe('Saved — written to tables.yaml and applied.');
    const yaml = readFileSync(join(dir, 'metadata/tables.yaml'), 'utf8');
    expect(yaml).toContain('limit: 1');
    expect(yaml).toContain('# items belong to their owner');
    expect(await exportedPermission()).toMatchObject({ columns: ['id', 'label'], limit: 1 });
    await screenshot(page, 'permissions');

    // Dark theme, and the whole session stayed on the console's origin.
    await page.getByRole('button', { name: 'Switch to dark theme' }).click();
    expect(await page.evaluate('document.documentElement.dataset.theme')).toBe('dark');
    await screenshot(page, 'permissions-dark');
    expect(requests.filter((u) => !u.startsWith(`${origin}/`))).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('edits a row, explains a query, previews a permission diff, writes a migration and schedules a one-off event', { timeout: 180_000 }, async () => {
    const dir = await seededProject();
    const { url, origin } = await startConsole(dir, env);
    const page = await browser.newPage();
    // A step that cannot happen fails on its own line, not as the whole test's timeout.
    page.setDefaultTimeout(30_000);
    const requests = recordRequests(page);
    const pageErrors: string[] = [];
    page.on('pageerror', (err) => pageErrors.push(err.message));
    await logIn(page, url, SECRET);

    // Row edit: only the changed column is set, on the row named by its values.
    await page.getByRole('link', { name: 'public.item' }).click();
    await expect.poll(() => page.locator('table.grid tbody tr').count(), { timeout: 20_000 }).toBe(3);
    await page.getByLabel('Sort').selectOption('id');
    await expect.poll(() => page.locator('table.grid tbody tr td:first-child').allInnerTexts(), { timeout: 20_000 }).toEqual(['1', '2', '3']);
    await page.getByRole('button', { name: 'Edit row 1' }).click();
    const row = page.getByLabel('Row 1 (JSON)');
    const values = JSON.parse(await row.inputValue()) as Record<string, unknown>;
    expect(values).toEqual({ id: 1, owner: 1, label: 'mine-a' });
    await row.fill(JSON.stringify({ ...values, label: 'renamed' }));
    await page.getByRole('button', { name: 'Save row' }).click();
    await expect.poll(async () => (await e.sql('select label from item where id = 1')).result, { timeout: 20_000 }).toEqual([['label'], ['renamed']]);
    expect((await e.sql('select count(*) as n from item')).result).toEqual([['n'], ['3']]);

    // Explain as role user: the SQL of the root field and its plan.
    await page.getByRole('link', { name: 'GraphiQL' }).click();
    await page.getByLabel('Role').selectOption('user');
    await page.getByLabel('Session variables').fill('{"x-engine-user-id": "1"}');
    await page.getByLabel('Session variables').press('Enter');
    await page.locator('.graphiql-query-editor .CodeMirror').waitFor({ timeout: 30_000 });
    await page.evaluate("document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.setValue('query Mine { item { id label } }')");
    await page.getByRole('button', { name: 'Explain', exact: true }).click();
    // The panel as a whole first: an error shown there is then the failure's message.
    await expect.poll(() => page.getByRole('region', { name: 'Explain' }).innerText(), { timeout: 20_000 }).toContain('Plan');
    const sql = page.getByLabel('SQL of item');
    await expect.poll(() => sql.innerText(), { timeout: 20_000 }).toContain('item');
    // The role's filter is in the SQL, with the session variable written in.
    expect(await sql.innerText()).toContain("'1'");
    expect((await page.getByLabel('Plan of item').innerText()).length).toBeGreaterThan(0);
    await screenshot(page, 'explain');

    // The permission editor's preview: the diff git will show, before anything is written.
    await page.getByRole('link', { name: 'Permissions' }).click();
    await page.getByRole('button', { name: 'select on public.item for user: with filter' }).click();
    const editor = page.getByLabel(/^Permission \(/);
    await expect.poll(() => editor.inputValue(), { timeout: 20_000 }).toContain('X-Engine-User-Id');
    const file = join(dir, 'metadata/tables.yaml');
    const before = readFileSync(file, 'utf8');
    await editor.fill(JSON.stringify({ ...(JSON.parse(await editor.inputValue()) as object), limit: 7 }, null, 2));
    await page.getByRole('button', { name: 'Preview changes' }).click();
    const diff = page.getByLabel('Diff of tables.yaml');
    await expect.poll(() => diff.innerText(), { timeout: 20_000 }).toMatch(/^\+\s+limit: 7$/m);
    expect(await diff.innerText()).toMatch(/^--- a\/tables\.yaml\n\+\+\+ b\/tables\.yaml\n@@ /);
    expect(await page.getByLabel('Engine changes').innerText()).toContain('select_permission public.item.user');
    expect(readFileSync(file, 'utf8')).toBe(before);
    await screenshot(page, 'permission-preview');

    // A schema change: a migration under migrations/, applied; the metadata view says the engine matches the files.
    await page.getByRole('link', { name: 'Schema' }).click();
    await page.getByLabel('Migration name').fill('add_tag');
    await page.getByLabel('Up (SQL)').fill('create table tag (id int primary key, label text);');
    await page.getByLabel(/^Down/).fill('drop table tag;');
    await page.getByRole('button', { name: 'Write migration and apply' }).click();
    await expect.poll(() => page.getByRole('status').innerText(), { timeout: 20_000 }).toMatch(/^Migration migrations\/(default\/)?\d+_add_tag written and applied\.$/);
    const directory = (await page.getByRole('status').innerText()).replace(/^Migration (\S+) written.*$/, '$1');
    expect(readFileSync(join(dir, directory, 'up.sql'), 'utf8')).toBe('create table tag (id int primary key, label text);');
    expect((await e.sql("select to_regclass('public.tag')::text as t")).result).toEqual([['t'], ['tag']]);
    await screenshot(page, 'schema');
    await page.getByRole('link', { name: 'Metadata' }).click();
    await expect.poll(() => page.getByText('The engine holds exactly what the files say.').count(), { timeout: 20_000 }).toBe(1);

    // A one-off scheduled event, listed with its state.
    await page.getByRole('link', { name: 'Scheduled' }).click();
    await expect.poll(() => page.getByText('No scheduled events.').count(), { timeout: 20_000 }).toBe(1);
    await page.getByLabel('Webhook').fill('http://127.0.0.1:9/never');
    await page.getByLabel('Event payload (JSON)').fill('{"k": 1}');
    await page.getByRole('button', { name: 'Schedule', exact: true }).click();
    await expect.poll(() => page.getByRole('status').innerText(), { timeout: 20_000 }).toMatch(/^One-off event \S+ scheduled for /);
    await expect.poll(() => page.locator('table.grid tbody tr td:nth-child(2)').allInnerTexts(), { timeout: 20_000 }).toEqual(['one-off']);
    expect(await page.locator('table.grid tbody tr td:nth-child(5)').allInnerTexts()).toEqual(['scheduled']);
    await screenshot(page, 'scheduled');
    expect(requests.filter((u) => !u.startsWith(`${origin}/`))).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('redelivers a failed event and shows its invocations', async () => {
    // The handler fails its first call and accepts the next: the redelivery is what makes the event delivered.
    let calls = 0;
    const hook = createServer((req, res) => {
      req.resume();
      calls += 1;
      res.writeHead(calls === 1 ? 500 : 200, { 'content-type': 'application/json' }).end(calls === 1 ? '{"error":"down"}' : '{"ok":true}');
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));
    try {
      await e.sql('create table job (id int primary key);');
      await e.ok({ type: 'bulk', args: [
        { type: 'track_table', args: { table: 'job' } },
        { type: 'create_event_trigger', args: { name: 'jobs', table: 'job', webhook: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/`, insert: { columns: '*' }, retry_conf: { num_retries: 0, interval_sec: 1 } } },
      ] });
      await startProcessor(e);
      await e.sql('insert into job values (1);');
      const stateOf = async () => ((await e.ok({ type: 'get_event_logs', args: { name: 'jobs' } })) as { state: string }[])[0]?.state;
      await expect.poll(stateOf, { timeout: 30_000 }).toBe('error');
      const { dir } = await initProject(e.url, 'proj', env);
      const { url } = await startConsole(dir, env);
      const page = await browser.newPage();
      await logIn(page, url, SECRET);
      await page.getByRole('link', { name: 'Events' }).click();
      await page.getByRole('link', { name: /^jobs/ }).click();
      await expect.poll(() => page.locator('table.grid tbody tr td:nth-child(3)').allInnerTexts(), { timeout: 20_000 }).toEqual(['error']);
      await page.getByRole('button', { name: /^Redeliver / }).click();
      await expect.poll(stateOf, { timeout: 30_000 }).toBe('delivered');
      expect(calls).toBe(2);
      await page.getByRole('button', { name: 'Refresh' }).click();
      await expect.poll(() => page.locator('table.grid tbody tr td:nth-child(3)').allInnerTexts(), { timeout: 20_000 }).toEqual(['delivered']);
      await page.locator('table.grid tbody tr td a').first().click();
      await expect.poll(() => page.locator('details.invocation').count(), { timeout: 20_000 }).toBe(2);
      await screenshot(page, 'events');
    } finally {
      await new Promise<void>((r) => hook.close(() => r()));
    }
  });
});
