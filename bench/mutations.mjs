// Issue 14: GraphQL mutations through `engine serve` in its own process (PGlite on a data directory; the external
// PostgreSQL). (1) One `insert_article` of 1,000 objects as role `user`, whose insert check goes through the `author`
// relationship (`{"author":{"is_active":true}}`), p50 of 10 (goal ≤ 60 ms on PostgreSQL). (2) `update_article_by_pk`
// as role `user` (update filter and check on) at concurrency 16, requests/s; the PostGraphile comparison of the issue
// runs in bench/peer-postgraphile.mjs on the same kind of data.
import { count, goalRow, p50, progress, time } from './lib.mjs';
import { rate, startEngineProcess } from './engine-process.mjs';

const GROUP = 'mutations (issue 14)';
export const SIZES = { full: { objects: 1000, runs: 10, seconds: 10, authors: 1000 }, quick: { objects: 200, runs: 3, seconds: 2, authors: 100 } };

const SETUP_SQL = (authors) => `
CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL, is_active boolean NOT NULL DEFAULT true);
CREATE TABLE article (id serial PRIMARY KEY, title text NOT NULL, content text, author_id integer NOT NULL REFERENCES author (id),
  published boolean NOT NULL DEFAULT false, views bigint NOT NULL DEFAULT 0, CONSTRAINT article_title_key UNIQUE (title));
INSERT INTO author (name) SELECT 'a' || g FROM generate_series(1, ${Number(authors)}) g;
INSERT INTO article (title, content, author_id) SELECT 't' || g, 'c', 1 + g % ${Number(authors)} FROM generate_series(1, ${Number(authors) * 10}) g;`;

const perm = (kind, permission) => ({ type: `create_${kind}_permission`, args: { table: 'article', role: 'user', permission } });
const METADATA = [
  { type: 'track_table', args: 'author' },
  { type: 'track_table', args: 'article' },
  { type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
  { type: 'create_select_permission', args: { table: 'author', role: 'user', permission: { columns: ['id', 'name', 'is_active'], filter: {} } } },
  perm('select', { columns: ['id', 'title', 'content', 'author_id', 'published', 'views'], filter: { _or: [{ published: true }, { author_id: 'X-Engine-User-Id' }] } }),
  perm('insert', { columns: ['title', 'content'], set: { author_id: 'X-Engine-User-Id' }, check: { author: { is_active: true } } }),
  perm('update', { columns: ['title', 'content', 'published'], filter: { author_id: 'X-Engine-User-Id' }, check: { title: { _neq: '' } } }),
];

async function measure(kind, { objects, runs, seconds, authors }) {
  progress(`${GROUP}: ${kind}: insert of ${count(objects)} objects × ${runs}, update_article_by_pk at concurrency 16 for ${seconds} s`);
  const e = await startEngineProcess(kind);
  try {
    await e.query({ type: 'run_sql', args: { sql: SETUP_SQL(authors) } });
    await e.query({ type: 'bulk', args: METADATA });
    const user = (id) => ({ 'x-engine-role': 'user', 'x-engine-user-id': String(id) });
    const insert = 'mutation ($o: [article_insert_input!]!) { insert_article(objects: $o) { affected_rows } }';
    const batch = (r) => ({ query: insert, variables: { o: Array.from({ length: objects }, (_, i) => ({ title: `n${r}-${i}`, content: 'x' })) } });
    await e.graphql(batch('warm'), user(1));
    const inserts = [];
    for (let r = 0; r < runs; r++) inserts.push(await time(() => e.graphql(batch(r), user(1 + r))));
    // Each worker updates the articles of its own author (author w+2 owns articles w+1, w+1+authors, …).
    const update = 'mutation ($id: Int!, $t: String!) { update_article_by_pk(pk_columns: {id: $id}, _set: {content: $t}) { id content } }';
    const call = (w, i) => e.graphql({ query: update, variables: { id: w + 1 + (i % 10) * authors, t: `c${i}` } }, user(w + 2));
    for (let i = 0; i < 50; i++) await call(i % 16, i);
    const perSecond = await rate(call, 16, seconds);
    return { insert: p50(inserts), perSecond };
  } finally {
    await e.close();
  }
}

export async function run({ quick = false, kinds = ['pglite', 'postgres'], add }) {
  const sizes = quick ? SIZES.quick : SIZES.full;
  // `engine serve` in its own process: PGlite on a data directory, never in memory.
  for (const kind of kinds.filter((k) => k !== 'pglite-memory')) {
    const m = await measure(kind, sizes);
    const db = kind === 'pglite' ? 'PGlite (data dir)' : 'postgres';
    const figure = `insert_article of ${count(sizes.objects)} objects as user, check through a relationship, p50 of ${sizes.runs}`;
    // The issue sets the goal on PostgreSQL; the embedded figure is information.
    if (kind === 'postgres') add(goalRow(GROUP, figure, db, m.insert, 60));
    else add({ group: GROUP, figure, database: db, value: m.insert, goal: 'information', ratio: null, pass: null });
    add({ group: GROUP, figure: 'update_article_by_pk as user (filter + check), concurrency 16, requests/s', database: db, value: m.perSecond,
      text: `${count(Math.round(m.perSecond))}/s`, goal: 'vs PostGraphile: bench/peer-postgraphile.mjs', ratio: null, pass: null });
  }
}
