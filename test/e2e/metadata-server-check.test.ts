/**
 * End-to-end: a plan the engine has checked (issue 19 item 1). `metadata apply --dry-run` and `metadata validate --server`
 * send the project as a dry-run replace_metadata; what the engine rejects is shown at its file:line:col, with a "did you
 * mean" from the live catalog, and nothing changes on the engine.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, engineExport, initProject, jsonDoc, lineOf, lines, seedEngine, show, useTestEngine } from './cli-helpers.js';

const e = useTestEngine();

async function project(): Promise<string> {
  await seedEngine(e);
  const { dir } = await initProject(e.url);
  const exp = await cli(['metadata', 'export'], { cwd: dir });
  expect(exp.code, show(exp)).toBe(0);
  return dir;
}

/** A column typo in a permission and a table typo: offline validation cannot know either. */
function breakTables(dir: string): { text: string; column: number; table: number } {
  const file = join(dir, 'metadata/tables.yaml');
  const text = `${readFileSync(file, 'utf8').replace('          - title\n', '          - titel\n')}- table:\n    schema: public\n    name: autor\n`;
  writeFileSync(file, text);
  return { text, column: lineOf(text, '          - titel'), table: lineOf(text, '    name: autor') };
}

describe('metadata apply --dry-run asks the engine', () => {
  it('a plan the engine would reject: each error at its position with a did-you-mean, exit 1, nothing changed', async () => {
    const dir = await project();
    const at = breakTables(dir);
    const before = await e.state();

    const offline = await cli(['metadata', 'validate'], { cwd: dir });
    expect(offline.code, 'offline validation cannot see it').toBe(0);

    const r = await cli(['metadata', 'apply', '--dry-run'], { cwd: dir });
    expect(r.code, show(r)).toBe(1);
    expect(r.stdout).toBe('');
    const errs = lines(r.stderr);
    expect(errs).toContain(`metadata/tables.yaml:${at.column}:13: error: select_permission public.article.user: in table "article": in permission for role "user": `
      + 'column "titel" does not exist in table "article" (did you mean "title"?) [constraint-violation]');
    expect(errs).toContain(`metadata/tables.yaml:${at.table}:11: error: table public.autor: no such table/view exists in postgres : "autor" (did you mean "author"?) [constraint-violation]`);
    expect(r.stderr).not.toContain('will apply');
    expect(await e.state()).toEqual(before);

    const j = await cli(['metadata', 'apply', '--dry-run', '-o', 'json'], { cwd: dir });
    expect(j.code, show(j)).toBe(1);
    const doc = jsonDoc(j);
    expect(doc.ok).toBe(false);
    expect(doc.objects).toContainEqual({ kind: 'table', name: 'public.autor', file: 'metadata/tables.yaml', line: at.table, column: 11,
      reason: 'no such table/view exists in postgres : "autor" (did you mean "author"?) [constraint-violation]' });
    expect(await e.state()).toEqual(before);
  });

  it('a plan the engine accepts says so, changes nothing, and the real apply then succeeds', async () => {
    const dir = await project();
    const file = join(dir, 'metadata/tables.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('          - title\n', '          - title\n          - author_id\n'));
    const before = await e.state();
    const r = await cli(['metadata', 'apply', '--dry-run'], { cwd: dir });
    expect(r.code, show(r)).toBe(0);
    expect(r.stdout).toContain('~ select_permission public.article.user');
    expect(lines(r.stderr)).toEqual(["The engine checked the plan: 'engine metadata apply' will apply it.", 'Dry run: nothing was applied.']);
    expect(await e.state()).toEqual(before);
    const version = (await engineExport(e)).version;
    const apply = await cli(['metadata', 'apply'], { cwd: dir });
    expect(apply.code, show(apply)).toBe(0);
    expect((await engineExport(e)).version).toBe(version + 1);
  });
});

describe('metadata validate --server', () => {
  it('adds the engine\'s findings to the offline problems, in the same format, and changes nothing', async () => {
    const dir = await project();
    const at = breakTables(dir);
    const before = await e.state();
    const r = await cli(['metadata', 'validate', '--server'], { cwd: dir });
    expect(r.code, show(r)).toBe(1);
    expect(lines(r.stdout)).toEqual([
      `metadata/tables.yaml:${at.column}:13: error: select_permission public.article.user: in table "article": in permission for role "user": `
        + 'column "titel" does not exist in table "article" (did you mean "title"?) [constraint-violation]',
      `metadata/tables.yaml:${at.table}:11: error: table public.autor: no such table/view exists in postgres : "autor" (did you mean "author"?) [constraint-violation]`,
    ]);
    expect(lines(r.stderr)).toEqual(['Found 2 error(s) and 0 warning(s).']);
    const j = await cli(['metadata', 'validate', '--server', '-o', 'json'], { cwd: dir });
    const doc = jsonDoc(j);
    expect(doc).toMatchObject({ ok: false, summary: { errors: 2, warnings: 0 }, error: { code: 'metadata-invalid', file: 'metadata/tables.yaml', line: at.column, column: 13 } });
    expect(await e.state()).toEqual(before);
  });

  it('without problems says it checked on the engine; offline stays the default (no engine needed)', async () => {
    const dir = await project();
    const r = await cli(['metadata', 'validate', '--server'], { cwd: dir });
    expect(r.code, show(r)).toBe(0);
    expect(r.stderr).toBe('No problems found (checked on the engine too).\n');
    const offline = await cli(['metadata', 'validate', '--endpoint', 'http://127.0.0.1:1'], { cwd: dir });
    expect(offline.code, show(offline)).toBe(0);
    const dead = await cli(['metadata', 'validate', '--server', '--endpoint', 'http://127.0.0.1:1'], { cwd: dir });
    expect(dead.code, show(dead)).toBe(1);
    expect(dead.stderr).toContain('connection refused');
  });
});
