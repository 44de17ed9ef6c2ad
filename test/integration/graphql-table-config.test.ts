import { describe, expect, it } from 'vitest';
import { q, useExampleEngine, USER1 } from './graphql-fixture.js';

// Issue 12: a table's `configuration` — `custom_name` renames the table's type and every generated name,
// `custom_root_fields` renames single root fields (a string or {name, comment}).

const e = useExampleEngine();

describe('table configuration in /v1/graphql', () => {
  it('custom_name and custom_root_fields rename the root fields and types; the old names are gone', async () => {
    const exported = (await e.ok({ type: 'export_metadata', args: {} })) as { tables: { table: { name: string }; configuration?: unknown }[] };
    const article = exported.tables.find((t) => t.table.name === 'article');
    if (!article) throw new Error('no article');
    article.configuration = { custom_name: 'post', custom_root_fields: { select_by_pk: 'postById', insert_one: { name: 'addPost', comment: 'Adds a post' } } };
    await e.ok({ type: 'replace_metadata', args: exported });
    expect(await q(e, '{ postById(id: 1) { title } post_aggregate { aggregate { count } } }', USER1))
      .toEqual({ data: { postById: { title: 'Intro' }, post_aggregate: { aggregate: { count: 3 } } } });
    expect(await q(e, 'mutation { addPost(object: {title: "N"}) { id } update_post(where: {id: {_eq: 4}}, _set: {content: "c"}) { affected_rows } }', USER1))
      .toEqual({ data: { addPost: { id: 4 }, update_post: { affected_rows: 1 } } });
    const t = await q(e, '{ __type(name: "mutation_root") { fields { name description } } post: __type(name: "post") { name } article: __type(name: "article") { name } }') as { data: { __type: { fields: { name: string; description: string | null }[] }; post: unknown; article: unknown } };
    expect(t.data.__type.fields.find((f) => f.name === 'addPost')?.description).toBe('Adds a post');
    expect(t.data.__type.fields.map((f) => f.name).filter((n) => /_article(_|$)/.test(n))).toEqual([]);
    expect(t.data.post).toEqual({ name: 'post' });
    expect(t.data.article).toBeNull();
  });
});
