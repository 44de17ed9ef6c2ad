import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, jsonDoc, show, snapshot, tempDir, useTestEngine } from './cli-helpers.js';

// Issue 12 item 3: `engine config upgrade --to 3` converts a version 2 project to the version 3 layout (one file per
// table, comments kept), and `migrate config --to 3` a version 1 project straight to it; backup and rollback as for
// 1 → 2. The converted project builds to the same metadata and round-trips on the engine.

const e = useTestEngine();
const QUICKSTART = new URL('../../examples/quickstart', import.meta.url).pathname;
const REAL = new URL('../fixtures/projects/real-features', import.meta.url).pathname;
const TABLES = 'metadata/databases/default/tables';

async function copy(from: string): Promise<{ dir: string; run: (...args: string[]) => ReturnType<typeof cli> }> {
  const dir = join(await tempDir('engine-up3-'), 'project');
  cpSync(from, dir, { recursive: true });
  return { dir, run: (...args: string[]) => cli(args, { cwd: dir, env: { ENGINE_GRAPHQL_ENDPOINT: e.url, ENGINE_ADMIN_SECRET: '' } }) };
}

const files = (dir: string) => new Map([...snapshot(dir)].filter(([p]) => !p.startsWith('.engine-backup/')));

describe('engine config upgrade --to 3', () => {
  it('--dry-run names every file and changes nothing; the upgrade keeps the metadata and its comments', async () => {
    const { dir, run } = await copy(QUICKSTART);
    const built = await run('metadata', 'build');
    expect(built.code, show(built)).toBe(0);
    const before = snapshot(dir);

    const dry = await run('config', 'upgrade', '--to', '3', '--dry-run');
    expect(dry.code, show(dry)).toBe(0);
    expect(dry.stdout).toContain(`   create ${TABLES}/public_author.yaml\n`);
    expect(dry.stdout).toContain('   remove metadata/tables.yaml\n');
    expect(dry.stdout).toContain('3. Update config.yaml: version: 3');
    expect(snapshot(dir)).toEqual(before);

    const up = await run('config', 'upgrade', '--to', '3');
    expect(up.code, show(up)).toBe(0);
    expect(up.stderr).toContain('Project upgraded to config version 3.\n');
    expect(existsSync(join(dir, 'metadata/tables.yaml'))).toBe(false);
    expect(readFileSync(join(dir, 'config.yaml'), 'utf8')).toBe(before.get('config.yaml')?.replace('version: 2\n', 'version: 3\n'));
    expect(readFileSync(join(dir, TABLES, 'tables.yaml'), 'utf8')).toBe('- "!include public_article.yaml"\n- "!include public_author.yaml"\n');
    expect(readFileSync(join(dir, TABLES, 'public_author.yaml'), 'utf8'))
      .toContain('  # A user may create their own author profile; user_id comes from the session, never from the request.\n  - role: user\n');
    // The backup holds the project as it was.
    const [backup] = readdirSync(join(dir, '.engine-backup'));
    expect(readFileSync(join(dir, '.engine-backup', backup as string, 'metadata/tables.yaml'), 'utf8')).toBe(before.get('metadata/tables.yaml'));
    expect(readFileSync(join(dir, '.engine-backup', backup as string, 'config.yaml'), 'utf8')).toBe(before.get('config.yaml'));

    const validate = await run('metadata', 'validate');
    expect(validate.stdout, show(validate)).toBe('');
    const after = await run('metadata', 'build');
    expect(after.stdout).toBe(built.stdout);
    const again = await run('config', 'upgrade', '--to', '3');
    expect(again.stderr).toBe('Project is already at config version 3.\n');
    const plain = await run('config', 'upgrade');
    expect(plain.stderr).toBe('Project is already at config version 3.\n');
  });

  it('refuses metadata with errors, at their position, and changes nothing', async () => {
    const { dir, run } = await copy(QUICKSTART);
    writeFileSync(join(dir, 'metadata/allow_list.yaml'), '# kept\n- collection: nowhere\n');
    const before = snapshot(dir);
    const r = await run('config', 'upgrade', '--to', '3', '-o', 'json');
    expect(r.code, show(r)).toBe(1);
    const j = jsonDoc(r);
    expect(j.error).toMatchObject({ code: 'metadata-invalid', message: 'the metadata has 1 error(s); fix them before upgrading; nothing was changed', file: 'metadata/allow_list.yaml', line: 2, column: 15 });
    expect(j.problems).toEqual([{
      severity: 'error', code: 'reference-invalid', message: 'allow list entry refers to unknown query collection "nowhere"', file: 'metadata/allow_list.yaml', line: 2, column: 15,
    }]);
    const text = await run('config', 'upgrade', '--to', '3');
    expect(text.stderr).toContain('error: metadata/allow_list.yaml:2:15: allow list entry refers to unknown query collection "nowhere"\n');
    expect(snapshot(dir)).toEqual(before);
  });

  it('an invalid --to is a usage error', async () => {
    const { run } = await copy(QUICKSTART);
    const r = await run('config', 'upgrade', '--to', '4');
    expect(r.code).toBe(64);
    expect(r.stderr).toContain('invalid value "4" for --to: expected 2 or 3');
  });

  it('the upgraded project migrates, applies, exports unchanged and diffs clean', async () => {
    const { dir, run } = await copy(REAL);
    expect((await run('config', 'upgrade', '--to', '3')).code).toBe(0);
    expect(existsSync(join(dir, TABLES, 'public_article_status.yaml'))).toBe(true);
    expect((await run('migrate', 'apply')).code).toBe(0);
    const apply = await run('metadata', 'apply');
    expect(apply.code, show(apply)).toBe(0);
    const before = files(dir);
    const exported = await run('metadata', 'export');
    expect(exported.code, show(exported)).toBe(0);
    expect(files(dir)).toEqual(before);
    const diff = await run('metadata', 'diff', '--exit-code');
    expect(diff.code, show(diff)).toBe(0);
  });
});

