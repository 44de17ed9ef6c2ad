/**
 * End-to-end: `engine migrate config` and its alias `engine config upgrade` (cli.md §5.16) with the real bin on
 * version-1 projects built in temporary directories; the engine is contacted only for a project without a metadata
 * file (export) and to apply the upgraded project.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import {
  cli, EMPTY_FILES, jsonDoc, SEED_ACTIONS_GRAPHQL, SEED_ACTIONS_YAML, SEED_METADATA, SEED_SQL, SEED_TABLES_YAML, show, snapshot, tempDir,
  useTestEngine, type CliResult,
} from './cli-helpers.js';

const e = useTestEngine();

const CONFIG = (endpoint: string) => `# a version 1 project
version: 1 # legacy
endpoint: ${endpoint}   # the engine
custom_setting: kept    # unknown keys stay
`;

/** A project with `config.yaml` and the given files (path → content). */
async function project(files: Record<string, string>, endpoint = e.url): Promise<string> {
  const dir = await tempDir('engine-upgrade-');
  writeFileSync(join(dir, 'config.yaml'), CONFIG(endpoint));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

const upgrade = (dir: string, ...args: string[]): Promise<CliResult> => cli(['migrate', 'config', ...args], { cwd: dir });

/** Every file of the project except the backups. */
const files = (dir: string): Map<string, string> =>
  new Map([...snapshot(dir)].filter(([p]) => !p.startsWith('.engine-backup/')));

/** Stderr without the (expected) warning about the unknown key of CONFIG. */
const stderr = (r: CliResult): string => r.stderr.split('\n').filter((l) => !l.startsWith('warning: config.yaml:4:1: unknown key')).join('\n');
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const withoutConfigWarnings = (j: any): any => ({ ...j, warnings: j.warnings.filter((w: { code: string }) => w.code !== 'config-unknown-key') });

const read = (dir: string, path: string): string => readFileSync(join(dir, path), 'utf8');

/** The one backup directory of a project (relative). */
function backupOf(dir: string): string {
  const names = readdirSync(join(dir, '.engine-backup'));
  expect(names).toHaveLength(1);
  return `.engine-backup/${names[0] as string}`;
}

/** The v1 metadata file: string table names, every list present even when empty (engine-api.md §6.2). */
const V1_METADATA = `functions: []
remote_schemas: []
query_collections: []
allowlist: []
tables:
  - table: author
    is_enum: false
    object_relationships: []
    array_relationships:
      - name: articles
        using:
          foreign_key_constraint_on:
            table: article
            column: author_id
    insert_permissions: []
    select_permissions: []
    update_permissions: []
    delete_permissions: []
    event_triggers: []
    computed_fields: []
  - table: article
    object_relationships:
      - name: author
        using:
          foreign_key_constraint_on: author_id
    array_relationships: []
    insert_permissions: []
    select_permissions:
      - role: user
        permission:
          columns: [id, title]
          filter: {author_id: {_eq: X-Engine-User-Id}}
    update_permissions: []
    delete_permissions: []
    event_triggers: []
`;

const UP_YAML = `- type: run_sql
  args:
    sql: |
      create table author (id serial primary key, name text not null);
- type: run_sql
  args:
    sql: create table article (id serial primary key, title text not null, author_id int references author(id));
- type: track_table
  args:
    schema: public
    name: author
- type: create_select_permission
  args:
    table: article
    role: user
    permission: {columns: [id, title], filter: {}}
`;

const DOWN_YAML = `- type: run_sql
  args:
    sql: drop table article
    cascade: true
- type: run_sql
  args:
    sql: drop table author;
`;

describe('engine migrate config', () => {
  it('leaves a version 2 project alone', async () => {
    const dir = await project({});
    writeFileSync(join(dir, 'config.yaml'), 'version: 2\n');
    const before = snapshot(dir);
    const r = await upgrade(dir);
    expect(r.code, show(r)).toBe(0);
    expect(r.stderr).toBe('Project is already at config version 2.\n');
    expect(r.stdout).toBe('');
    const j = jsonDoc(await upgrade(dir, '-o', 'json'));
    expect(j).toEqual({ ok: true, already: true, warnings: [] });
    expect(snapshot(dir)).toEqual(before);
  });

  it('--dry-run names every file and changes nothing', async () => {
    const dir = await project({
      'migrations/1_init/up.yaml': UP_YAML,
      'migrations/1_init/down.yaml': DOWN_YAML,
      'migrations/2_flat.up.sql': 'select 1;\n',
      'migrations/3_seed.up.py': 'print(1)\n',
      'migrations/1_init/notes.txt': 'why\n',
      'migrations/metadata.yaml': V1_METADATA,
    });
    const before = snapshot(dir);
    const r = await upgrade(dir, '--dry-run');
    expect(r.code, show(r)).toBe(0);
    // Issue 12 item 2: the dry run prints every warning the real run prints, and names the files left behind.
    const real = await upgrade(await project({
      'migrations/1_init/up.yaml': UP_YAML, 'migrations/1_init/down.yaml': DOWN_YAML, 'migrations/2_flat.up.sql': 'select 1;\n',
      'migrations/3_seed.up.py': 'print(1)\n', 'migrations/1_init/notes.txt': 'why\n', 'migrations/metadata.yaml': V1_METADATA,
    }));
    const warnings = (text: string) => text.split('\n').filter((l) => l.startsWith('warning: ')).map((l) => l.replace(/\.engine-backup\/[^/]+\//, '<backup>/'));
    expect(warnings(r.stderr)).toEqual(warnings(real.stderr));
    expect(warnings(r.stderr)).toContain('warning: migrations/3_seed.up.py is not a migration engine runs; it was left as it is (see <backup>/report.yaml)');
    expect(warnings(r.stderr)).toContain('warning: migrations/1_init/notes.txt is not a migration engine runs; it was left as it is (see <backup>/report.yaml)');
    expect(r.stdout).toContain('leave migrations/3_seed.up.py (not a migration engine runs)');
    expect(snapshot(dir)).toEqual(before);
    expect(existsSync(join(dir, '.engine-backup'))).toBe(false);
    for (const text of [
      'convert migrations/1_init/up.yaml → migrations/1_init/up.sql',
      'convert migrations/1_init/down.yaml → migrations/1_init/down.sql',
      'remove migrations/1_init/up.yaml', 'remove migrations/1_init/down.yaml',
      'move migrations/2_flat.up.sql → migrations/2_flat/up.sql',
      'not converted: migrations/1_init/up.yaml step 3 (track_table)',
      'not converted: migrations/1_init/up.yaml step 4 (create_select_permission)',
      'remove migrations/metadata.yaml', 'Update config.yaml: version: 2',
      ...Object.keys(EMPTY_FILES).map((f) => `create metadata/${f}`),
    ]) expect(r.stdout).toContain(text);
    expect(r.stdout).toMatch(/^1\. Back up config\.yaml and migrations\/ to \.engine-backup\/\d{8}T\d{6}Z\/$/m);
  });

  it('converts YAML steps, reports the others, writes metadata and config; the result applies and validates', async () => {
    const dir = await project({
      'migrations/1_init/up.yaml': UP_YAML,
      'migrations/1_init/down.yaml': DOWN_YAML,
      'migrations/metadata.yaml': V1_METADATA,
    });
    const r = await upgrade(dir);
    expect(r.code, show(r)).toBe(0);
    const backup = backupOf(dir);
    const report = `${backup}/report.yaml`;
    expect(stderr(r).split('\n')).toEqual([
      `Backed up config.yaml and migrations/ to ${backup}/`,
      `warning: migrations/1_init/up.yaml step 3 (track_table) was not converted to SQL; check that metadata/ contains its effect (see ${report})`,
      `warning: migrations/1_init/up.yaml step 4 (create_select_permission) was not converted to SQL; check that metadata/ contains its effect (see ${report})`,
      `warning: migrations/1_init/down.yaml step 1 (run_sql) has cascade: true, which SQL cannot express (see ${report})`,
      'Project upgraded to config version 2.',
      '',
    ]);
    expect(read(dir, 'migrations/1_init/up.sql')).toBe(
      '-- converted from up.yaml, step 1\ncreate table author (id serial primary key, name text not null);\n'
      + '-- converted from up.yaml, step 2\ncreate table article (id serial primary key, title text not null, author_id int references author(id));\n');
    expect(read(dir, 'migrations/1_init/down.sql')).toBe(
      '-- converted from down.yaml, step 1\ndrop table article;\n-- converted from down.yaml, step 2\ndrop table author;\n');
    expect(readdirSync(join(dir, 'migrations'))).toEqual(['1_init']);
    expect(readdirSync(join(dir, 'migrations/1_init')).sort()).toEqual(['down.sql', 'up.sql']);
    // config.yaml edited in place: comments, order and unknown keys kept.
    expect(read(dir, 'config.yaml')).toBe(`# a version 1 project
version: 2 # legacy
endpoint: ${e.url}   # the engine
custom_setting: kept    # unknown keys stay
metadata_directory: metadata
actions:
  kind: synchronous
  handler_webhook_baseurl: http://localhost:3000
`);
    // The metadata directory: version-1 shapes converted (QName objects, empty lists dropped).
    expect(read(dir, 'metadata/tables.yaml')).toBe(SEED_TABLES_YAML.replace(/ {2}event_triggers:[\s\S]*?webhook: http:\/\/localhost:3000\/events\n/, ''));
    for (const f of ['functions.yaml', 'actions.graphql', 'actions.yaml', 'version.yaml']) expect(read(dir, `metadata/${f}`)).toBe(EMPTY_FILES[f]);
    // The report, and the backup holding the originals.
    const rep = parseYaml(read(dir, report)) as Record<string, unknown>;
    expect(rep).toEqual({
      left_behind: [], renamed: { environment: [], session_variables: [] },
      converted: [
        { file: 'migrations/1_init/up.yaml', step: 1 }, { file: 'migrations/1_init/up.yaml', step: 2 },
        { file: 'migrations/1_init/down.yaml', step: 1, cascade: true }, { file: 'migrations/1_init/down.yaml', step: 2 },
      ],
      not_converted: [
        { file: 'migrations/1_init/up.yaml', step: 3, type: 'track_table', args: { schema: 'public', name: 'author' } },
        {
          file: 'migrations/1_init/up.yaml', step: 4, type: 'create_select_permission',
          args: { table: 'article', role: 'user', permission: { columns: ['id', 'title'], filter: {} } },
        },
      ],
      moved: [],
      removed: ['migrations/1_init/up.yaml', 'migrations/1_init/down.yaml', 'migrations/metadata.yaml'],
    });
    expect(read(dir, `${backup}/migrations/1_init/up.yaml`)).toBe(UP_YAML);
    expect(read(dir, `${backup}/migrations/metadata.yaml`)).toBe(V1_METADATA);
    expect(read(dir, `${backup}/config.yaml`)).toBe(CONFIG(e.url));
    // A valid version 2 project: validate passes, the migrations apply, the metadata applies.
    const v = await cli(['metadata', 'validate'], { cwd: dir });
    expect(v.code, show(v)).toBe(0);
    const m = await cli(['migrate', 'apply'], { cwd: dir });
    expect(m.code, show(m)).toBe(0);
    const a = await cli(['metadata', 'apply'], { cwd: dir });
    expect(a.code, show(a)).toBe(0);
    // Run twice: the second run changes nothing.
    const before = snapshot(dir);
    const again = await upgrade(dir);
    expect(again.code, show(again)).toBe(0);
    expect(stderr(again)).toBe('Project is already at config version 2.\n');
    expect(snapshot(dir)).toEqual(before);
  });

  it('keeps SQL migrations, appends up.yaml to up.sql and prepends down.yaml to down.sql', async () => {
    const dir = await project({
      'migrations/10_sql_only/up.sql': 'create table t1 (id int);\n',
      'migrations/10_sql_only/down.sql': 'drop table t1;\n',
      'migrations/20_mixed/up.sql': 'create table t2 (id int)',
      'migrations/20_mixed/up.yaml': '- type: run_sql\n  args:\n    sql: "  alter table t2 add column x int  "\n',
      'migrations/20_mixed/down.sql': 'drop table t2;\n',
      'migrations/20_mixed/down.yaml': '- type: run_sql\n  args:\n    sql: alter table t2 drop column x\n',
      'migrations/metadata.json': JSON.stringify({ tables: [{ table: 't1' }], functions: [] }),
    });
    const r = await upgrade(dir, '-o', 'json');
    expect(r.code, show(r)).toBe(0);
    const j = withoutConfigWarnings(jsonDoc(r));
    const backup = backupOf(dir);
    expect(j).toEqual({
      ok: true, renamed: { environment: [], session_variables: [] }, backup, report: `${backup}/report.yaml`, left_behind: [],
      converted: [{ file: 'migrations/20_mixed/up.yaml', step: 1 }, { file: 'migrations/20_mixed/down.yaml', step: 1 }],
      not_converted: [], moved: [],
      removed: ['migrations/20_mixed/up.yaml', 'migrations/20_mixed/down.yaml', 'migrations/metadata.json'],
      warnings: [],
    });
    expect(read(dir, 'migrations/10_sql_only/up.sql')).toBe('create table t1 (id int);\n');
    expect(read(dir, 'migrations/20_mixed/up.sql')).toBe('create table t2 (id int);\n-- converted from up.yaml, step 1\nalter table t2 add column x int;\n');
    expect(read(dir, 'migrations/20_mixed/down.sql')).toBe('-- converted from down.yaml, step 1\nalter table t2 drop column x;\ndrop table t2;\n');
    expect(read(dir, 'metadata/tables.yaml')).toBe('- table:\n    schema: public\n    name: t1\n');
    const m = await cli(['migrate', 'apply'], { cwd: dir });
    expect(m.code, show(m)).toBe(0);
    const d = await cli(['migrate', 'apply', '--down', 'all'], { cwd: dir });
    expect(d.code, show(d)).toBe(0);
  });

  it('moves flat files into version directories and gives metadata-only versions an up.sql', async () => {
    const dir = await project({
      'migrations/1_a.up.sql': 'create table a (id int);\n',
      'migrations/1_a.down.sql': 'drop table a;\n',
      'migrations/2_b.up.yaml': '- type: track_table\n  args:\n    table: a\n',
      'migrations/3_c/up.yaml': '[]\n',
      'migrations/metadata.yaml': 'tables: [{table: a}]\n',
    });
    const r = await cli(['config', 'upgrade', '-o', 'json'], { cwd: dir });
    expect(r.code, show(r)).toBe(0);
    const j = withoutConfigWarnings(jsonDoc(r));
    const backup = backupOf(dir);
    expect(j.moved).toEqual([
      { from: 'migrations/1_a.up.sql', to: 'migrations/1_a/up.sql' }, { from: 'migrations/1_a.down.sql', to: 'migrations/1_a/down.sql' },
    ]);
    expect(j.not_converted).toEqual([{ file: 'migrations/2_b.up.yaml', step: 1, type: 'track_table', args: { table: 'a' } }]);
    expect(j.warnings.map((w: { code: string }) => w.code)).toEqual(['step-not-converted']);
    expect(j.removed).toEqual(['migrations/2_b.up.yaml', 'migrations/3_c/up.yaml', 'migrations/metadata.yaml']);
    const files2 = files(dir);
    expect([...files2.keys()].filter((p) => p.startsWith('migrations/'))).toEqual([
      'migrations/1_a/down.sql', 'migrations/1_a/up.sql', 'migrations/2_b/up.sql', 'migrations/3_c/up.sql',
    ]);
    expect(read(dir, 'migrations/1_a/up.sql')).toBe('create table a (id int);\n');
    const metadataOnly = `-- metadata-only migration; its steps are listed in ${backup}/report.yaml\n`;
    expect(read(dir, 'migrations/2_b/up.sql')).toBe(metadataOnly);
    expect(read(dir, 'migrations/3_c/up.sql')).toBe(metadataOnly);
    const s = await cli(['migrate', 'apply'], { cwd: dir });
    expect(s.code, show(s)).toBe(0);
    expect(s.stderr).toContain('Applied 3 migration(s).');
  });

  it("exports the engine's metadata when the project has no metadata file", async () => {
    await e.sql(SEED_SQL);
    await e.ok(SEED_METADATA);
    const dir = await project({ 'migrations/1_init/up.sql': SEED_SQL });
    const r = await upgrade(dir);
    expect(r.code, show(r)).toBe(0);
    expect(read(dir, 'metadata/tables.yaml')).toBe(SEED_TABLES_YAML);
    expect(read(dir, 'metadata/actions.graphql')).toBe(SEED_ACTIONS_GRAPHQL);
    expect(read(dir, 'metadata/actions.yaml')).toBe(SEED_ACTIONS_YAML);
    expect(read(dir, 'migrations/1_init/up.sql')).toBe(SEED_SQL);
    const d = await cli(['metadata', 'diff'], { cwd: dir });
    expect(d.code, show(d)).toBe(0);
    const v = await cli(['metadata', 'validate'], { cwd: dir });
    expect(v.code, show(v)).toBe(0);
  });

  it('restores the project byte for byte when a later step fails (metadata that cannot be converted)', async () => {
    const dir = await project({
      'migrations/1_init/up.yaml': UP_YAML,
      'migrations/1_init/down.sql': 'drop table article;\n',
      'migrations/2_flat.up.sql': 'select 1;\n',
      'migrations/metadata.yaml': `${V1_METADATA}query_templates: [{name: q, template: {type: select}}]\n`,
    });
    const before = files(dir);
    const r = await upgrade(dir);
    expect(r.code, show(r)).toBe(1);
    const backup = backupOf(dir);
    expect(r.stderr).toContain(`Backed up config.yaml and migrations/ to ${backup}/`);
    expect(r.stderr).toMatch(new RegExp(`error: upgrade failed: migrations/metadata\\.yaml: .*query_templates.*; the project was restored from ${backup}/\\n`));
    expect(files(dir)).toEqual(before);
    expect(existsSync(join(dir, 'metadata'))).toBe(false);
    const j = jsonDoc(await upgrade(dir, '-o', 'json'));
    expect(j.ok).toBe(false);
    expect(j.error.code).toBe('upgrade-failed');
    expect(files(dir)).toEqual(before);
  });

  it('restores the project when the engine cannot be reached for the export', async () => {
    const dir = await project({ 'migrations/1_init/up.yaml': UP_YAML, 'migrations/2_b.up.sql': 'select 1;\n' }, 'http://127.0.0.1:9');
    const before = files(dir);
    const r = await upgrade(dir, '-o', 'json', '--timeout', '2');
    expect(r.code, show(r)).toBe(1);
    const j = jsonDoc(r);
    expect(j.error.code).toBe('upgrade-failed');
    expect(j.error.message).toMatch(/; the project was restored from \.engine-backup\/\d{8}T\d{6}Z\/$/);
    expect(files(dir)).toEqual(before);
  }, 120_000);

  it('refuses a metadata directory that already holds metadata files, and invalid YAML steps, touching nothing', async () => {
    const dir = await project({ 'migrations/1_init/up.yaml': UP_YAML, 'metadata/tables.yaml': '[]\n' });
    const before = snapshot(dir);
    const r = await upgrade(dir);
    expect(r.code, show(r)).toBe(1);
    expect(stderr(r)).toBe('error: metadata directory "metadata" already contains metadata files\n');
    expect(snapshot(dir)).toEqual(before);

    const bad = await project({ 'migrations/1_init/up.yaml': '- type: run_sql\n  args:\n    sql: [unclosed\n' });
    const before2 = snapshot(bad);
    const b = jsonDoc(await upgrade(bad, '-o', 'json'));
    expect(b.error).toMatchObject({ code: 'migration-invalid', file: 'migrations/1_init/up.yaml', line: expect.any(Number) });
    expect(snapshot(bad)).toEqual(before2);

    const shape = await project({ 'migrations/1_init/up.yaml': '- type: run_sql\n  args: {}\n' });
    const s = await upgrade(shape);
    expect(s.code, show(s)).toBe(1);
    expect(stderr(s)).toBe('error: migrations/1_init/up.yaml:1:3: step 1: run_sql needs "args.sql" (a string)\n');
  });

  it('uses metadata.yaml over metadata.json with a warning, and a second run in the same second gets a new backup', async () => {
    const dir = await project({
      'migrations/metadata.yaml': 'tables: [{table: from_yaml}]\n',
      'migrations/metadata.json': '{"tables": [{"table": "from_json"}]}',
    });
    const r = await upgrade(dir);
    expect(r.code, show(r)).toBe(0);
    expect(r.stderr).toContain('warning: both migrations/metadata.yaml and migrations/metadata.json exist; using migrations/metadata.yaml\n');
    expect(read(dir, 'metadata/tables.yaml')).toContain('name: from_yaml');
    expect(existsSync(join(dir, 'migrations/metadata.json'))).toBe(false);
  });

  it('edits other config.yaml layouts in place, setting only what is absent', async () => {
    const cases: [string, string][] = [
      // No version key: added first; actions present with kind: only the missing key is added, at its indentation.
      ['endpoint: http://x  # e\nactions:\n    kind: asynchronous # mine\n', 'version: 2\nendpoint: http://x  # e\nactions:\n    kind: asynchronous # mine\n    handler_webhook_baseurl: http://localhost:3000\nmetadata_directory: metadata\n'],
      // An empty actions key, a metadata_directory kept, CRLF line ends kept.
      ['version: 1\r\nmetadata_directory: md\r\nactions:\r\n', 'version: 2\r\nmetadata_directory: md\r\nactions:\r\n  kind: synchronous\r\n  handler_webhook_baseurl: http://localhost:3000\r\n'],
      // Flow mapping for actions.
      ['version: 1\nactions: {handler_webhook_baseurl: "http://h:1"}\n', 'version: 2\nactions: {handler_webhook_baseurl: "http://h:1", kind: synchronous}\nmetadata_directory: metadata\n'],
    ];
    for (const [before, after] of cases) {
      const dir = await project({ 'migrations/metadata.yaml': '{}\n' });
      writeFileSync(join(dir, 'config.yaml'), before);
      const r = await upgrade(dir);
      expect(r.code, show(r)).toBe(0);
      expect(read(dir, 'config.yaml')).toBe(after);
    }
  });
});
