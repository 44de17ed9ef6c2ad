import { describe, expect, it } from 'vitest';
import type { TestEngine } from '../helpers/engine.js';
import { ANON, gqlErr, q, useExampleEngine, USER1 } from './graphql-fixture.js';

// bigint as a JSON number (issue 29.8); its digits are pinned as text in graphql-numeric-output.test.ts.
const BIG = Number('9007199254740993');

// Issue 12: column custom names (`column_config.<col>.custom_name`, `custom_column_names`, which wins) rename the
// column everywhere in /v1/graphql; permissions, presets and relationships keep naming SQL columns, the SQL always
// uses the SQL name. `column_config.<col>.comment` describes the field.

const e = useExampleEngine();

type Doc = { tables: { table: { name: string }; configuration?: unknown }[] };

/** Sets the configuration of the running example's tables by name, through replace_metadata. */
async function configure(t: TestEngine, conf: Record<string, unknown>): Promise<void> {
  const doc = (await t.ok({ type: 'export_metadata', args: {} })) as Doc;
  for (const entry of doc.tables) if (entry.table.name in conf) entry.configuration = conf[entry.table.name];
  await t.ok({ type: 'replace_metadata', args: doc });
}

const NAMES = {
  author: { custom_column_names: { id: 'authorId', name: 'authorName' }, column_config: { bio: { custom_name: 'biography', comment: 'About the author' }, name: { custom_name: 'ignored' } } },
  article: { column_config: { title: { custom_name: 'headline' }, author_id: { custom_name: 'writerId' }, views: { custom_name: 'hits' } }, custom_column_names: { content: 'body' } },
};

type Fields = { name: string; description?: string | null }[];
const names = (f: Fields | null | undefined): string[] => (f ?? []).map((x) => x.name);
/** Introspection lists fields, input fields and enum values by name (code point), as the incumbent (issue 30). */
const sorted = (xs: string[]): string[] => [...xs].sort();

