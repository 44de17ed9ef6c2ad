import { useTestEngine, type TestEngine } from '../helpers/engine.js';
import { qt } from '../helpers/assertions.js';

// Shared by permissions-crud.test.ts and permissions-errors.test.ts: the engine with the tables, views, relationships
// and computed fields permissions are defined on. Also by permissions-deps.test.ts (its own tables): the builders of the
// permission operations and of the exported document, so the three files agree on the §6.1 shape.

/** One engine for the file, reset to the setup before each test. */
export function usePermissionsEngine(): TestEngine {
  return useTestEngine({ setup: async (e) => {
    await e.sql(`create table author (id int primary key, name text, active boolean default true, info jsonb, created_at timestamptz);
    create table article (id int primary key, author_id int references author(id), editor_id int, title text, category text,
      published boolean default false, created_at timestamptz, published_on date);
    create table secret (id int primary key);
    create view article_titles as select id, title from article;
    create view article_counts as select author_id, count(*) as n from article group by author_id;
    create schema billing;
    create table billing.invoice (id int primary key, customer_id int references author(id), total int);
    create function author_full_name(a author) returns text stable language sql as $$ select a.name $$;
    create function author_latest(a author) returns setof article stable language sql as $$ select * from article where author_id = a.id $$;`);
    await e.ok({ type: 'bulk', args: [
      ...['author', 'article', 'article_titles', 'article_counts', { schema: 'billing', name: 'invoice' }].map((t) => ({ type: 'track_table', args: t })),
      { type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
      { type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } },
      { type: 'add_computed_field', args: { table: 'author', name: 'full_name', definition: { function: 'author_full_name' } } },
      { type: 'add_computed_field', args: { table: 'author', name: 'latest', definition: { function: 'author_latest' } } },
    ] });
  } });
}

export type Kind = 'insert' | 'select' | 'update' | 'delete';
export type Q = string | { schema?: string; name: string };
export type Obj = Record<string, unknown>;
export const KINDS: Kind[] = ['insert', 'select', 'update', 'delete'];
export const INVOICE = qt('invoice', 'billing');

export const create = (kind: Kind, table: Q, role: string, permission: unknown, extra: Obj = {}) =>
  ({ type: `create_${kind}_permission`, args: { table, role, permission, ...extra } });
export const drop = (kind: Kind, table: Q, role: string) => ({ type: `drop_${kind}_permission`, args: { table, role } });
export const setComment = (args: Obj) => ({ type: 'set_permission_comment', args });

export type Perms = Partial<Record<Kind, unknown[]>>;
/** The exported document of the given [sort key, table entry] pairs with their permission lists (§6.1 key order). */
export function permissionsDoc(base: [string, Obj][], perms: Record<string, Perms> = {}): string {
  const tables = base.map(([key, entry]) => {
    const out: Obj = { ...entry };
    for (const kind of KINDS) {
      const list = perms[key]?.[kind];
      if (list && list.length > 0) out[`${kind}_permissions`] = list;
    }
    return out;
  });
  return JSON.stringify({ version: 2, tables });
}
