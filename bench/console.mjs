// Issue 34 (note): the web console at 100 and 2,000 tables — load to interactive (a cold page in headless Chromium,
// from navigation to the first page of tables shown) and a permission edit through `engine console` (dry-run check,
// metadata/tables.yaml written, applied). The engine and the console run as their own processes, as users run them.
// `node bench/console.mjs` after `npm run build`; needs Debian's chromium (ENGINE_BENCH_CHROMIUM to override).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg, cpus } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { consoleProject, projectEnv as env } from './console-project.mjs';
import { SECRET } from './engine-process.mjs';
import { fmt, p50, progress, QUICK } from './lib.mjs';

// BENCH_ENGINE_BIN runs another build (a before/after comparison), for the engine, the project commands and the console.
const BIN = process.env.BENCH_ENGINE_BIN || fileURLToPath(new URL('../bin/engine.js', import.meta.url));
const SIZES = QUICK ? [100] : [100, 2000];
// BENCH_CONSOLE_RUNS lowers the runs (a before/after comparison at 2,000 tables takes minutes on the old build).
const RUNS = Number(process.env.BENCH_CONSOLE_RUNS) || (QUICK ? 2 : 5);

function startConsole(dir) {
  const child = spawn(process.execPath, [BIN, 'console', '--no-browser', '--port', '0'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      const m = /Console at (\S+)/.exec(out);
      if (m) resolve({ url: m[1], stop: () => new Promise((done) => { child.once('close', done); child.kill('SIGTERM'); }) });
    });
    child.once('close', () => reject(new Error(`engine console ended: ${err}`)));
  });
}

async function measure(n, browser) {
  const { dir, close } = await consoleProject(n, BIN);
  try {
    const consoleServer = await startConsole(dir);
    try {
      const loads = [];
      for (let i = 0; i < RUNS; i++) {
        const context = await browser.newContext();
        await context.addInitScript(`sessionStorage.setItem('engine-console-admin-secret', ${JSON.stringify(SECRET)})`);
        const page = await context.newPage();
        const t0 = performance.now();
        await page.goto(consoleServer.url);
        await page.locator('.pager-status', { hasText: `of ${n}` }).waitFor({ timeout: 60_000 });
        loads.push(performance.now() - t0);
        await context.close();
      }
      const edits = [];
      const file = join(dir, 'metadata/tables.yaml');
      for (let i = 0; i < RUNS + 1; i++) {
        const limit = 10 + i;
        const t0 = performance.now();
        const res = await fetch(new URL('/console/api/permission', consoleServer.url), {
          method: 'POST', headers: { 'content-type': 'application/json', 'x-engine-admin-secret': SECRET },
          body: JSON.stringify({ table: { schema: 'public', name: 't0' }, role: 'user', type: 'select', permission: { columns: ['id'], filter: {}, limit } }),
        });
        const body = await res.json();
        edits.push(performance.now() - t0);
        if (i === 0) progress(`first edit at ${n} tables: ${body.whole_project ? 'the whole project applied' : 'the cell alone'}`);
        if (!body.applied || !readFileSync(file, 'utf8').includes(`limit: ${limit}`)) throw new Error(`edit not written and applied: ${JSON.stringify(body)}`);
      }
      // The first edit reads every file and compares the whole document with the engine once; the later ones do not.
      return { n, load: p50(loads), first: edits[0], edit: p50(edits.slice(1)) };
    } finally {
      await consoleServer.stop();
    }
  } finally {
    await close();
  }
}

const browser = await chromium.launch({ executablePath: process.env.ENGINE_BENCH_CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-dev-shm-usage'] });
const rows = [];
try {
  for (const n of SIZES) {
    progress(`console at ${n} tables…`);
    rows.push(await measure(n, browser));
  }
} finally {
  await browser.close();
}
console.log(`| tables | console load to interactive (p50 of ${RUNS}) | first permission edit → file written and applied | next edits (p50 of ${RUNS}) |`);
console.log('|---:|---:|---:|---:|');
for (const r of rows) console.log(`| ${r.n} | ${fmt(r.load)} | ${fmt(r.first)} | ${fmt(r.edit)} |`);
console.log(`\n${cpus().length} cores, load average ${loadavg()[0].toFixed(1)} at the end (other work on the machine inflates these figures).`);
