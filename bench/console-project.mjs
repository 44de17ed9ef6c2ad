// The project both console benchmarks work on (bench/console.mjs, bench/console-edit-steps.mjs): `engine serve` on a
// fresh PGlite data directory holding `n` tables (lib.mjs's schemaSql and metadataDoc), each with a select permission
// of role user, and a project exported from it (`engine init`, `engine metadata export`) in a temporary directory.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SECRET, startEngineProcess } from './engine-process.mjs';
import { metadataDoc, schemaSql } from './lib.mjs';

/** The environment of the project commands: the engine's admin secret, no colours. */
export const projectEnv = { ...process.env, NO_COLOR: '1', ENGINE_GRAPHQL_ADMIN_SECRET: SECRET };

/**
 * Starts the engine and writes the project with `bin` (a bin/engine.js: this build's or BENCH_ENGINE_BIN's); resolves
 * to the engine (engine-process.mjs's handle), the project's directory and close(), which stops the engine and removes
 * the directory.
 */
export async function consoleProject(n, bin) {
  const engine = await startEngineProcess('pglite');
  const parent = mkdtempSync(join(tmpdir(), 'engine-bench-console-'));
  const close = async () => {
    await engine.close();
    rmSync(parent, { recursive: true, force: true });
  };
  try {
    await engine.query({ type: 'run_sql', args: { sql: schemaSql(n) } });
    const doc = metadataDoc(n);
    for (const t of doc.tables) t.select_permissions = [{ role: 'user', permission: { columns: ['id', 'name'], filter: { id: { _eq: 'X-Engine-User-Id' } } } }];
    await engine.query({ type: 'replace_metadata', args: doc });
    const dir = join(parent, 'proj');
    for (const args of [['init', 'proj', '--endpoint', engine.baseUrl], ['metadata', 'export', '--project', dir]]) {
      const r = spawnSync(process.execPath, [bin, ...args], { cwd: parent, env: projectEnv, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`engine ${args.join(' ')}: ${r.stderr}`);
    }
    return { engine, dir, close };
  } catch (e) {
    await close();
    throw e;
  }
}