describe('column custom names in /v1/graphql', () => {
  it('queries: fields, where, order_by, distinct_on, aggregates, by_pk, relationships, variables (admin)', async () => {
    await configure(e, NAMES);
    expect(await q(e, '{ article(where: {hits: {_gt: "0"}}, order_by: {headline: desc}) { id headline body writerId hits author { authorId authorName biography } } }')).toEqual({ data: { article: [
      { id: 3, headline: 'News', body: null, writerId: 2, hits: 12, author: { authorId: 2, authorName: 'Bob', biography: null } },
      { id: 1, headline: 'Intro', body: 'a', writerId: 1, hits: BIG, author: { authorId: 1, authorName: 'Ann', biography: 'Writes' } },
    ] } });
    expect(await q(e, '{ article(distinct_on: [writerId], order_by: [{writerId: asc}, {id: desc}]) { id writerId } }'))
      .toEqual({ data: { article: [{ id: 2, writerId: 1 }, { id: 3, writerId: 2 }] } });
    expect(await q(e, 'query ($d: [article_select_column!], $o: [article_order_by!]) { article(distinct_on: $d, order_by: $o) { writerId } }', {}, { d: ['writerId'], o: [{ writerId: 'desc' }] }))
      .toEqual({ data: { article: [{ writerId: 2 }, { writerId: 1 }] } });
    expect(await q(e, '{ article(order_by: {author: {authorName: desc}, id: asc}) { id } author(where: {articles: {headline: {_eq: "News"}}}) { authorName } }'))
      .toEqual({ data: { article: [{ id: 3 }, { id: 1 }, { id: 2 }], author: [{ authorName: 'Bob' }] } });
    expect(await q(e, '{ article_aggregate { aggregate { count(columns: [writerId], distinct: true) all: count max { hits headline } sum { hits } } nodes { headline } } }'.replace('article_aggregate', 'article_aggregate(order_by: {id: asc})')))
      .toEqual({ data: { article_aggregate: { aggregate: { count: 2, all: 3, max: { hits: BIG, headline: 'News' }, sum: { hits: Number('9007199254741005') } }, nodes: [{ headline: 'Intro' }, { headline: 'Draft' }, { headline: 'News' }] } } });
    expect(await q(e, 'query ($id: Int!) { author_by_pk(authorId: $id) { authorName articles(order_by: {id: asc}) { headline } articles_aggregate { aggregate { count } } } }', {}, { id: 1 }))
      .toEqual({ data: { author_by_pk: { authorName: 'Ann', articles: [{ headline: 'Intro' }, { headline: 'Draft' }], articles_aggregate: { aggregate: { count: 2 } } } } });
    // The SQL names are GraphQL names no more.
    expect(await q(e, '{ article { title } }')).toEqual(gqlErr('field "title" not found in type: \'article\'', '$.selectionSet.article.selectionSet.title', 'validation-failed'));
    expect(await q(e, '{ article(where: {author_id: {_eq: 1}}) { id } }'))
      .toEqual(gqlErr('field "author_id" not found in type: \'article_bool_exp\'', '$.selectionSet.article.args.where.author_id', 'validation-failed'));
    expect(await q(e, '{ author_by_pk(id: 1) { authorName } }')).toEqual(gqlErr('"author_by_pk" has no argument named "id"', '$.selectionSet.author_by_pk.args.id', 'validation-failed'));
  });

  it('a role sees the columns its permissions list (by SQL name) under their GraphQL names', async () => {
    await configure(e, NAMES);
    expect(await q(e, '{ article(order_by: {id: asc}) { headline writerId author { authorName } } }', USER1)).toEqual({ data: { article: [
      { headline: 'Intro', writerId: 1, author: { authorName: 'Ann' } }, { headline: 'Draft', writerId: 1, author: { authorName: 'Ann' } },
      { headline: 'News', writerId: 2, author: { authorName: 'Bob' } },
    ] } });
    expect(await q(e, '{ article_aggregate(where: {writerId: {_eq: 1}}) { aggregate { count max { hits } } } }', USER1))
      .toEqual({ data: { article_aggregate: { aggregate: { count: 2, max: { hits: BIG } } } } });
    expect(await q(e, '{ article(order_by: {headline: asc}) { headline } }', ANON)).toEqual({ data: { article: [{ headline: 'Intro' }, { headline: 'News' }] } });
    expect(await q(e, '{ article { body } }', ANON)).toEqual(gqlErr('field "body" not found in type: \'article\'', '$.selectionSet.article.selectionSet.body', 'validation-failed'));
  });

  it('mutations write the SQL columns: insert with presets and on_conflict, update _set/_inc, delete by pk, returning', async () => {
    await configure(e, NAMES);
    expect(await q(e, 'mutation { insert_article_one(object: {headline: "New", body: "x"}) { id headline body writerId } }', USER1))
      .toEqual({ data: { insert_article_one: { id: 4, headline: 'New', body: 'x', writerId: 1 } } });
    expect(await q(e, 'mutation ($o: [article_insert_input!]!) { insert_article(objects: $o, on_conflict: {constraint: article_title_key, update_columns: [body]}) { affected_rows returning { id body } } }', USER1, { o: [{ headline: 'New', body: 'y' }] }))
      .toEqual({ data: { insert_article: { affected_rows: 1, returning: [{ id: 4, body: 'y' }] } } });
    expect(await q(e, 'mutation { update_article(where: {headline: {_eq: "New"}}, _set: {headline: "Newer", published: true}) { returning { headline } } update_article_by_pk(pk_columns: {id: 4}, _set: {body: "z"}) { body } }', USER1))
      .toEqual({ data: { update_article: { returning: [{ headline: 'Newer' }] }, update_article_by_pk: { body: 'z' } } });
    expect(await q(e, 'mutation { update_article(where: {id: {_eq: 4}}, _set: {title: "t"}) { affected_rows } }', USER1))
      .toEqual(gqlErr('field "title" not found in type: \'article_set_input\'', '$.selectionSet.update_article.args._set.title', 'validation-failed'));
    expect(await q(e, 'mutation { delete_article_by_pk(id: 4) { headline writerId } }', USER1)).toEqual({ data: { delete_article_by_pk: { headline: 'Newer', writerId: 1 } } });
    expect(await q(e, 'mutation { update_article(where: {id: {_eq: 3}}, _inc: {hits: "1"}) { returning { hits } } insert_author_one(object: {authorName: "Dee", biography: "b"}) { authorId authorName biography is_active } }'))
      .toEqual({ data: { update_article: { returning: [{ hits: 13 }] }, insert_author_one: { authorId: 4, authorName: 'Dee', biography: 'b', is_active: true } } });
    expect(await e.sql('SELECT title, content, author_id, views FROM article WHERE id = 3')).toEqual({ result_type: 'TuplesOk', result: [['title', 'content', 'author_id', 'views'], ['News', null, '2', '13']] });
  });

  it('introspection shows the GraphQL names, not the SQL names, in every generated type', async () => {
    await configure(e, NAMES);
    const types = ['article', 'article_bool_exp', 'article_order_by', 'article_insert_input', 'article_set_input', 'article_inc_input', 'article_pk_columns_input', 'article_max_fields', 'article_sum_fields', 'article_select_column', 'article_update_column', 'author'];
    const query = `{ ${types.map((t) => `${t}: __type(name: "${t}") { fields { name description } inputFields { name } enumValues { name } }`).join(' ')} }`;
    const admin = (await q(e, query)) as { data: Record<string, { fields: Fields | null; inputFields: Fields | null; enumValues: Fields | null }> };
    const of = (t: string): string[] => { const x = admin.data[t]; return x ? [...names(x.fields), ...names(x.inputFields), ...names(x.enumValues)] : []; };
    expect(of('article')).toEqual(sorted(['id', 'headline', 'body', 'writerId', 'published', 'hits', 'tags', 'author']));
    expect(of('article_bool_exp')).toEqual(sorted(['_and', '_not', '_or', 'id', 'headline', 'body', 'writerId', 'published', 'hits', 'tags', 'author']));
    expect(of('article_order_by')).toEqual(sorted(['id', 'headline', 'body', 'writerId', 'published', 'hits', 'tags', 'author']));
    // The object relationship for nested inserts (issue 30.1) follows the columns.
    expect(of('article_insert_input')).toEqual(sorted(['id', 'headline', 'body', 'writerId', 'published', 'hits', 'tags', 'author']));
    expect(of('article_inc_input')).toEqual(sorted(['id', 'writerId', 'hits']));
    expect(of('article_pk_columns_input')).toEqual(sorted(['id']));
    expect(of('article_max_fields')).toEqual(sorted(['id', 'headline', 'body', 'writerId', 'hits']));
    expect(of('article_sum_fields')).toEqual(sorted(['id', 'writerId', 'hits']));
    expect(of('article_select_column')).toEqual(sorted(['id', 'headline', 'body', 'writerId', 'published', 'hits', 'tags']));
    expect(of('article_update_column')).toEqual(of('article_select_column'));
    expect(of('author')).toEqual(expect.arrayContaining(['authorId', 'authorName', 'biography', 'is_active', 'rating', 'created_at']));
    expect(of('author')).toEqual(sorted(of('author')));
    expect(admin.data['author']?.fields?.find((f) => f.name === 'biography')?.description).toBe('About the author');
    const user = (await q(e, '{ i: __type(name: "article_insert_input") { inputFields { name } } s: __type(name: "article_set_input") { inputFields { name } } u: __type(name: "article_update_column") { enumValues { name } } }', USER1)) as { data: { i: { inputFields: Fields }; s: { inputFields: Fields }; u: { enumValues: Fields } } };
    expect(names(user.data.i.inputFields)).toEqual(sorted(['headline', 'body', 'tags']));
    expect(names(user.data.s.inputFields)).toEqual(sorted(['headline', 'body', 'published']));
    expect(names(user.data.u.enumValues)).toEqual(sorted(['headline', 'body', 'published']));
  });

  it('a custom name taken by an earlier column, a relationship or a computed field: the first in §2.2 order wins', async () => {
    // bio → name: column "name" comes first, so bio has no field; rating → articles, is_active → full_name:
    // columns come before relationships and computed fields, which are then absent.
    await configure(e, { author: { custom_column_names: { bio: 'name', rating: 'articles', is_active: 'full_name' } } });
    const t = (await q(e, '{ __type(name: "author") { fields { name type { name ofType { name } } } } }')) as { data: { __type: { fields: { name: string; type: { name: string | null; ofType: { name: string } | null } }[] } } };
    expect(t.data.__type.fields.map((f) => f.name)).toEqual(sorted(['id', 'name', 'full_name', 'articles', 'created_at', 'greet']));
    expect(t.data.__type.fields.find((f) => f.name === 'articles')?.type.name).toBe('numeric');
    expect(await q(e, '{ author(where: {articles: {_is_null: false}, full_name: {_eq: true}}) { name articles full_name } }'))
      .toEqual({ data: { author: [{ name: 'Ann', articles: 4.5, full_name: true }] } });
    // The other columns keep their SQL names; the shadowed one can still be written by SQL only.
    expect(await q(e, '{ __type(name: "author_insert_input") { inputFields { name } } }'))
      .toEqual({ data: { __type: { inputFields: sorted(['id', 'name', 'full_name', 'articles', 'created_at']).map((name) => ({ name })) } } });
  });

  it('a custom-named column that references an enum table is typed by the enum', async () => {
    await e.sql(`CREATE TABLE mood (value text PRIMARY KEY); INSERT INTO mood VALUES ('happy'), ('sad');
      CREATE TABLE diary (id serial PRIMARY KEY, mood_value text NOT NULL REFERENCES mood (value)); INSERT INTO diary (mood_value) VALUES ('sad');`);
    const doc = (await e.ok({ type: 'export_metadata', args: {} })) as { tables: unknown[] };
    doc.tables.push({ table: { schema: 'public', name: 'mood' }, is_enum: true },
      { table: { schema: 'public', name: 'diary' }, configuration: { custom_column_names: { mood_value: 'mood' } } });
    await e.ok({ type: 'replace_metadata', args: doc });
    expect(await q(e, 'mutation { insert_diary_one(object: {mood: happy}) { mood } }')).toEqual({ data: { insert_diary_one: { mood: 'happy' } } });
    expect(await q(e, '{ diary(where: {mood: {_eq: sad}}) { id mood } }')).toEqual({ data: { diary: [{ id: 1, mood: 'sad' }] } });
    const t = (await q(e, '{ __type(name: "diary") { fields { name type { ofType { name } } } } }')) as { data: { __type: { fields: { name: string; type: { ofType: { name: string } } }[] } } };
    expect(t.data.__type.fields).toEqual([{ name: 'id', type: { ofType: { name: 'Int' } } }, { name: 'mood', type: { ofType: { name: 'mood_enum' } } }]);
  });
});
