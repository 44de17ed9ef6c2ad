/**
 * `engine actions create --derive-from` (cli.md §5.10, Derivation) through the real bin (the BUILT code: run
 * `npm run build` first) against the local engine's own `/v1/graphql` (graphql-api.md §2.7, §3).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { cli, seedEngine, show, tempDir, useTestEngine } from './cli-helpers.js';

const e = useTestEngine();
beforeEach(() => seedEngine(e));

describe('engine actions create --derive-from against the local engine', () => {
  it('derives an action from one of the engine\'s own mutations', async () => {
    const dir = await tempDir('engine-derive-');
    writeFileSync(join(dir, 'config.yaml'), `version: 2\nendpoint: ${e.url}\nactions:\n  handler_webhook_baseurl: "{{ACTION_BASE_URL}}"\n`);
    expect((await cli(['metadata', 'export'], { cwd: dir })).code).toBe(0);
    const op = 'mutation ($objects: [article_insert_input!]!) { insert_article(objects: $objects) { affected_rows returning { id } } }';
    const r = await cli(['actions', 'create', 'addArticles', '--derive-from', op, '--no-apply'], { cwd: dir });
    expect(r.code, show(r)).toBe(0);
    expect(r.stderr).toContain('warning: the nested selection "returning" was skipped');
    const sdl = readFileSync(join(dir, 'metadata', 'actions.graphql'), 'utf8');
    expect(sdl).toContain('addArticles(objects: [addArticles_article_insert_input!]!): AddArticlesOutput');
    // The insert input's relationship (nested inserts, issue 30.1) comes with the types it reaches; fields in the order
    // introspection gives them (by name, as the incumbent's).
    expect(sdl).toContain('input addArticles_article_insert_input {\n  author: addArticles_author_obj_rel_insert_input\n  author_id: Int\n  id: Int\n  title: String\n}');
    expect(sdl).toContain('input addArticles_author_obj_rel_insert_input {\n  data: addArticles_author_insert_input!\n  on_conflict: addArticles_author_on_conflict\n}');
    expect(sdl).toContain('type AddArticlesOutput {\n  affected_rows: Int!\n}');
    expect((await cli(['metadata', 'apply'], { cwd: dir })).code).toBe(0);
    const exported = await e.ok({ type: 'export_metadata', args: {} });
    expect(exported.actions.map((a: { name: string }) => a.name)).toContain('addArticles');
  });
});
