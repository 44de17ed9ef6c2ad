/**
 * End-to-end (issue 29 point 6): `engine migrate config` on a version 1 project as the incumbent left it — the admin
 * secret under `access_key` in config.yaml, `query_templates: []` in migrations/metadata.yaml — with the real bin.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, SEED_METADATA, SEED_SQL, SEED_TABLES_YAML, show, tempDir, useTestEngine } from './cli-helpers.js';

const SECRET = 'v1-s3cret';
const e = useTestEngine({ adminSecret: SECRET });

async function project(files: Record<string, string>, key = SECRET): Promise<string> {
  const dir = await tempDir('engine-upgrade-v1-');
  writeFileSync(join(dir, 'config.yaml'), `version: 1\nendpoint: ${e.url}\naccess_key: ${key}\n`);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

const read = (dir: string, path: string): string => readFileSync(join(dir, path), 'utf8');

describe('engine migrate config on the incumbent version 1 forms', () => {
  it('exports the metadata with the access_key of config.yaml, and the project works with it afterwards', async () => {
    await e.sql(SEED_SQL);
    await e.ok(SEED_METADATA);
    const dir = await project({ 'migrations/1_init/up.sql': SEED_SQL });
    const r = await cli(['migrate', 'config'], { cwd: dir });
    expect(r.code, show(r)).toBe(0);
    expect(read(dir, 'metadata/tables.yaml')).toBe(SEED_TABLES_YAML);
    expect(read(dir, 'config.yaml')).toContain(`access_key: ${SECRET}`);
    const d = await cli(['metadata', 'diff', '--exit-code'], { cwd: dir });
    expect(d.code, show(d)).toBe(0);
  });

  it('a wrong access_key is the engine refusing the export; the project is restored', async () => {
    const dir = await project({ 'migrations/1_init/up.sql': 'select 1;\n' }, 'wrong');
    const r = await cli(['migrate', 'config'], { cwd: dir });
    expect(r.code, show(r)).toBe(1);
    expect(r.stderr).toMatch(/error: upgrade failed: .*(admin secret|access-denied|invalid)/i);
    expect(read(dir, 'config.yaml')).toContain('version: 1');
  });

  it('takes query_templates: [] in migrations/metadata.yaml, and rejects templates it cannot keep', async () => {
    const metadata = 'version: 1\ntables:\n  - table: author\n    is_enum: false\nfunctions: []\nquery_templates: []\nremote_schemas: []\n';
    const dir = await project({ 'migrations/1_init/up.sql': 'create table author (id int primary key);\n', 'migrations/metadata.yaml': metadata });
    const r = await cli(['migrate', 'config'], { cwd: dir });
    expect(r.code, show(r)).toBe(0);
    expect(read(dir, 'metadata/tables.yaml')).toBe('- table:\n    schema: public\n    name: author\n');
    const bad = await project({ 'migrations/metadata.yaml': 'tables: []\nquery_templates: [{name: q, template: {type: select}}]\n' });
    const b = await cli(['migrate', 'config'], { cwd: bad });
    expect(b.code, show(b)).toBe(1);
    expect(b.stderr).toContain('migrations/metadata.yaml: $.query_templates: "query_templates" is not supported');
  });
});
