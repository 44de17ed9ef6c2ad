/**
 * End-to-end: the incumbent's names (issue 19 item 3). `X-Hasura-…` session variables in permissions get a validate
 * warning at their position naming the `X-Engine-…` replacement; `migrate config` / `config upgrade` rename them, and
 * `HASURA_GRAPHQL_*` in config.yaml and .env, listing each change in its output and report.
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
  it('warns at each incumbent session variable with its replacement; exit 0 (warnings only)', async () => {
    const { dir } = await initProject(e.url);
    writeFileSync(join(dir, 'metadata/tables.yaml'), TABLES);
    const r = await cli(['metadata', 'validate'], { cwd: dir });
    expect(r.code, show(r)).toBe(0);
    const at = (text: string) => {
      const i = TABLES.split('\n').findIndex((l) => l.includes(text));
      return `metadata/tables.yaml:${i + 1}:${(TABLES.split('\n')[i] as string).indexOf(text) + 1}`;
    };
    const msg = (from: string, to: string) =>
      `warning: "${from}" is the incumbent's session variable name and is compared as a plain string here; use "${to}" (engine config upgrade renames it) [session-variable-incumbent]`;
    expect(lines(r.stdout)).toEqual([
      `${at('X-Hasura-User-Id')}: ${msg('X-Hasura-User-Id', 'X-Engine-User-Id')}`,
      `${at('x-hasura-org-id')}: ${msg('x-hasura-org-id', 'x-engine-org-id')}`,
      `${at('X-HASURA-USER-ID')}: ${msg('X-HASURA-USER-ID', 'X-ENGINE-USER-ID')}`,
    ]);
    expect(r.stderr).toBe('Found 0 error(s) and 3 warning(s).\n');
  });
});

describe('migrate config renames the incumbent\'s names', () => {
  it('session variables in the metadata, HASURA_GRAPHQL_* in config.yaml and .env; each listed; the result applies', async () => {
    await e.sql('create table article (id serial primary key, author_id int, org_id text)');
    const dir = await tempDir('engine-incumbent-');
    writeFileSync(join(dir, 'config.yaml'), `version: 1\nendpoint: \${HASURA_GRAPHQL_ENDPOINT}\n`);
    writeFileSync(join(dir, '.env'), `# for the CLI\nHASURA_GRAPHQL_ENDPOINT=${e.url}\nOTHER=1\n`);
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(dir, 'migrations'));
    writeFileSync(join(dir, 'migrations/metadata.yaml'), `version: 2\ntables:\n${TABLES.replace(/^/gm, '  ').trimEnd()}\n`);

    const dry = await cli(['config', 'upgrade', '--dry-run'], { cwd: dir });
    expect(dry.code, show(dry)).toBe(0);
    expect(lines(dry.stdout)).toContain('   rename HASURA_GRAPHQL_ENDPOINT → ENGINE_GRAPHQL_ENDPOINT (config.yaml:2)');
    expect(lines(dry.stdout)).toContain('   rename HASURA_GRAPHQL_ENDPOINT → ENGINE_GRAPHQL_ENDPOINT (.env:2)');
    expect(readFileSync(join(dir, '.env'), 'utf8')).toContain('HASURA_GRAPHQL_ENDPOINT=');

    const r = await cli(['config', 'upgrade'], { cwd: dir });
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
