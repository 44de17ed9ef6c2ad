// Issue 33: `engine test` and `engine metadata schema` as users run them — the real bin in its own process, timed from
// spawn to exit, engine start included. Goals: 100 cases on the example project ≤ 5 s; `metadata schema` of a role
// on a project of 1,000 tables ≤ 3 s.
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import jsyaml from 'js-yaml';
import { goalRow, metadataDoc, p50, progress, schemaSql } from './lib.mjs';

const BIN = fileURLToPath(new URL('../bin/engine.js', import.meta.url));
const EXAMPLE = fileURLToPath(new URL('../examples/quickstart', import.meta.url));
export const SIZES = { quick: { cases: 100, tables: 200, runs: 1 }, full: { cases: 100, tables: 1000, runs: 3 } };

/** Runs the bin; resolves to its time (spawn → exit) once it exited with `expected`. */
function timed(args, cwd, expected = 0) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(ENGINE|HASURA)_GRAPHQL_/.test(k)));
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...env, ENGINE_ADMIN_SECRET: 'bench' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - t0;
      if (code === expected) resolve({ ms, out });
      else reject(new Error(`engine ${args.join(' ')} exited with ${code}\n${out}\n${err}`));
    });
  });
}

/** `n` cases: the example's own cases over and over (reads and writes in its proportions), each named apart. */
function benchCases(n) {
  const { load, dump } = jsyaml;
  const cases = [];
  const files = readdirSync(join(EXAMPLE, 'tests')).filter((f) => f.endsWith('.test.yaml')).sort();
  const all = files.flatMap((f) => load(readFileSync(join(EXAMPLE, 'tests', f), 'utf8')).cases);
  for (let i = 0; cases.length < n; i++) {
    const c = all[i % all.length];
    cases.push({ ...c, name: `${c.name} #${i}` });
  }
  return dump({ cases });
}

/** A project of `n` tables (schemaSql), each readable by role user, as migrations and metadata files. */
function wideProject(dir, n) {
  mkdirSync(join(dir, 'metadata'), { recursive: true });
  mkdirSync(join(dir, 'migrations', '1700000000000_tables'), { recursive: true });
  writeFileSync(join(dir, 'config.yaml'), 'version: 2\nendpoint: http://127.0.0.1:9\nmetadata_directory: metadata\nmigrations_directory: migrations\n');
  writeFileSync(join(dir, 'migrations', '1700000000000_tables', 'up.sql'), `${schemaSql(n)};\n`);
  writeFileSync(join(dir, 'migrations', '1700000000000_tables', 'down.sql'), '');
  const doc = metadataDoc(n);
  const tables = doc.tables.map((t) => ({ ...t, select_permissions: [{ role: 'user', permission: { columns: ['id', 'parent_id', 'name'], filter: {} } }] }));
  writeFileSync(join(dir, 'metadata', 'version.yaml'), 'version: 2\n');
  writeFileSync(join(dir, 'metadata', 'tables.yaml'), `${JSON.stringify(tables)}\n`);
  for (const f of ['functions', 'cron_triggers', 'query_collections', 'allow_list', 'remote_schemas']) writeFileSync(join(dir, 'metadata', `${f}.yaml`), '[]\n');
  writeFileSync(join(dir, 'metadata', 'actions.yaml'), 'actions: []\ncustom_types: {}\n');
  writeFileSync(join(dir, 'metadata', 'actions.graphql'), '');
}

export async function run({ quick, add }) {
  const size = quick ? SIZES.quick : SIZES.full;
  const group = 'engine test (issue 33)';
  // The ephemeral engine of both commands runs on an in-memory embedded database.
  const db = 'pglite-memory';
  const root = mkdtempSync(join(tmpdir(), 'engine-bench-test-'));
  try {
    const project = join(root, 'example');
    cpSync(EXAMPLE, project, { recursive: true, filter: (src) => !src.includes('.engine') });
    rmSync(join(project, 'tests'), { recursive: true });
    mkdirSync(join(project, 'tests'));
    writeFileSync(join(project, 'tests', 'bench.test.yaml'), benchCases(size.cases));
    const runs = [];
    for (let i = 0; i < size.runs; i++) {
      const r = await timed(['test'], project);
      if (!r.out.includes(`${size.cases} passed, 0 failed`)) throw new Error(`unexpected engine test output:\n${r.out}`);
      runs.push(r.ms);
      progress(`  engine test, ${size.cases} cases, run ${i + 1}/${size.runs}: ${r.ms.toFixed(0)} ms`);
    }
    add(goalRow(group, `engine test: ${size.cases} cases on the example project, engine start included (spawn → exit)`, db, p50(runs), 5000));

    const wide = join(root, 'wide');
    wideProject(wide, size.tables);
    // Cold: the migrations run (--no-cache: nor is their result saved, which a first run also does). Edited: the
    // metadata changes before each run (a permission's limit, not in the SDL), the migrated database is loaded from the
    // machine's cache. Warm: nothing changed, the role's SDL comes from the cache (no PostgreSQL). The first run of a
    // cached loop fills the caches (not counted).
    const edit = (i) => {
      const doc = metadataDoc(size.tables);
      const tables = doc.tables.map((t, j) => ({ ...t, select_permissions: [{ role: 'user', permission: { columns: ['id', 'parent_id', 'name'], filter: {}, ...(j === 0 ? { limit: 1000 + i } : {}) } }] }));
      writeFileSync(join(wide, 'metadata', 'tables.yaml'), `${JSON.stringify(tables)}\n`);
    };
    const loops = [
      ['cold, --no-cache', ['--no-cache'], null],
      ['metadata edited, migrated database cached', [], edit],
      ['warm, SDL cached', [], null],
    ];
    for (const [label, flags, before] of loops) {
      const sdl = [];
      for (let i = label.startsWith('cold') ? 0 : -1; i < size.runs; i++) {
        before?.(i);
        const r = await timed(['metadata', 'schema', '--role', 'user', ...flags], wide);
        if (!r.out.includes(`type t${size.tables - 1} {`)) throw new Error('the SDL lacks the last table');
        if (i < 0) continue;
        sdl.push(r.ms);
        progress(`  metadata schema (${label}), ${size.tables} tables, run ${i + 1}/${size.runs}: ${r.ms.toFixed(0)} ms`);
      }
      add(goalRow(group, `engine metadata schema --role user: ${size.tables.toLocaleString('en-US')} tables (spawn → exit), ${label}`, db, p50(sdl), 3000));
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
