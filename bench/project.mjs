// Issue 4: the project tool on a large project, against the embedded engine as users run it (`engine serve` in its own
// process, PGlite on a data directory; issue 18). A project of 1,000 tables (2 relationships and 4 permissions each,
// for role `user`) and 200 actions (a mutation each, its input and output types and a permission). Every figure is the
// whole CLI process (spawn to exit).
// Goals: `metadata validate` ≤ 0.5 s, `metadata build` ≤ 0.5 s, `metadata apply` of everything to an empty engine ≤ 2 s,
// `metadata diff` with one change ≤ 1 s, and start-up (`engine --version` / `node -e 0`) ≤ 1.3. At 10,000 tables (and
// 2,000 actions) each at most 10× its goal at 1,000 (issue 18). BENCH_PROJECT_SIZES=1000 runs one size only.
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compareRow, count, goalRow, metadataDoc, p50, progress, schemaSql, time } from './lib.mjs';
import { SECRET, startEngineProcess } from './engine-process.mjs';

const GROUP = 'project';
export const SIZES = {
  full: { tables: 1000, actions: 200, runs: 5, startupRuns: 21, scales: [1, 10] },
  quick: { tables: 200, actions: 40, runs: 2, startupRuns: 5, scales: [1] },
};
const scalesFrom = (base, dflt) => (process.env.BENCH_PROJECT_SIZES ? process.env.BENCH_PROJECT_SIZES.split(',').map((n) => Number(n) / base) : dflt);
const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'engine.js');

/** The 4 permissions of table i (columns id, parent_id, name; relationships parent, children). */
function permissions() {
  const user = 'X-Engine-User-Id';
  return {
    insert_permissions: [{ role: 'user', permission: { check: { name: { _eq: user } }, columns: ['id', 'name', 'parent_id'] } }],
    select_permissions: [{
      role: 'user',
      permission: { columns: ['id', 'name', 'parent_id'], filter: { parent: { name: { _eq: user } }, id: { _gt: 0 } }, limit: 10 },
    }],
    update_permissions: [{ role: 'user', permission: { columns: ['name'], filter: { name: { _eq: user } }, check: { name: { _is_null: false } } } }],
    delete_permissions: [{ role: 'user', permission: { filter: { _and: [{ parent_id: { _is_null: false } }, { id: { _gt: 0 } }] } } }],
  };
}

/** metadataDoc(tables) with the permissions, plus `actions` mutations with their custom types and a permission each. */
export function projectDoc(tables, actions) {
  const doc = metadataDoc(tables);
  doc.tables = doc.tables.map((t) => ({ ...t, ...permissions() }));
  const n = Array.from({ length: actions }, (_, i) => i);
  doc.actions = n.map((i) => ({
    name: `action${i}`,
    definition: {
      handler: `{{BASE}}/action${i}`, type: 'mutation', kind: 'synchronous', output_type: `Output${i}`,
      arguments: [{ name: 'arg', type: `Input${i}!` }],
    },
    permissions: [{ role: 'user' }],
  }));
  doc.custom_types = {
    input_objects: n.map((i) => ({ name: `Input${i}`, fields: [{ name: 'id', type: 'Int!' }, { name: 'name', type: 'String' }] })),
    objects: n.map((i) => ({ name: `Output${i}`, fields: [{ name: 'id', type: 'Int!' }, { name: 'ok', type: 'Boolean' }] })),
  };
  return doc;
}

/** config.yaml of a project whose engine is the `engine serve` of engine-process.mjs. */
export const projectConfig = (endpoint) => `version: 2\nendpoint: ${endpoint}\nadmin_secret: ${SECRET}\nmetadata_directory: metadata\n`;

/** The environment of a CLI run: none of the caller's engine settings leak in. */
function cliEnv() {
  const env = { ...process.env, NO_COLOR: '1' };
  for (const k of Object.keys(env)) if (k.startsWith('ENGINE_GRAPHQL_')) delete env[k];
  return env;
}

