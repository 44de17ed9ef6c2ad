import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { post } from '../helpers/engine.js';
import { startWebhook } from '../helpers/webhook.js';
import { cli, show, snapshot, tempDir, useTestEngine } from './cli-helpers.js';

// Issue 12: a project shaped like the real ones (migrations wrapped in BEGIN/COMMIT creating pgcrypto, citext,
// pg_trgm and uuid-ossp; an enum table; custom names; a backend-only insert permission; insertion_order; a query
// action; an action output nesting another object type; an action relationship with source: default; ignored keys
// of the incumbent's config.yaml) goes through validate → migrate apply → metadata apply → export → diff as it is.

const FIXTURE = new URL('../fixtures/projects/real-features', import.meta.url).pathname;
const e = useTestEngine();

describe('a project shaped like the real ones (issue 12)', () => {
  it('validates, migrates, applies, exports unchanged and diffs clean', async () => {
    const dir = join(await tempDir('engine-real-'), 'project');
    cpSync(FIXTURE, dir, { recursive: true });
    const env = { ENGINE_GRAPHQL_ENDPOINT: e.url };
    const run = (...args: string[]) => cli(args, { cwd: dir, env });

    const validate = await run('metadata', 'validate');
    expect(validate.code, show(validate)).toBe(0);
    expect(validate.stdout).toBe('config.yaml:5:1: warning: key "api_paths" of the incumbent\'s config.yaml is not used by engine; it is ignored [config-key-ignored]\n');

    const migrate = await run('migrate', 'apply');
    expect(migrate.code, show(migrate)).toBe(0);
    const apply = await run('metadata', 'apply');
    expect(apply.code, show(apply)).toBe(0);
    expect(await e.ok({ type: 'get_inconsistent_metadata', args: {} })).toEqual({ is_consistent: true, inconsistent_objects: [] });

    const before = snapshot(join(dir, 'metadata'));
    const exported = await run('metadata', 'export');
    expect(exported.code, show(exported)).toBe(0);
    expect(snapshot(join(dir, 'metadata'))).toEqual(before);
    const diff = await run('metadata', 'diff', '--exit-code');
    expect(diff.code, show(diff)).toBe(0);

    const doc = (await e.ok({ type: 'export_metadata', args: {} })) as { actions: { name: string; definition: { type?: string } }[] };
    expect(doc.actions.map((a) => [a.name, a.definition.type ?? 'mutation'])).toEqual([['currentWriter', 'query'], ['renameWriter', 'mutation']]);

    // The table's and its column's custom names: author is `Writer`, its column full_name is `name`.
    const gql = async (query: string) => (await post(`${e.url}/v1/graphql`, { query })).body;
    expect(await gql('mutation { insert_Writer_one(object: {name: "Ann"}) { name } }')).toEqual({ data: { insert_Writer_one: { name: 'Ann' } } });
    expect(await gql('{ writers(where: {name: {_eq: "Ann"}}, order_by: {name: asc}) { id name } }')).toEqual({ data: { writers: [{ id: 1, name: 'Ann' }] } });

    // The enum table: its rows are the values of `article_status_enum`, used by the referencing column.
    expect(await gql('mutation { insert_article_one(object: {author_id: 1, title: "Trigrams", status: published}) { status } }'))
      .toEqual({ data: { insert_article_one: { status: 'published' } } });
    expect(await gql('{ __type(name: "article_status_enum") { enumValues { name description } } }')).toEqual({ data: { __type: { enumValues: [
      { name: 'draft', description: 'Not yet published' }, { name: 'published', description: 'Visible to readers' }] } } });
    expect(await gql('{ article(where: {status: {_eq: draft}}) { id } }')).toEqual({ data: { article: [] } });
    // The extensions the migration created, at work: citext compares without case, pgcrypto filled `secret`,
    // pg_trgm's index serves `_ilike`, uuid-ossp made the profile's key.
    expect(await gql('mutation { update_Writer(where: {id: {_eq: 1}}, _set: {email: "Ann@Example.org"}) { affected_rows } }')).toEqual({ data: { update_Writer: { affected_rows: 1 } } });
    expect(await gql('{ writers(where: {email: {_eq: "ann@EXAMPLE.org"}}) { id } }')).toEqual({ data: { writers: [{ id: 1 }] } });
    expect(await gql('{ article(where: {title: {_ilike: "%gram%"}}) { title secret } }')).toMatchObject({ data: { article: [{ title: 'Trigrams', secret: expect.stringMatching(/^\\x[0-9a-f]{16}$/) }] } });
    expect(await gql('mutation { insert_profile_one(object: {bio: "b"}) { id } }')).toMatchObject({ data: { insert_profile_one: { id: expect.stringMatching(/^[0-9a-f-]{36}$/) } } });

    // The query action is a query-root field that calls its handler; its output nests another object type.
    const handler = await startWebhook((req, res) => void res.end(JSON.stringify({ id: 1, address: { city: `city of ${String(req.body.input.token)}` } })));
    const saved = process.env['ACTION_BASE_URL'];
    process.env['ACTION_BASE_URL'] = handler.url;
    try {
      expect(await gql('{ currentWriter(token: "t1") { id address { city } writer { name } } }'))
        .toEqual({ data: { currentWriter: { id: 1, address: { city: 'city of t1' }, writer: { name: 'Ann' } } } });
      expect(handler.received.map((r) => r.body.action.name)).toEqual(['currentWriter']);
    } finally {
      if (saved === undefined) delete process.env['ACTION_BASE_URL'];
      else process.env['ACTION_BASE_URL'] = saved;
      await handler.close();
    }
  });
});
