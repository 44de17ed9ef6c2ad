import { describe, expect, it } from 'vitest';
import { useTestEngine } from '../helpers/engine.js';

const e = useTestEngine();

describe('smoke', () => {
  it('tracks tables, relationships and exports', async () => {
    await e.sql('create table author (id serial primary key, name text); create table article (id serial primary key, author_id int references author(id), title text)');
    await e.ok({ type: 'track_table', args: { table: 'author' } });
    await e.ok({ type: 'track_table', args: 'article' });
    await e.ok({ type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } });
    await e.ok({ type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } });
    const r = await e.query({ type: 'export_metadata', args: {} });
    expect(r.headers.get('x-engine-resource-version')).toBe('5');
    expect(r.body).toEqual({
      version: 2,
      tables: [
        { table: { schema: 'public', name: 'article' }, object_relationships: [{ name: 'author', using: { foreign_key_constraint_on: 'author_id' } }] },
        { table: { schema: 'public', name: 'author' }, array_relationships: [{ name: 'articles', using: { foreign_key_constraint_on: { table: { schema: 'public', name: 'article' }, column: 'author_id' } } }] },
      ],
    });
    const sel = await e.sql('select 1 as one, true as t, null as n');
    expect(sel).toEqual({ result_type: 'TuplesOk', result: [['one', 't', 'n'], ['1', 't', null]] });
    await e.sql('alter table author rename to writer');
    const r2 = await e.ok({ type: 'export_metadata', args: {} });
    expect(r2.tables[1].table.name).toBe('writer');
    expect(r2.tables[0].object_relationships[0].name).toBe('author');
    const dep = await e.query({ type: 'run_sql', args: { sql: 'drop table writer cascade' } });
    expect(dep.body).toEqual({ path: '$.args', error: 'cannot drop due to the following dependent objects : relationship article.author', code: 'dependency-error' });
  });
});