/**
 * Runs a command to its exit. stdout goes to a file, not a pipe, so that this process does not spend the measured
 * time reading megabytes of `metadata build` output while it runs.
 */
async function exec(args, cwd, outFile) {
  const fd = outFile ? openSync(outFile, 'w') : 'pipe';
  try {
    const r = await new Promise((resolve, reject) => {
      const child = spawn(process.execPath, args, { cwd, env: cliEnv(), stdio: ['ignore', fd, 'pipe'] });
      const out = [];
      const err = [];
      child.stdout?.on('data', (d) => out.push(d));
      child.stderr.on('data', (d) => err.push(d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() }));
    });
    return outFile ? { ...r, outFile } : r;
  } finally {
    if (outFile) closeSync(fd);
  }
}

const cli = (dir, args) => exec([BIN, ...args], dir, join(dir, 'stdout.txt'));

/** Reads a run's stdout from its file (outside the timed part) and fails loudly unless it exited with `expected`. */
async function check(args, r, expected) {
  if (r.outFile) r.stdout = await readFile(r.outFile, 'utf8');
  if (r.code !== expected) throw new Error(`engine ${args.join(' ')} exited ${r.code} (expected ${expected})\n${r.stdout.slice(0, 2000)}\n${r.stderr.slice(0, 2000)}`);
  return r;
}

/** Runs the CLI and fails loudly unless it exits with `expected`. */
const cliOk = async (dir, args, expected = 0) => check(args, await cli(dir, args), expected);

/** p50 of `runs` timed CLI runs (spawn to exit), each checked after timing. */
async function timeCli(dir, args, runs, before, expected = 0) {
  const ms = [];
  for (let i = 0; i < runs; i++) {
    if (before) await before();
    let r;
    ms.push(await time(async () => {
      r = await cli(dir, args);
    }));
    await check(args, r, expected);
  }
  return p50(ms);
}

async function expectConsistent(e, tables, actions) {
  const ic = JSON.parse((await e.query({ type: 'get_inconsistent_metadata', args: {} })).text);
  if (!ic.is_consistent) throw new Error(`engine metadata is inconsistent: ${JSON.stringify(ic.inconsistent_objects.slice(0, 5))}`);
  const x = JSON.parse((await e.query({ type: 'export_metadata', args: {} })).text);
  const perms = x.tables.reduce((s, t) => s + ['insert', 'select', 'update', 'delete'].filter((k) => t[`${k}_permissions`]?.length === 1).length, 0);
  if (x.tables.length !== tables || perms !== tables * 4 || (x.actions ?? []).length !== actions || (x.actions ?? []).some((a) => a.permissions?.length !== 1)) {
    throw new Error(`engine holds ${x.tables.length} tables, ${perms} permissions, ${(x.actions ?? []).length} actions; expected ${tables}, ${tables * 4}, ${actions}`);
  }
}

/** Adds its rows through `add`. The project figures are on PGlite only (as the goals are). */
export async function run({ quick = false, add }) {
  const size = quick ? SIZES.quick : SIZES.full;
  for (const scale of scalesFrom(size.tables, size.scales)) {
    // The larger project: as many runs as it takes to be fair to the clock, not to the machine's afternoon.
    await measureProject(size.tables * scale, size.actions * scale, scale > 1 ? Math.min(3, size.runs) : size.runs, scale, add);
  }
  await measureStartup(size.startupRuns, add);
}

