import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { post } from '../helpers/engine.js';
import { cli, show, snapshot, tempDir, useTestEngine } from './cli-helpers.js';

// Issue 12 item 3: a project in the incumbent's config version 3 layout (databases/databases.yaml, one file per
// table joined by "!include") goes through validate → migrate apply → metadata apply → export → diff as it is, and
// export keeps one file per table.

const FIXTURE = new URL('../fixtures/projects/layout-v3', import.meta.url).pathname;
const e = useTestEngine();

async function fixture(): Promise<{ dir: string; run: (...args: string[]) => ReturnType<typeof cli> }> {
  const dir = join(await tempDir('engine-v3-'), 'project');
  cpSync(FIXTURE, dir, { recursive: true });
  const env = { ENGINE_GRAPHQL_ENDPOINT: e.url };
  return { dir, run: (...args: string[]) => cli(args, { cwd: dir, env }) };
}

const TABLES = 'metadata/databases/default/tables';

describe('a project in the config version 3 layout (issue 12)', () => {
  it('validates, migrates, applies, exports unchanged and diffs clean', async () => {
    const { dir, run } = await fixture();
    const validate = await run('metadata', 'validate');
    expect(validate.code, show(validate)).toBe(0);
    expect(validate.stdout).toBe('');

    const migrate = await run('migrate', 'apply');
    expect(migrate.code, show(migrate)).toBe(0);
    const apply = await run('metadata', 'apply');
    expect(apply.code, show(apply)).toBe(0);
    expect(await e.ok({ type: 'get_inconsistent_metadata', args: {} })).toEqual({ is_consistent: true, inconsistent_objects: [] });
    const doc = (await e.ok({ type: 'export_metadata', args: {} })) as { tables: { table: { name: string } }[]; functions: unknown[] };
    expect(doc.tables.map((t) => t.table.name)).toEqual(['article', 'author']);
    expect(doc.functions).toEqual([{ function: { schema: 'public', name: 'search_articles' } }]);
    // What the included files say is served: the function, the relationship, and the permission of the table's file.
    await e.sql("INSERT INTO author (name) VALUES ('Ann'); INSERT INTO article (author_id, title, published) VALUES (1, 'Layouts', true), (1, 'Draft layouts', false)");
    const gql = async (query: string, headers: Record<string, string> = {}) => (await post(`${e.url}/v1/graphql`, { query }, headers)).body;
    expect(await gql('{ search_articles(args: {search: "layouts"}, order_by: {id: asc}) { title author { name } } }'))
      .toEqual({ data: { search_articles: [{ title: 'Layouts', author: { name: 'Ann' } }, { title: 'Draft layouts', author: { name: 'Ann' } }] } });
    expect(await gql('{ article { title } }', { 'x-engine-role': 'user' })).toEqual({ data: { article: [{ title: 'Layouts' }] } });

    const before = snapshot(join(dir, 'metadata'));
    const exported = await run('metadata', 'export');
    expect(exported.code, show(exported)).toBe(0);
    expect(exported.stderr).toContain('is already up to date');
    expect(snapshot(join(dir, 'metadata'))).toEqual(before);
    const diff = await run('metadata', 'diff', '--exit-code');
    expect(diff.code, show(diff)).toBe(0);
    // A directory given without a project says its layout in version.yaml.
    const dirs = await run('metadata', 'diff', '--from', FIXTURE + '/metadata', '--to', 'metadata', '--exit-code');
    expect(dirs.code, show(dirs)).toBe(0);
  });

  it('export writes a file for a new table, removes the file of a dropped one, and keeps comments', async () => {
    const { dir, run } = await fixture();
    expect((await run('migrate', 'apply')).code).toBe(0);
    expect((await run('metadata', 'apply')).code).toBe(0);
    // On the engine: article untracked, a new table tracked.
    await e.ok({ type: 'run_sql', args: { sql: 'CREATE TABLE "tag" (id serial PRIMARY KEY, label text)' } });
    await e.ok({ type: 'untrack_table', args: { table: 'article', cascade: true } });
    await e.ok({ type: 'track_table', args: { table: 'tag' } });

    const exported = await run('metadata', 'export');
    expect(exported.code, show(exported)).toBe(0);
    expect(exported.stderr).toContain(`created ${TABLES}/public_tag.yaml`);
    expect(exported.stderr).toContain(`removed ${TABLES}/public_article.yaml`);
    expect(existsSync(join(dir, TABLES, 'public_article.yaml'))).toBe(false);
    expect(readFileSync(join(dir, TABLES, 'tables.yaml'), 'utf8')).toBe('- "!include public_author.yaml"\n- "!include public_tag.yaml"\n');
    expect(readFileSync(join(dir, TABLES, 'public_tag.yaml'), 'utf8')).toBe('table:\n  schema: public\n  name: tag\n');
    const author = readFileSync(join(dir, TABLES, 'public_author.yaml'), 'utf8');
    expect(author).toContain('# Writers: every article has one.\n');
    expect(author).toContain('  # Anyone may see who writes.\n');
    // The array relationship to article went with it (untrack cascade).
    expect(author).not.toContain('articles');
    expect(readFileSync(join(dir, 'metadata/databases/databases.yaml'), 'utf8')).toBe(readFileSync(join(FIXTURE, 'metadata/databases/databases.yaml'), 'utf8'));
    expect(readFileSync(join(dir, 'metadata/version.yaml'), 'utf8')).toBe('version: 3\n');

    const diff = await run('metadata', 'diff', '--exit-code');
    expect(diff.code, show(diff)).toBe(0);
    const validate = await run('metadata', 'validate');
    expect(validate.stdout).toBe('');
  });

  it('reports problems of an included file at its own line and column, and nothing is sent', async () => {
    const { dir, run } = await fixture();
    const file = join(dir, TABLES, 'public_article.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('_eq: true', '_eqq: true'));
    writeFileSync(join(dir, TABLES, 'tables.yaml'), '- "!include public_article.yaml"\n- "!include public_author.yaml"\n- "!include nowhere.yaml"\n');
    const before = await e.ok({ type: 'export_metadata', args: {} });
    const apply = await run('metadata', 'apply');
    expect(apply.code, show(apply)).toBe(1);
    expect(apply.stderr).toContain(`${TABLES}/public_article.yaml:16:11: `);
    expect(apply.stderr).toContain(`${TABLES}/tables.yaml:3:3: error: !include "nowhere.yaml": ${TABLES}/nowhere.yaml does not exist`);
    expect(await e.ok({ type: 'export_metadata', args: {} })).toEqual(before);
  });
});