const V1_METADATA = `version: 1
tables:
  - table: author
    array_relationships:
      - name: articles
        using: {foreign_key_constraint_on: {table: article, column: author_id}}
  - table: article
`;

describe('engine migrate config --to 3', () => {
  async function v1(): Promise<string> {
    const dir = await tempDir('engine-up3-v1-');
    writeFileSync(join(dir, 'config.yaml'), '# legacy\nversion: 1\n');
    mkdirSync(join(dir, 'migrations/1_init'), { recursive: true });
    writeFileSync(join(dir, 'migrations/1_init/up.sql'), 'create table author (id serial primary key);\n');
    return dir;
  }

  it('writes a version 1 project straight in the version 3 layout', async () => {
    const dir = await v1();
    writeFileSync(join(dir, 'migrations/metadata.yaml'), V1_METADATA);
    const r = await cli(['migrate', 'config', '--to', '3'], { cwd: dir });
    expect(r.code, show(r)).toBe(0);
    expect(r.stderr).toContain('Project upgraded to config version 3.\n');
    expect(readFileSync(join(dir, 'config.yaml'), 'utf8')).toMatch(/^# legacy\nversion: 3\n/);
    expect(readFileSync(join(dir, 'metadata/version.yaml'), 'utf8')).toBe('version: 3\n');
    expect(readFileSync(join(dir, TABLES, 'tables.yaml'), 'utf8')).toBe('- "!include public_article.yaml"\n- "!include public_author.yaml"\n');
    expect(existsSync(join(dir, 'metadata/tables.yaml'))).toBe(false);
    const v = await cli(['metadata', 'validate'], { cwd: dir });
    expect(v.code, show(v)).toBe(0);
    const b = await cli(['metadata', 'build'], { cwd: dir });
    expect(JSON.parse(b.stdout).tables.map((t: { table: { name: string } }) => t.table.name)).toEqual(['article', 'author']);
  });

  it('restores the project byte for byte when a later step fails', async () => {
    const dir = await v1();
    writeFileSync(join(dir, 'migrations/metadata.yaml'), `${V1_METADATA}query_templates: [{name: q, template: {type: select}}]\n`);
    const before = files(dir);
    const r = await cli(['migrate', 'config', '--to', '3'], { cwd: dir });
    expect(r.code, show(r)).toBe(1);
    expect(r.stderr).toMatch(/error: upgrade failed: .*query_templates.*; the project was restored from \.engine-backup\/[^/]+\/\n/);
    expect(files(dir)).toEqual(before);
    expect(existsSync(join(dir, 'metadata'))).toBe(false);
  });
});