async function measureProject(tables, actions, runs, scale, add) {
  const project = `${count(tables)} tables + ${count(actions)} actions`;
  const dir = await mkdtemp(join(tmpdir(), 'engine-bench-project-'));
  progress(`${GROUP}: pglite, ${project}, ${runs} runs of each command`);
  const e = await startEngineProcess('pglite');
  try {
    // One run_sql per 1,000 statements: 10,000 tables in one transaction exceed max_locks_per_transaction.
    const statements = schemaSql(tables).split(';\n');
    for (let i = 0; i < statements.length; i += 1000) await e.query({ type: 'run_sql', args: { sql: statements.slice(i, i + 1000).join(';\n') } });
    // The project: written by `engine metadata export` from an engine that holds the metadata.
    await e.query({ type: 'replace_metadata', args: projectDoc(tables, actions) });
    await expectConsistent(e, tables, actions);
    await writeFile(join(dir, 'config.yaml'), projectConfig(e.baseUrl));
    await cliOk(dir, ['metadata', 'export']);
    const validated = await cliOk(dir, ['metadata', 'validate', '-o', 'json']);
    const summary = JSON.parse(validated.stdout).summary;
    if (summary.errors !== 0 || summary.warnings !== 0) throw new Error(`the project does not validate cleanly: ${validated.stdout.slice(0, 2000)}`);
    const built = JSON.parse((await cliOk(dir, ['metadata', 'build'])).stdout);
    if (built.tables.length !== tables || built.actions.length !== actions) throw new Error('metadata build does not hold every table and action');

    add(goalRow(GROUP, `metadata validate, ${project}`, '— (offline)', await timeCli(dir, ['metadata', 'validate'], runs), 500 * scale));
    add(goalRow(GROUP, `metadata build, ${project}`, '— (offline)', await timeCli(dir, ['metadata', 'build'], runs), 500 * scale));

    // apply to an empty engine: the tables exist already; only the metadata is cleared between runs.
    const clear = async () => {
      await e.query({ type: 'clear_metadata', args: {} });
    };
    const first = await time(async () => {
      await clear();
      await cliOk(dir, ['metadata', 'apply']);
    });
    await expectConsistent(e, tables, actions);
    const apply = await timeCli(dir, ['metadata', 'apply'], first > 4000 ? Math.min(3, runs) : runs, clear);
    await expectConsistent(e, tables, actions);
    add(goalRow(GROUP, `metadata apply to an empty engine, ${project}`, 'pglite', apply, 2000 * scale));

    // diff with one change: one permission edited in tables.yaml (the select limit of the table in the middle).
    const tablesYaml = join(dir, 'metadata', 'tables.yaml');
    const text = await readFile(tablesYaml, 'utf8');
    await cliOk(dir, ['metadata', 'diff', '--exit-code']); // nothing differs yet
    const at = text.indexOf(`- table:\n    schema: public\n    name: t${tables / 2}\n`); // its entry, not a relationship to it
    const limit = text.indexOf('limit: 10\n', at);
    if (at < 0 || limit < 0) throw new Error('tables.yaml does not have the expected shape');
    await writeFile(tablesYaml, `${text.slice(0, limit)}limit: 11\n${text.slice(limit + 'limit: 10\n'.length)}`);
    const d = JSON.parse((await cliOk(dir, ['metadata', 'diff', '--exit-code', '-o', 'json'], 2)).stdout);
    if (d.changes.length !== 1) throw new Error(`metadata diff found ${d.changes.length} changes, expected 1: ${JSON.stringify(d.changes).slice(0, 1000)}`);
    add(goalRow(GROUP, `metadata diff with one change, ${project}`, 'pglite', await timeCli(dir, ['metadata', 'diff'], runs), 1000 * scale));
  } finally {
    await e.close();
    await rm(dir, { recursive: true, force: true });
  }
}

async function measureStartup(startupRuns, add) {
  // start-up: `engine --version` against a bare `node -e 0`, interleaved so both see the same machine state.
  progress(`start-up: ${startupRuns} runs of each`);
  const version = [];
  const bare = [];
  for (let i = 0; i < startupRuns; i++) {
    bare.push(await time(() => exec(['-e', '0'])));
    version.push(await time(async () => {
      const r = await exec([BIN, '--version']);
      if (r.code !== 0) throw new Error(`engine --version exited ${r.code}`);
    }));
  }
  const ratio = p50(version) / p50(bare);
  add(compareRow('start-up', 'start-up: engine --version vs node -e 0', '—', p50(version), p50(bare), '≤ 1.3× node -e 0', ratio <= 1.3));
}
