/**
 * Real headless Chromium for the console's tests: Debian's `chromium` package through playwright-core (no browser is
 * ever downloaded). Screenshots go to test/browser/artifacts/ (git-ignored) for people to look at.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { run, type Proc } from '../e2e/process-helpers.js';
import { eventually } from '../helpers/webhook.js';

export const CHROMIUM = process.env['ENGINE_TEST_CHROMIUM'] ?? '/usr/bin/chromium';
export const ARTIFACTS = fileURLToPath(new URL('./artifacts/', import.meta.url));

export async function launch(): Promise<Browser> {
  // --no-sandbox: CI runs as root, where Chromium's sandbox cannot start.
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: false });
}

/**
 * Every request the page makes, so that a test can assert the console talks to its own origin only (issue 34 §6).
 */
export function recordRequests(page: Page): string[] {
  const urls: string[] = [];
  page.on('request', (r) => urls.push(r.url()));
  return urls;
}

const CONSOLE_LINE = /^Console at (http:\/\/127\.0\.0\.1:\d+\/console\/)$/m;

/** `engine console --no-browser --port 0` in `dir`, once it prints its address. */
export async function startConsole(dir: string, env: Record<string, string> = {}): Promise<{ p: Proc; url: string; origin: string }> {
  const p = run(['console', '--no-browser', '--port', '0'], dir, env);
  const m = await eventually(() => {
    if (p.child.exitCode !== null || p.child.signalCode !== null) throw new Error(`engine console ended: ${p.err()}`);
    return CONSOLE_LINE.exec(p.out()) ?? undefined;
  }, 45_000, 'the console line');
  const url = m[1] as string;
  return { p, url, origin: new URL(url).origin };
}

/** Logs in through the form; the secret must then be in session storage and nowhere in the URL. */
export async function logIn(page: Page, url: string, adminSecret: string): Promise<void> {
  await page.goto(url);
  await page.getByLabel('Admin secret').fill(adminSecret);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('navigation', { name: 'Views' }).waitFor();
  expect(page.url()).not.toContain(adminSecret);
  expect(await page.evaluate("sessionStorage.getItem('engine-console-admin-secret')")).toBe(adminSecret);
}
