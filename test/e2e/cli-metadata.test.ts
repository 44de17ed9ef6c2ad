/**
 * End-to-end: the real `engine` bin against a real engine — init, export, diff, apply, build, JSON mode, clear, and an
 * export interrupted by SIGKILL (cli.md §3, §4.5, §4.8, §4.11, §4.12, §4.14, §5.1–§5.9); the inconsistency commands
 * are in cli-inconsistency.test.ts.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import {
  cli, EMPTY_FILES, engineExport as exportOf, initProject, jsonDoc, lines, SEED_ACTIONS_GRAPHQL, SEED_ACTIONS_YAML, SEED_TABLES_YAML,
  seedEngine, show, snapshot, spawnCli, tempDir, until, useTestEngine,
} from './cli-helpers.js';

const e = useTestEngine();

const seed = (): Promise<void> => seedEngine(e);
const engineExport = () => exportOf(e);
const newProject = (name = 'proj') => initProject(e.url, name);

const run = (dir: string, ...args: string[]) => cli(args, { cwd: dir });


/** The first line `engine init` writes in a YAML file of project `dir`: its JSON Schema, relative to the file. */
const schemaLine = (dir: string, rel: string): string => {
  const name = rel.replace(/^metadata\//, '').replace(/\.yaml$/, '');
  return `# yaml-language-server: $schema=${relative(dirname(join(dir, rel)), join(dir, 'schemas', `${name}.schema.json`))}\n\n`;
};

const NO_DIFF = 'No differences.\n';
const LIMIT_DIFF = '~ select_permission public.article.user\n    + permission.limit: 10\n\nSummary: 0 added, 0 removed, 1 changed.\n';

/** Adds `limit: 10` to the select permission of public.article for role user (a file as export wrote it). */
function addLimit(dir: string): void {
  const file = join(dir, 'metadata/tables.yaml');
  const text = readFileSync(file, 'utf8');
  const edited = text.replace('            _eq: X-Engine-User-Id\n', '            _eq: X-Engine-User-Id\n        limit: 10\n');
  expect(edited).not.toBe(text);
  writeFileSync(file, edited);
}

describe('init → export → diff → apply (cli.md §5.1–§5.4)', () => {
  it('runs the whole cycle with the exact messages, files and exit codes', async () => {
    await seed();
    const { parent, dir, init } = await newProject();

    // §5.1: the project, its messages on stderr, nothing on stdout.
    expect(init.stdout).toBe('');
    expect(lines(init.stderr)).toEqual(['Created project in proj.', 'Next steps:', '  cd proj', '  engine serve']);
    expect(readFileSync(join(dir, 'config.yaml'), 'utf8')).toBe(
      `${schemaLine(dir, 'config.yaml')}version: 2\nendpoint: ${e.url}\nmetadata_directory: metadata\nmigrations_directory: migrations\n` +
        'actions:\n  kind: synchronous\n  handler_webhook_baseurl: http://localhost:3000\n',
    );
    expect(readFileSync(join(dir, '.gitignore'), 'utf8').split('\n').filter(Boolean).sort()).toEqual(['.engine/', '.env']);
    expect(existsSync(join(dir, '.env'))).toBe(false);
    expect(readdirSync(join(dir, 'migrations'))).toEqual([]);
    expect(Object.fromEntries(snapshot(join(dir, 'metadata')))).toEqual(Object.fromEntries(Object.entries(EMPTY_FILES).map(
      ([name, empty]) => [name, name.endsWith('.yaml') ? `${schemaLine(dir, `metadata/${name}`)}${empty}` : empty])));

    // §5.2: export writes the three changed files; messages on stderr, stdout empty.
    const exp = await run(dir, 'metadata', 'export');
    expect(exp.code, show(exp)).toBe(0);
    expect(exp.stdout).toBe('');
    const expLines = lines(exp.stderr);
    expect(expLines.at(-1)).toBe('Metadata exported to metadata/ (3 changed, 6 unchanged).');
    expect(expLines.slice(0, -1).sort()).toEqual(['  updated metadata/actions.graphql', '  updated metadata/actions.yaml', '  updated metadata/tables.yaml']);
    // The schema line of init is the files' header (cli.md §4.10), which export keeps.
    expect(readFileSync(join(dir, 'metadata/tables.yaml'), 'utf8')).toBe(schemaLine(dir, 'metadata/tables.yaml') + SEED_TABLES_YAML);
    expect(readFileSync(join(dir, 'metadata/actions.graphql'), 'utf8')).toBe(SEED_ACTIONS_GRAPHQL);
    expect(readFileSync(join(dir, 'metadata/actions.yaml'), 'utf8')).toBe(schemaLine(dir, 'metadata/actions.yaml') + SEED_ACTIONS_YAML);
    expect(readdirSync(parent).filter((n) => n.includes('engine-')), 'no temporary siblings').toEqual([]);
    expect(readdirSync(dir).filter((n) => n.includes('engine-')), 'no temporary siblings').toEqual([]);

    // §4.14: right after an export, diff prints `No differences.`
    const same = await run(dir, 'metadata', 'diff', '--exit-code');
    expect(same.code, show(same)).toBe(0);
    expect(same.stdout).toBe(NO_DIFF);
    expect(lines(same.stderr)).toEqual([`Comparing engine (${e.url}) → metadata/`]);

    // §4.12, §5.4: an edit shows as one changed object; --exit-code exits 2.
    addLimit(dir);
    const d = await run(dir, 'metadata', 'diff', '--exit-code');
    expect(d.code, show(d)).toBe(2);
    expect(d.stdout).toBe(LIMIT_DIFF);
    expect(lines(d.stderr)).toEqual([`Comparing engine (${e.url}) → metadata/`]);
    const plain = await run(dir, 'metadata', 'diff');
    expect(plain.code, 'diff without --exit-code exits 0 whatever it found').toBe(0);
    expect(plain.stdout).toBe(LIMIT_DIFF);

    // §5.3 step 3: dry run with --exit-code: the plan, exit 2, nothing applied.
    const before = await e.state();
    const dry = await run(dir, 'metadata', 'apply', '--dry-run', '--exit-code');
    expect(dry.code, show(dry)).toBe(2);
    expect(dry.stdout).toBe(LIMIT_DIFF);
    expect(lines(dry.stderr)).toContain('Dry run: nothing was applied.');
    expect(await e.state()).toEqual(before);
    const dry0 = await run(dir, 'metadata', 'apply', '--dry-run');
    expect(dry0.code, 'a dry run without --exit-code exits 0').toBe(0);
    expect(await e.state()).toEqual(before);

    // §5.3 step 7: apply.
    const applied = await run(dir, 'metadata', 'apply');
    expect(applied.code, show(applied)).toBe(0);
    expect(applied.stdout).toBe('');
    expect(lines(applied.stderr)).toContain('Metadata applied: 0 added, 0 removed, 1 changed.');
    expect(applied.stderr).not.toMatch(/^(error|warning):/m);
    const after = await engineExport();
    expect(after.version).toBe(Number(before.version) + 1);
    const perm = JSON.parse(after.text).tables[0].select_permissions[0];
    expect(perm).toEqual({ role: 'user', permission: { columns: ['id', 'title'], filter: { author_id: { _eq: 'X-Engine-User-Id' } }, limit: 10 } });

    // §5.3 step 4: nothing left to apply.
    const again = await run(dir, 'metadata', 'apply');
    expect(again.code, show(again)).toBe(0);
    expect(lines(again.stderr)).toContain('Metadata is up to date; nothing to apply.');
    expect((await engineExport()).version, 'an empty plan writes nothing').toBe(after.version);

    // §5.2: the files already hold the engine's metadata.
    const files = snapshot(join(dir, 'metadata'));
    const exp2 = await run(dir, 'metadata', 'export');
    expect(exp2.code, show(exp2)).toBe(0);
    expect(exp2.stdout).toBe('');
    expect(lines(exp2.stderr)).toEqual(['Metadata in metadata/ is already up to date.']);
    expect(snapshot(join(dir, 'metadata'))).toEqual(files);
    const same2 = await run(dir, 'metadata', 'diff');
    expect(same2.stdout).toBe(NO_DIFF);
  });

  it('round trip: build after export equals export_metadata, key for key (cli.md §4.5, §4.14, §5.6)', async () => {
    await seed();
    await e.ok({
      type: 'create_select_permission',
      args: { table: 'author', role: 'user', permission: { columns: '*', filter: { _or: [{ id: { _eq: 'X-Engine-User-Id' } }, { name: { _ilike: '%a%' } }] }, limit: 5 }, comment: 'authors' },
    });
    const { dir } = await newProject();
    const exp = await run(dir, 'metadata', 'export');
    expect(exp.code, show(exp)).toBe(0);
    const engine = await engineExport();

    const build = await run(dir, 'metadata', 'build');
    expect(build.code, show(build)).toBe(0);
    expect(build.stdout, 'build prints the canonical document with 2-space indentation').toBe(`${JSON.stringify(JSON.parse(engine.text), null, 2)}\n`);
    expect(JSON.stringify(JSON.parse(build.stdout))).toBe(engine.text);
    const buildJson = await run(dir, 'metadata', 'build', '-o', 'json');
    expect(buildJson.code, show(buildJson)).toBe(0);
    expect(buildJson.stdout, 'build -o json prints the metadata document itself').toBe(build.stdout);

    // export -o json / -o yaml print the engine's document and touch no files (§5.2).
    const files = snapshot(dir);
    const ej = await run(dir, 'metadata', 'export', '-o', 'json');
    expect(ej.code, show(ej)).toBe(0);
    expect(JSON.stringify(jsonDoc(ej))).toBe(engine.text);
    const ey = await run(dir, 'metadata', 'export', '-o', 'yaml');
    expect(ey.code, show(ey)).toBe(0);
    expect(JSON.stringify(parseYaml(ey.stdout))).toBe(engine.text);
    expect(snapshot(dir)).toEqual(files);

    // Exporting the same metadata into another project writes byte-identical files (§4.8: deterministic).
    const other = await newProject('other');
    const exp2 = await run(other.dir, 'metadata', 'export');
    expect(exp2.code, show(exp2)).toBe(0);
    expect(snapshot(join(other.dir, 'metadata'))).toEqual(snapshot(join(dir, 'metadata')));

    // build(export(build(D))) = build(D): apply the build, export again, build again.
    const applied = await run(dir, 'metadata', 'apply');
    expect(applied.code, show(applied)).toBe(0);
    expect(lines(applied.stderr)).toContain('Metadata is up to date; nothing to apply.');
    const build2 = await run(other.dir, 'metadata', 'build');
    expect(build2.stdout).toBe(build.stdout);
  });
});

describe('JSON mode on success (cli.md §3.4, §5.1–§5.9)', () => {
  it('prints exactly one document with ok: true and the command fields', async () => {
    await seed();
    const parent = await tempDir();
    const init = await cli(['init', 'proj', '--endpoint', e.url, '-o', 'json'], { cwd: parent });
    expect(init.code, show(init)).toBe(0);
    const initDoc = jsonDoc(init);
    const dir = join(parent, 'proj');
    expect(initDoc.ok).toBe(true);
    expect(initDoc.directory).toBe(dir);
    expect(initDoc.warnings).toEqual([]);
    expect(initDoc.files).toEqual([...initDoc.files].sort());
    for (const f of ['.gitignore', 'config.yaml', ...Object.keys(EMPTY_FILES).map((n) => `metadata/${n}`)]) expect(initDoc.files).toContain(f);
    expect(init.stderr, 'no error on stderr').not.toMatch(/^error:/m);

    const exp = await run(dir, 'metadata', 'export');
    expect(exp.code, show(exp)).toBe(0);
    addLimit(dir);

    // §5.4
    const diff = await run(dir, 'metadata', 'diff', '-o', 'json');
    expect(diff.code, show(diff)).toBe(0);
    const diffDoc = jsonDoc(diff);
    const tablesYaml = readFileSync(join(dir, 'metadata/tables.yaml'), 'utf8');
    const permLine = tablesYaml.split('\n').indexOf('    - role: user') + 1;
    expect(diffDoc).toEqual({
      ok: true,
      from: { type: 'engine', endpoint: e.url },
      to: { type: 'directory', path: 'metadata' },
      changes: [{
        change: 'changed', kind: 'select_permission', name: 'public.article.user', file: 'metadata/tables.yaml', line: permLine,
        column: expect.any(Number), fields: [{ path: 'permission.limit', change: '+', to: 10 }],
      }],
      summary: { added: 0, removed: 0, changed: 1 },
      warnings: [],
    });
    const diffExit = await run(dir, 'metadata', 'diff', '-o', 'json', '--exit-code');
    expect(diffExit.code, '--exit-code: 2 with differences, still ok: true').toBe(2);
    expect(jsonDoc(diffExit).ok).toBe(true);

    // §5.3 dry run
    const { version } = await engineExport();
    const dry = await run(dir, 'metadata', 'apply', '--dry-run', '--exit-code', '-o', 'json');
    expect(dry.code, show(dry)).toBe(2);
    const dryDoc = jsonDoc(dry);
    expect(dryDoc).toEqual({
      ok: true, dry_run: true, checked: true, applied: false, resource_version: version, changes: diffDoc.changes,
      summary: { added: 0, removed: 0, changed: 1 }, access_widened: [], inconsistent_objects: [], warnings: [],
    });

    // §5.3 apply
    const apply = await run(dir, 'metadata', 'apply', '-o', 'json');
    expect(apply.code, show(apply)).toBe(0);
    const applyDoc = jsonDoc(apply);
    const after = await engineExport();
    expect(after.version).toBe(version + 1);
    expect(applyDoc).toEqual({
      ok: true, dry_run: false, applied: true, resource_version: after.version, changes: diffDoc.changes,
      summary: { added: 0, removed: 0, changed: 1 }, access_widened: [], inconsistent_objects: [], warnings: [],
    });
    const noop = await run(dir, 'metadata', 'apply', '-o', 'json');
    expect(noop.code, show(noop)).toBe(0);
    expect(jsonDoc(noop)).toEqual({
      ok: true, dry_run: false, applied: false, resource_version: after.version, changes: [],
      summary: { added: 0, removed: 0, changed: 0 }, access_widened: [], inconsistent_objects: [], warnings: [],
    });

    // §5.2: -o json prints the metadata document itself.
    const ej = await run(dir, 'metadata', 'export', '-o', 'json');
    expect(ej.code, show(ej)).toBe(0);
    expect(JSON.stringify(jsonDoc(ej))).toBe(after.text);

    // §5.5
    const val = await run(dir, 'metadata', 'validate', '-o', 'json');
    expect(val.code, show(val)).toBe(0);
    expect(jsonDoc(val)).toEqual({ ok: true, problems: [], summary: { errors: 0, warnings: 0 } });

    // §5.8, §5.9
    const reload = await run(dir, 'metadata', 'reload', '-o', 'json');
    expect(reload.code, show(reload)).toBe(0);
    expect(jsonDoc(reload)).toEqual({ ok: true, is_consistent: true, inconsistent_objects: [], warnings: [] });
    const list = await run(dir, 'metadata', 'inconsistency', 'list', '-o', 'json');
    expect(list.code, show(list)).toBe(0);
    expect(jsonDoc(list)).toEqual({ ok: true, is_consistent: true, inconsistent_objects: [], warnings: [] });
    const status = await run(dir, 'metadata', 'inconsistency', 'status', '-o', 'json');
    expect(status.code, show(status)).toBe(0);
    expect(jsonDoc(status).ok).toBe(true);
    const drop = await run(dir, 'metadata', 'inconsistency', 'drop', '-o', 'json');
    expect(drop.code, show(drop)).toBe(0);
    expect(jsonDoc(drop)).toEqual({ ok: true, dropped: [], warnings: [] });

    // §5.7
    const clear = await run(dir, 'metadata', 'clear', '--yes', '-o', 'json');
    expect(clear.code, show(clear)).toBe(0);
    expect(jsonDoc(clear)).toEqual({ ok: true, warnings: [] });
    expect((await engineExport()).text).toBe('{"version":2,"tables":[]}');
  });
});

describe('metadata clear (cli.md §5.7)', () => {
  it('clears with --yes / -y and says so', async () => {
    await seed();
    const { dir } = await newProject();
    const r = await run(dir, 'metadata', 'clear', '--yes');
    expect(r.code, show(r)).toBe(0);
    expect(r.stdout).toBe('');
    expect(lines(r.stderr)).toEqual(['Metadata cleared.']);
    expect((await engineExport()).text).toBe('{"version":2,"tables":[]}');
    const y = await run(dir, 'metadata', 'clear', '-y');
    expect(y.code, show(y)).toBe(0);
    expect(lines(y.stderr)).toEqual(['Metadata cleared.']);
  });
});

describe('an interrupted export (cli.md §4.11)', () => {
  it('SIGKILL while the temporary sibling exists leaves metadata/ intact; the next export cleans up', async () => {
    // 300 tracked tables, so the export has real work to do.
    const n = 300;
    const names = Array.from({ length: n }, (_, i) => `t${String(i).padStart(3, '0')}`);
    await e.sql(names.map((t) => `create table ${t} (id int primary key, v text);`).join('\n'));
    await e.ok({
      type: 'replace_metadata',
      args: { version: 2, tables: names.map((t) => ({ table: { schema: 'public', name: t }, select_permissions: [{ role: 'user', permission: { columns: '*', filter: {} } }] })) },
    });
    const { parent, dir } = await newProject();
    const mdDir = join(dir, 'metadata');
    // Unmanaged entries are preserved by export (§4.1) by copying them into the temporary sibling: many of them
    // keep that sibling around long enough to be seen.
    mkdirSync(join(mdDir, 'notes'));
    for (let i = 0; i < 4000; i++) writeFileSync(join(mdDir, 'notes', `note-${i}.md`), `note ${i}\n`.repeat(20));
    const before = snapshot(mdDir);
    expect(readdirSync(parent)).toEqual(['proj']);

    const p = spawnCli(['metadata', 'export'], { cwd: dir });
    const exited = () => p.child.exitCode !== null || p.child.signalCode !== null;
    const tmp = await until(() => {
      const entries = readdirSync(dir);
      const t = entries.find((x) => x.startsWith('.metadata.engine-tmp-'));
      if (t && entries.includes('metadata') && !entries.some((x) => x.startsWith('.metadata.engine-old-'))) return t;
      if (exited()) throw new Error(`the export ended before its temporary directory was seen\nstderr: ${p.stderr()}`);
      return null;
    }, 'the .metadata.engine-tmp-* sibling', 45_000, 1);
    p.child.kill('SIGKILL');
    const killed = await p.done;
    expect(killed.signal).toBe('SIGKILL');

    expect(existsSync(join(dir, tmp)), 'the temporary sibling was left behind by the kill').toBe(true);
    expect(snapshot(mdDir), 'metadata/ is intact, byte for byte').toEqual(before);

    const next = await run(dir, 'metadata', 'export');
    expect(next.code, show(next)).toBe(0);
    expect(lines(next.stderr)).toContain('  updated metadata/tables.yaml');
    expect(lines(next.stderr).at(-1)).toBe('Metadata exported to metadata/ (1 changed, 8 unchanged).');
    expect(readdirSync(dir).filter((x) => x.startsWith('.metadata.engine-')), 'stale siblings are deleted').toEqual([]);
    const now = snapshot(mdDir);
    for (const [f, bytes] of before) if (f.startsWith('notes/')) expect(now.get(f)).toBe(bytes);
    expect(now.get('tables.yaml')?.match(/^- table:$/gm)?.length).toBe(n);
    const diff = await run(dir, 'metadata', 'diff');
    expect(diff.stdout).toBe(NO_DIFF);
  });

  it('restores metadata/ from an .engine-old-* sibling and removes stale .engine-tmp-* ones', async () => {
    await seed();
    const { dir } = await newProject();
    const first = await run(dir, 'metadata', 'export');
    expect(first.code, show(first)).toBe(0);
    writeFileSync(join(dir, 'metadata/README.md'), 'kept\n');
    const before = snapshot(join(dir, 'metadata'));
    // The state between the two renames of §4.11: the old directory renamed away, the new one not yet in place.
    renameSync(join(dir, 'metadata'), join(dir, '.metadata.engine-old-x'));
    mkdirSync(join(dir, '.metadata.engine-tmp-x'));
    writeFileSync(join(dir, '.metadata.engine-tmp-x/tables.yaml'), 'partial');

    const r = await run(dir, 'metadata', 'export');
    expect(r.code, show(r)).toBe(0);
    expect(r.stdout).toBe('');
    expect(lines(r.stderr)).toEqual(['warning: restored metadata/ from an interrupted export', 'Metadata in metadata/ is already up to date.']);
    expect(readdirSync(dir).sort()).toEqual(['.gitignore', 'config.yaml', 'metadata', 'migrations', 'schemas']);
    expect(statSync(join(dir, 'metadata')).isDirectory()).toBe(true);
    expect(snapshot(join(dir, 'metadata'))).toEqual(before);
  });
});
