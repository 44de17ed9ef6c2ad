import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.js';
import { qt } from '../helpers/assertions.js';

// Shared by permissions-crud.test.ts and permissions-errors.test.ts: the engine with the tables, views, relationships
// and computed fields permissions are defined on, and builders of the permission operations.

export let e: TestEngine;

/** Registers the hooks: one engine for the file, reset to the setup before each test. */
export function usePermissionsEngine(): void {
  beforeAll(async () => {
    e = await startTestEngine();
  });
  afterAll(async () => e?.close());
  beforeEach(async () => {
    await e.reset();
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
  });
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
