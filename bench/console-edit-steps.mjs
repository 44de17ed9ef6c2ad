// Issue 34 item 1: where the time of one permission edit made in `engine console` goes, at 100 and 2,000 tables — the
// steps of the whole-document save (every file parsed and validated, the document cloned and rewritten with the export
// writer, the engine's document exported and compared, one replace_metadata) against those of the one-table save
// (the files' stamp, the table's lines spliced, the cell's drop and create in one bulk). p50 of RUNS, after one warm-up.
// `node bench/console-edit-steps.mjs` after `npm run build` (it imports dist/).
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { consoleProject } from './console-project.mjs';
import { fmt, p50, progress, QUICK } from './lib.mjs';
import { buildMetadata } from '../dist/project/metadata-dir/build.js';
import { writeTree } from '../dist/project/metadata-dir/export.js';
import { canonicalDocument } from '../dist/metadata/document.js';
import { diffMetadata } from '../dist/metadata/diff.js';
import { plannedWrite, withPermission } from '../dist/project/console/edit.js';
import { rewriteTable, stampOf, takeSnapshot } from '../dist/project/console/snapshot.js';

const BIN = fileURLToPath(new URL('../bin/engine.js', import.meta.url));
const SIZES = QUICK ? [100] : [100, 2000];
const RUNS = QUICK ? 3 : 7;

async function timed(fn) {
  const t0 = performance.now();
  const value = await fn();
  return [performance.now() - t0, value];
}

async function measure(n) {
  const { engine, dir, close } = await consoleProject(n, BIN);
  try {
    const config = { metadataDirectory: join(dir, 'metadata'), baseDir: dir, version: 2 };
    const steps = {};
    const add = (name, ms) => (steps[name] ??= []).push(ms);
    for (let i = 0; i <= RUNS; i++) {
      const edit = { table: { schema: 'public', name: 't0' }, role: 'user', type: 'select', permission: { columns: ['id'], filter: {}, limit: 10 + i } };
      const keep = i > 0;
      // The whole-document save, step by step.
      const [build, built] = await timed(() => buildMetadata(config.metadataDirectory, dir, 2));
      const [clone, document] = await timed(() => withPermission(built.document, edit));
      const [render, next] = await timed(() => plannedWrite(config, document, built.document));
      const [write] = await timed(() => writeTree(config.metadataDirectory, next));
      const [exp, exported] = await timed(() => engine.query({ type: 'export_metadata', args: {} }));
      const [diff] = await timed(() => diffMetadata(canonicalDocument(JSON.parse(exported.text)), document));
      const [replace] = await timed(() => engine.query({ type: 'replace_metadata', args: { metadata: document, resource_version: Number(exported.version) } }));
      // The one-table save (after a snapshot, taken once per change of the files).
      const [snapshot, snap] = await timed(() => takeSnapshot(config));
      const edit2 = { ...edit, permission: { ...edit.permission, limit: 1000 + i } };
      const where = snap.tables.get('public.t0');
      const after = { ...where.written, select_permissions: [{ role: 'user', permission: edit2.permission }] };
      const [stamp] = await timed(() => stampOf(config));
      const [splice, rewrite] = await timed(() => rewriteTable(snap, where, after));
      if (!rewrite) throw new Error('the table could not be spliced');
      const [version] = await timed(() => engine.query({ type: 'bulk', args: [] }));
      const table = { schema: 'public', name: 't0' };
      const [bulk] = await timed(() => engine.query({ type: 'bulk', args: [
        { type: 'drop_select_permission', args: { table, role: 'user' } },
        { type: 'create_select_permission', args: { table, role: 'user', permission: edit2.permission } },
      ] }));
      if (!keep) continue;
      for (const [k, v] of Object.entries({ build, clone, render, write, export: exp, diff, replace, snapshot, stamp, splice, version, bulk })) add(k, v);
    }
    return { n, steps: Object.fromEntries(Object.entries(steps).map(([k, v]) => [k, p50(v)])) };
  } finally {
    await close();
  }
}

const rows = [];
for (const n of SIZES) {
  progress(`console edit steps at ${n} tables…`);
  rows.push(await measure(n));
}
const NAMES = {
  build: 'whole: parse and validate every file', clone: 'whole: document with the cell (clone, canonical form)',
  render: 'whole: export writer over the document', write: 'whole: write the directory (copy and rename)',
  export: 'whole: export_metadata', diff: 'whole: compare engine and files', replace: 'whole: replace_metadata',
  snapshot: 'one-table: snapshot (once per change of the files by others)', stamp: "one-table: the files' stamp",
  splice: "one-table: splice the table's lines", version: 'one-table: resource_version (empty bulk)', bulk: 'one-table: drop and create the cell (bulk)',
};
console.log(`| step (p50 of ${RUNS}) | ${rows.map((r) => `${r.n} tables`).join(' | ')} |`);
console.log(`|---|${rows.map(() => '---:').join('|')}|`);
for (const [k, label] of Object.entries(NAMES)) console.log(`| ${label} | ${rows.map((r) => fmt(r.steps[k])).join(' | ')} |`);
