/**
 * End-to-end (issue 27 item 5): a misspelt key in the metadata is an error of every command that builds it — exit 1
 * (deploy: 4, its metadata step), `file:line:col`, did-you-mean, nothing applied — unless `--allow-unknown-keys`; and the
 * plan's "Access widened" section.
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { cli, initProject, jsonDoc, lines, show, useTestEngine, type CliResult } from './cli-helpers.js';

const e = useTestEngine();

const TABLES = `- table:
    schema: public
    name: article
  select_permissions:
    - role: user
      permission:
        columns:
          - id
          - title
        filter:
          author_id:
            _eq: X-Engine-User-Id
  update_permissions:
    - role: user
      permission:
        columns:
          - title
        filter:
          author_id:
            _eq: X-Engine-User-Id
        check:
          author_id:
            _eq: X-Engine-User-Id
- table:
    schema: public
    name: author
`;

let dir: string;
const run = (args: string[]): Promise<CliResult> => cli(args, { cwd: dir });
const tablesFile = () => join(dir, 'metadata/tables.yaml');

beforeEach(async () => {
  await e.sql('create table author (id serial primary key, name text not null, email text);\n' +
    'create table article (id serial primary key, title text not null, author_id int references author(id));');
  dir = (await initProject(e.url)).dir;
  writeFileSync(tablesFile(), TABLES);
  const apply = await run(['metadata', 'apply']);
  expect(apply.code, show(apply)).toBe(0);
});

const CHEK = 'metadata/tables.yaml:21:9: error: unknown key "chek" in update permission for role "user" on public.article (did you mean "check"?) [metadata-unknown-key]';
const PERMISION = 'metadata/tables.yaml:13:3: error: unknown key "update_permision" in table public.article (did you mean "update_permissions"?) [metadata-unknown-key]';
const HINT = 'hint: correct the key; pass --allow-unknown-keys only for keys of a newer incumbent (they are left out)';

describe('unknown keys in metadata files are errors (issue 27 item 5)', () => {
  it.each([
    ['"chek:" in an update permission', (t: string) => t.replace('        check:', '        chek:'), CHEK],
    ['"update_permision:" at table level', (t: string) => t.replace('  update_permissions:', '  update_permision:'), PERMISION],
  ])('%s: validate, apply, apply --dry-run, diff and deploy fail at file:line:col and apply nothing', async (_what, edit, problem) => {
    writeFileSync(tablesFile(), edit(TABLES));
    const before = await e.state();

    const validate = await run(['metadata', 'validate']);
    expect(validate.code, show(validate)).toBe(1);
    expect(validate.stdout).toBe(`${problem}\n`);
    expect(lines(validate.stderr)).toEqual(['Found 1 error(s) and 0 warning(s).', HINT]);

    for (const args of [['metadata', 'apply'], ['metadata', 'apply', '--dry-run'], ['metadata', 'diff']]) {
      const r = await run(args);
      expect(r.code, show(r)).toBe(1);
      expect(r.stdout).toBe('');
      expect(lines(r.stderr)).toEqual([problem, 'error: 1 error(s) found', HINT]);
    }
    const deploy = await run(['deploy']);
    expect(deploy.code, show(deploy)).toBe(4);
    expect(lines(deploy.stderr).slice(0, 3)).toEqual([problem, 'error: 1 error(s) found', HINT]);
    expect(deploy.stderr).not.toContain('Step 1/3');

    const json = await run(['metadata', 'apply', '-o', 'json']);
    expect(json.code, show(json)).toBe(1);
    const doc = jsonDoc(json);
    expect(doc.error).toEqual({ code: 'metadata-invalid', message: '1 error(s) found', hint: HINT.slice('hint: '.length) });
    expect(doc.problems).toEqual([expect.objectContaining({ severity: 'error', code: 'metadata-unknown-key', file: 'metadata/tables.yaml' })]);

    expect(await e.state()).toEqual(before);
  });

  it('--allow-unknown-keys makes them warnings again, and the plan shows what the misspelling widens', async () => {
    writeFileSync(tablesFile(), TABLES.replace('        check:', '        chek:'));
    const warning = CHEK.replace(': error: ', ': warning: ');
    const validate = await run(['metadata', 'validate', '--allow-unknown-keys']);
    expect(validate.code, show(validate)).toBe(0);
    expect(validate.stdout).toBe(`${warning}\n`);
    expect(lines(validate.stderr)).toEqual(['Found 0 error(s) and 1 warning(s).']);

    const dry = await run(['metadata', 'apply', '--dry-run', '--allow-unknown-keys']);
    expect(dry.code, show(dry)).toBe(0);
    expect(dry.stdout).toBe([
      '~ update_permission public.article.user',
      '    ~ permission.check: {"author_id":{"_eq":"X-Engine-User-Id"}} → null',
      '',
      'Summary: 0 added, 0 removed, 1 changed.',
      '',
      'Access widened (1):',
      '  ! update_permission public.article.user: check removed',
      '',
    ].join('\n'));
    expect(lines(dry.stderr)[0]).toBe(warning);
    const diff = await run(['metadata', 'diff', '--allow-unknown-keys']);
    expect(diff.code, show(diff)).toBe(0);
  });

  it('unknown keys of config.yaml stay warnings', async () => {
    appendFileSync(join(dir, 'config.yaml'), 'colour: red\n');
    const validate = await run(['metadata', 'validate']);
    expect(validate.code, show(validate)).toBe(0);
    expect(validate.stdout).toMatch(/^config\.yaml:\d+:1: warning: unknown key "colour".*\[config-unknown-key\]\n$/);
    const apply = await run(['metadata', 'apply']);
    expect(apply.code, show(apply)).toBe(0);
  });

  it('--allow-unknown-keys is documented in --help', async () => {
    for (const cmd of [['metadata', 'validate'], ['metadata', 'apply'], ['metadata', 'diff'], ['deploy']]) {
      const help = await run([...cmd, '--help']);
      expect(help.stdout, cmd.join(' ')).toContain('--allow-unknown-keys');
    }
  });
});

const AUTHOR_SELECT = '  select_permissions:\n    - role: user\n      permission:\n        columns: "*"\n        filter: {}\n        limit: 10\n';

describe('the plan\'s "Access widened" section (issue 27 item 5)', () => {
  it('lists every change that widens access, in dry run (stdout, JSON) and in the apply report', async () => {
    const widened = TABLES
      // The select permission: more columns, no filter.
      .replace('          - id\n          - title\n        filter:\n          author_id:\n            _eq: X-Engine-User-Id\n  update',
        '          - author_id\n          - id\n          - title\n        filter: {}\n  update')
      // The update filter changed, and a new select permission on author.
      .replace('        filter:\n          author_id:\n            _eq: X-Engine-User-Id\n        check:',
        '        filter:\n          author_id:\n            _neq: X-Engine-User-Id\n        check:')
      .replace('    name: author\n', `    name: author\n${AUTHOR_SELECT}`);
    writeFileSync(tablesFile(), widened);
    const before = await e.state();
    const dry = await run(['metadata', 'apply', '--dry-run']);
    expect(dry.code, show(dry)).toBe(0);
    const section = [
      'Access widened (3):',
      '  ! select_permission public.article.user: filter removed; columns added: author_id',
      '  ! select_permission public.author.user: permission added',
      '  ! update_permission public.article.user: filter changed: {"author_id":{"_eq":"X-Engine-User-Id"}} → {"author_id":{"_neq":"X-Engine-User-Id"}}',
    ];
    expect(dry.stdout.split('\n').slice(-6, -1)).toEqual(['', ...section]);
    expect(await e.state()).toEqual(before);

    const json = jsonDoc(await run(['metadata', 'apply', '--dry-run', '-o', 'json']));
    expect(json.access_widened).toEqual([
      { kind: 'select_permission', name: 'public.article.user', reasons: ['filter removed', 'columns added: author_id'] },
      { kind: 'select_permission', name: 'public.author.user', reasons: ['permission added'] },
      { kind: 'update_permission', name: 'public.article.user', reasons: [expect.stringMatching(/^filter changed: /)] },
    ]);

    const apply = await run(['metadata', 'apply']);
    expect(apply.code, show(apply)).toBe(0);
    expect(lines(apply.stderr)).toEqual(['Metadata applied: 1 added, 0 removed, 2 changed.', ...section]);

    // Removing a permission and columns widens nothing (a changed filter would be listed: it may widen).
    const narrowed = widened.replace('          - author_id\n', '').replace(AUTHOR_SELECT, '');
    writeFileSync(tablesFile(), narrowed);
    const back = await run(['metadata', 'apply', '--dry-run']);
    expect(back.code, show(back)).toBe(0);
    expect(back.stdout).toBe([
      '~ select_permission public.article.user',
      '    ~ permission.columns: ["author_id","id","title"] → ["id","title"]',
      '- select_permission public.author.user',
      '',
      'Summary: 0 added, 1 removed, 1 changed.',
      '',
    ].join('\n'));
    expect(readFileSync(tablesFile(), 'utf8')).toBe(narrowed);
  });
});
