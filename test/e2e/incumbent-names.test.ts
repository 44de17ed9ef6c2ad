/**
 * End-to-end: the incumbent's names (issue 19 item 3, issue 29.1). `X-Hasura-…` session variables in permissions are
 * session variables (no warning); `migrate config` / `config upgrade` keep them unless `--rename-session-variables`
 * asks, and rename `HASURA_GRAPHQL_*` in config.yaml and .env, listing each change in its output and report.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { cli, initProject, lines, show, tempDir, useTestEngine } from './cli-helpers.js';

const e = useTestEngine();

const TABLES = `- table:
    schema: public
    name: article
  insert_permissions:
    - role: user
      permission:
        check:
          author_id:
            _eq: X-Hasura-User-Id
        set:
          org_id: x-hasura-org-id
        columns: [id, author_id]
  select_permissions:
    - role: user
      permission:
        columns: [id]
        filter:
          _or:
            - author_id: { _eq: X-HASURA-USER-ID }
            - author_id: { _eq: X-Engine-User-Id }
`;

describe('metadata validate', () => {
  it('takes X-Hasura-* session variables as session variables: no warning (issue 29.1)', async () => {
    const { dir } = await initProject(e.url);
    writeFileSync(join(dir, 'metadata/tables.yaml'), TABLES);
    const r = await cli(['metadata', 'validate'], { cwd: dir });
    expect([r.code, r.stdout], show(r)).toEqual([0, '']);
  });
});

/** A config version 1 project whose metadata writes the incumbent's session variables. */
async function v1Project(): Promise<string> {
  const dir = await tempDir('engine-incumbent-');
  writeFileSync(join(dir, 'config.yaml'), `version: 1\nendpoint: \${HASURA_GRAPHQL_ENDPOINT}\n`);
  writeFileSync(join(dir, '.env'), `# for the CLI\nHASURA_GRAPHQL_ENDPOINT=${e.url}\nOTHER=1\n`);
  const { mkdirSync } = await import('node:fs');
  mkdirSync(join(dir, 'migrations'));
  writeFileSync(join(dir, 'migrations/metadata.yaml'), `version: 2\ntables:\n${TABLES.replace(/^/gm, '  ').trimEnd()}\n`);
  return dir;
}

describe('migrate config keeps X-Hasura-* session variables unless asked (issue 29.1)', () => {
  it('without --rename-session-variables the permissions keep what their writer wrote, and apply', async () => {
    await e.sql('create table article (id serial primary key, author_id int, org_id text)');
    const dir = await v1Project();
    const dry = await cli(['config', 'upgrade', '--dry-run'], { cwd: dir });
    expect(dry.code, show(dry)).toBe(0);
    expect(dry.stdout).not.toContain('session variables');
    const r = await cli(['config', 'upgrade'], { cwd: dir });
    expect(r.code, show(r)).toBe(0);
    expect(r.stderr).not.toMatch(/renamed X-Hasura/i);
    const tables = readFileSync(join(dir, 'metadata/tables.yaml'), 'utf8');
    for (const name of ['X-Hasura-User-Id', 'x-hasura-org-id', 'X-HASURA-USER-ID']) expect(tables).toContain(name);
    const apply = await cli(['metadata', 'apply'], { cwd: dir });
    expect(apply.code, show(apply)).toBe(0);
  });
});

describe('migrate config --rename-session-variables renames the incumbent\'s names', () => {
  it('session variables in the metadata, HASURA_GRAPHQL_* in config.yaml and .env; each listed; the result applies', async () => {
    await e.sql('create table article (id serial primary key, author_id int, org_id text)');
    const dir = await v1Project();

    const dry = await cli(['config', 'upgrade', '--dry-run', '--rename-session-variables'], { cwd: dir });
    expect(dry.code, show(dry)).toBe(0);
    expect(lines(dry.stdout)).toContain('   rename HASURA_GRAPHQL_ENDPOINT → ENGINE_GRAPHQL_ENDPOINT (config.yaml:2)');
    expect(lines(dry.stdout)).toContain('   rename HASURA_GRAPHQL_ENDPOINT → ENGINE_GRAPHQL_ENDPOINT (.env:2)');
    expect(readFileSync(join(dir, '.env'), 'utf8')).toContain('HASURA_GRAPHQL_ENDPOINT=');

    expect(lines(dry.stdout)).toContain("   rename the incumbent's session variables (X-Hasura-… → X-Engine-…) in permission filters, checks and presets");
    const r = await cli(['config', 'upgrade', '--rename-session-variables'], { cwd: dir });
    expect(r.code, show(r)).toBe(0);
    expect(lines(r.stderr)).toEqual(expect.arrayContaining([
      '  renamed HASURA_GRAPHQL_ENDPOINT → ENGINE_GRAPHQL_ENDPOINT (config.yaml:2)',
      '  renamed HASURA_GRAPHQL_ENDPOINT → ENGINE_GRAPHQL_ENDPOINT (.env:2)',
      '  renamed X-Hasura-User-Id → X-Engine-User-Id (public.article insert_permissions[0].permission.check.author_id._eq)',
      '  renamed x-hasura-org-id → x-engine-org-id (public.article insert_permissions[0].permission.set.org_id)',
      '  renamed X-HASURA-USER-ID → X-ENGINE-USER-ID (public.article select_permissions[0].permission.filter._or[0].author_id._eq)',
    ]));
    expect(readFileSync(join(dir, 'config.yaml'), 'utf8')).toContain('endpoint: ${ENGINE_GRAPHQL_ENDPOINT}\n');
    expect(readFileSync(join(dir, '.env'), 'utf8')).toBe(`# for the CLI\nENGINE_GRAPHQL_ENDPOINT=${e.url}\nOTHER=1\n`);
    const tables = readFileSync(join(dir, 'metadata/tables.yaml'), 'utf8');
    expect(tables).not.toMatch(/hasura/i);
    expect(tables).toContain('x-engine-org-id');

    const backup = join(dir, '.engine-backup', readdirSync(join(dir, '.engine-backup'))[0] as string);
    expect(readFileSync(join(backup, '.env'), 'utf8')).toContain('HASURA_GRAPHQL_ENDPOINT=');
    const report = parseYaml(readFileSync(join(backup, 'report.yaml'), 'utf8')) as { renamed: { environment: unknown[]; session_variables: unknown[] } };
    expect(report.renamed.environment).toEqual([
      { file: 'config.yaml', line: 2, from: 'HASURA_GRAPHQL_ENDPOINT', to: 'ENGINE_GRAPHQL_ENDPOINT' },
      { file: '.env', line: 2, from: 'HASURA_GRAPHQL_ENDPOINT', to: 'ENGINE_GRAPHQL_ENDPOINT' },
    ]);
    expect(report.renamed.session_variables).toHaveLength(3);

    // The renamed project validates without warnings and reaches the engine through the renamed variable.
    const validate = await cli(['metadata', 'validate'], { cwd: dir });
    expect([validate.code, validate.stdout], show(validate)).toEqual([0, '']);
    const apply = await cli(['metadata', 'apply'], { cwd: dir });
    expect(apply.code, show(apply)).toBe(0);
  });
});
