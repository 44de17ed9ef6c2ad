import { expect, it } from 'vitest';
import { useTestEngine } from '../helpers/engine.js';

const e = useTestEngine();

it('permissions, computed fields, actions and event triggers work together', async () => {
  await e.sql(`create table author (id serial primary key, name text, active boolean default true);
    create table article (id serial primary key, author_id int references author(id), title text, published boolean default false);
    create function author_full_name(a author) returns text stable language sql as $$ select 'Author ' || a.name $$;`);
  await e.ok({ type: 'bulk', args: [
    { type: 'track_table', args: 'author' }, { type: 'track_table', args: 'article' },
    { type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
    { type: 'add_computed_field', args: { table: { name: 'author', schema: 'public' }, name: 'full_name', definition: { function: 'author_full_name' } } },
    { type: 'create_select_permission', args: { table: 'author', role: 'user', permission: { columns: '*', computed_fields: ['full_name'], filter: {} } } },
    { type: 'create_select_permission', args: { table: 'article', role: 'user', permission: { columns: ['id', 'title'], filter: { author_id: 'X-Engine-User-Id', $or: [{ published: true }], author: { active: { _eq: true } } }, limit: 10 } } },
    { type: 'set_custom_types', args: { objects: [{ name: 'UserId', fields: [{ name: 'id', type: 'Int!' }] }] } },
    { type: 'create_action', args: { name: 'create_user', definition: { handler: '{{ACTION_BASE_URL}}/create_user', output_type: 'UserId', arguments: [{ name: 'email', type: 'String!' }] } } },
    { type: 'create_action_permission', args: { action: 'create_user', role: 'user' } },
    { type: 'create_event_trigger', args: { name: 'article_events', table: 'article', webhook: 'http://localhost:1/x', insert: { columns: '*' }, update: { columns: ['title'], payload: ['id', 'title'] } } },
  ] });
  const exported = await e.ok({ type: 'export_metadata', args: {} });
  const again = await e.query({ type: 'replace_metadata', args: exported });
  expect(again.status).toBe(200);
  expect(await e.ok({ type: 'export_metadata', args: {} })).toEqual(exported);
  await e.sql("insert into author (name) values ('Ann'); insert into article (author_id, title) values (1, 'a'); update article set published = true; update article set title = 'b'");
  const events = await e.sql("select payload->>'op', payload->'data' from engine_catalog.event_log order by created_at");
  expect(events.result.slice(1)).toEqual([
    ['INSERT', '{"new": {"id": 1, "title": "a", "author_id": 1, "published": false}, "old": null}'],
    ['UPDATE', '{"new": {"id": 1, "title": "b"}, "old": {"id": 1, "title": "a"}}'],
  ]);
  const dep = await e.query({ type: 'run_sql', args: { sql: 'alter table author drop column active' } });
  expect(dep.body).toEqual({ path: '$.args', error: 'cannot drop due to the following dependent objects : permission article.user.select', code: 'dependency-error' });
  await e.sql('alter table article rename column title to headline');
  const after = await e.ok({ type: 'export_metadata', args: {} });
  expect(JSON.stringify(after)).toContain('"headline"');
  expect(JSON.stringify(after)).not.toContain('"title"');
  await e.sql("update article set headline = 'c'");
  const n = await e.sql("select count(*) from engine_catalog.event_log where payload->>'op' = 'UPDATE'");
  expect(n.result[1]).toEqual(['2']);
});
