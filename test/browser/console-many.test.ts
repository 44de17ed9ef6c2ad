/**
 * The console at 2,000 tables in real headless Chromium: the table list and the permission matrix page through them
 * server-side and search finds one (issue 34 §3, §6).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cli, initProject, show, useTestEngine } from '../e2e/cli-helpers.js';
import { stopAll } from '../e2e/process-helpers.js';
import { launch, logIn, recordRequests, screenshot, startConsole } from './browser-helpers.js';

const SECRET = 'many-secret';
const TABLES = 2000;
const e = useTestEngine({ adminSecret: SECRET });
const env = { ENGINE_GRAPHQL_ADMIN_SECRET: SECRET };
let browser: Browser;

beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});
afterEach(stopAll);

const name = (i: number) => `t_${String(i).padStart(4, '0')}`;

describe('engine console with 2,000 tables', () => {
  it('pages and searches the table list and the matrix', { timeout: 300_000 }, async () => {
    await e.sql(`do $$ begin for i in 1..${TABLES} loop
      execute format('create table %I (id int primary key, v text)', 't_' || lpad(i::text, 4, '0')); end loop; end $$;`);
    const tracks = Array.from({ length: TABLES }, (_, i) => ({ type: 'track_table', args: { table: name(i + 1) } }));
    const perms = Array.from({ length: TABLES / 10 }, (_, i) => ({
      type: 'create_select_permission', args: { table: name(i * 10 + 1), role: `r${i % 5}`, permission: { columns: ['id'], filter: {} } },
    }));
    await e.ok({ type: 'bulk', args: [...tracks, ...perms] });
    const { dir } = await initProject(e.url, 'proj', env);
    const exported = await cli(['metadata', 'export'], { cwd: dir, env });
    expect(exported.code, show(exported)).toBe(0);
    const { url, origin } = await startConsole(dir, env);

    const page = await browser.newPage();
    const requests = recordRequests(page);
    await logIn(page, url, SECRET);
    const status = page.locator('.pager-status');
    await expect.poll(() => status.innerText(), { timeout: 30_000 }).toBe(`1–50 of ${TABLES}`);
    expect(await page.locator('.table-list li').count()).toBe(50);
    for (const expected of ['51–100', '101–150']) {
      await page.getByRole('button', { name: 'Next' }).click();
      await expect.poll(() => status.innerText(), { timeout: 30_000 }).toBe(`${expected} of ${TABLES}`);
    }
    expect(await page.locator('.table-list li').first().innerText()).toBe(`public.${name(101)}`);
    await page.getByLabel('Search tables').fill('t_1999');
    await expect.poll(() => status.innerText(), { timeout: 30_000 }).toBe('1–1 of 1');
    await screenshot(page, 'tables-2000');

    await page.getByRole('link', { name: 'Permissions' }).click();
    await expect.poll(() => status.innerText(), { timeout: 30_000 }).toBe(`1–50 of ${TABLES}`);
    expect(await page.locator('table.matrix thead tr').first().locator('th').allInnerTexts()).toEqual(['table', 'r0', 'r1', 'r2', 'r3', 'r4']);
    await page.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => status.innerText(), { timeout: 30_000 }).toBe(`51–100 of ${TABLES}`);
    await expect.poll(() => page.getByRole('button', { name: `select on public.${name(51)} for r0: without filter` }).count()).toBe(1);
    await screenshot(page, 'permissions-2000');
    // Only pages are fetched: no request for the whole metadata document goes out from the browser.
    expect(requests.filter((u) => !u.startsWith(`${origin}/`))).toEqual([]);
    expect(requests.filter((u) => u.includes('/console/api/tables')).every((u) => /limit=50/.test(u))).toBe(true);

    // A permission edit at this size: one line of tables.yaml changes, and the engine's version moves by one request.
    const file = join(dir, 'metadata/tables.yaml');
    const before = readFileSync(file, 'utf8');
    const version = async () => Number((await e.query({ type: 'export_metadata', args: {} })).headers.get('x-engine-resource-version'));
    const v0 = await version();
    const res = await fetch(`${origin}/console/api/permission`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-engine-admin-secret': SECRET },
      body: JSON.stringify({ table: { schema: 'public', name: name(51) }, role: 'r0', type: 'select', permission: { columns: ['id'], filter: {}, limit: 3 } }),
    });
    expect(await res.json()).toEqual({ ok: true, dry_run: false, written: ['tables.yaml'], applied: true, inconsistent: [], whole_project: false });
    const after = readFileSync(file, 'utf8');
    expect(after.replace('        limit: 3\n', '')).toBe(before);
    expect(await version()).toBe(v0 + 1);
    const doc = (await e.ok({ type: 'export_metadata', args: {} })) as { tables: { table: { name: string }; select_permissions?: unknown[] }[] };
    expect(doc.tables.find((t) => t.table.name === name(51))?.select_permissions).toEqual([{ role: 'r0', permission: { columns: ['id'], filter: {}, limit: 3 } }]);
  });
});
