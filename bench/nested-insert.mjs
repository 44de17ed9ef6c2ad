// Issue 30.1: a nested insert through `engine serve` in its own process on PostgreSQL: `insert_author` of 1,000
// authors × 5 articles each (one root field) as role `user`, with an insert check at both levels — the author's on its
// own row, the article's through its new author (`{author: {user_id: …}}`, which only a check evaluated after the whole
// insert can see) — presets at both levels; p50 of 10 (goal ≤ 150 ms on PostgreSQL).
//   node bench/nested-insert.mjs [--quick] [--pglite]
import { count, goalRow, p50, progress, QUICK, table, time } from './lib.mjs';
import { startEngineProcess } from './engine-process.mjs';

const GROUP = 'nested insert (issue 30.1)';
export const SIZES = { full: { authors: 1000, articles: 5, runs: 10 }, quick: { authors: 100, articles: 5, runs: 3 } };

const SETUP_SQL = `
CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL, user_id integer NOT NULL);
CREATE TABLE article (id serial PRIMARY KEY, title text NOT NULL, content text, author_id integer NOT NULL REFERENCES author (id), user_id integer NOT NULL);
CREATE INDEX ON article (author_id);`;

const perm = (kind, table, permission) => ({ type: `create_${kind}_permission`, args: { table, role: 'user', permission } });
const own = { user_id: { _eq: 'X-Engine-User-Id' } };
const METADATA = [
  { type: 'track_table', args: 'author' },
  { type: 'track_table', args: 'article' },
  { type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
  { type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } },
  perm('select', 'author', { columns: '*', filter: own }),
  perm('select', 'article', { columns: '*', filter: own }),
  perm('insert', 'author', { columns: ['name'], set: { user_id: 'X-Engine-User-Id' }, check: own }),
  perm('insert', 'article', { columns: ['title', 'content'], set: { user_id: 'X-Engine-User-Id' }, check: { author: own } }),
];

export async function measure(kind, { authors, articles, runs }) {
  progress(`${GROUP}: ${kind}: insert_author of ${count(authors)} authors × ${articles} articles × ${runs}`);
  const e = await startEngineProcess(kind);
  try {
    await e.query({ type: 'run_sql', args: { sql: SETUP_SQL } });
    await e.query({ type: 'bulk', args: METADATA });
    const user = { 'x-engine-role': 'user', 'x-engine-user-id': '1' };
    const insert = 'mutation ($o: [author_insert_input!]!) { insert_author(objects: $o) { affected_rows } }';
    const body = (r) => ({ query: insert, variables: { o: Array.from({ length: authors }, (_, i) => ({
      name: `a${r}-${i}`, articles: { data: Array.from({ length: articles }, (_, j) => ({ title: `t${r}-${i}-${j}`, content: 'x' })) },
    })) } });
    const expected = `{"data":{"insert_author":{"affected_rows":${authors * (articles + 1)}}}}`;
    const check = (text) => {
      if (text.replace(/\s/g, "") !== expected) throw new Error(`unexpected answer: ${text.slice(0, 300)}`);
    };
    check(await e.graphql(body('warm'), user));
    const times = [];
    for (let r = 0; r < runs; r++) times.push(await time(async () => check(await e.graphql(body(r), user))));
    return p50(times);
  } finally {
    await e.close();
  }
}

export async function run({ quick = false, kinds = ['postgres'], add }) {
  const sizes = quick ? SIZES.quick : SIZES.full;
  for (const kind of kinds.filter((k) => k !== 'pglite-memory')) {
    const value = await measure(kind, sizes);
    const figure = `insert_author of ${count(sizes.authors)} authors × ${sizes.articles} articles as user, checks at both levels, p50 of ${sizes.runs}`;
    if (kind === 'postgres') add(goalRow(GROUP, figure, 'postgres', value, 150));
    else add({ group: GROUP, figure, database: 'PGlite (data dir)', value, goal: 'information', ratio: null, pass: null });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = [];
  await run({ quick: QUICK, kinds: process.argv.includes('--pglite') ? ['postgres', 'pglite'] : ['postgres'], add: (r) => rows.push(r) });
  console.log(table(rows));
}
