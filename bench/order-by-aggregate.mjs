// Issue 30: ordering 10,000 authors by `articles_aggregate.count` with limit 20, through `engine serve` in its own
// process on the external PostgreSQL, against the same query written by hand in SQL and run directly (pg, one kept
// connection) on the same database and data. Both p50 of the same number of runs, interleaved; the hand-written
// reference is the faster of two natural forms (a correlated count, a GROUP BY join). Goal: engine ≤ 1.2 × SQL.
//   node bench/order-by-aggregate.mjs [--quick]      (npm run build first; ENGINE_TEST_DATABASE_URL picks the server)
// Markdown table on stdout, progress on stderr.
import pg from 'pg';
import { count, fmt, p50, progress, QUICK, time } from './lib.mjs';
import { startEngineProcess } from './engine-process.mjs';

const AUTHORS = 10_000;
const ARTICLES = 100_000;
const RUNS = QUICK ? 20 : 200;
const GOAL = 1.2;

// Quadratic residues give a skewed number of articles per author (0 to a few dozen), so the order is not all ties.
const SETUP_SQL = `
CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL);
CREATE TABLE article (id serial PRIMARY KEY, title text NOT NULL, author_id integer NOT NULL REFERENCES author (id));
CREATE INDEX article_author_id ON article (author_id);
INSERT INTO author (name) SELECT 'a' || g FROM generate_series(1, ${AUTHORS}) g;
INSERT INTO article (title, author_id) SELECT 't' || g, 1 + (g::bigint * g) % ${AUTHORS} FROM generate_series(1, ${ARTICLES}) g;
ANALYZE author; ANALYZE article;`;

const METADATA = [
  { type: 'track_table', args: 'author' },
  { type: 'track_table', args: 'article' },
  { type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } },
];

const QUERY = { query: '{ author(order_by: [{articles_aggregate: {count: desc}}, {id: asc}], limit: 20) { id name } }' };
// The same answer by hand: the JSON document the engine sends, built by PostgreSQL.
const HAND = {
  correlated: `SELECT json_build_object('data', json_build_object('author', coalesce(json_agg(json_build_object('id', a.id, 'name', a.name)), '[]'))) AS j
    FROM (SELECT id, name FROM author ORDER BY (SELECT count(*) FROM article WHERE article.author_id = author.id) DESC, id LIMIT 20) a`,
  'group by': `SELECT json_build_object('data', json_build_object('author', coalesce(json_agg(json_build_object('id', a.id, 'name', a.name)), '[]'))) AS j
    FROM (SELECT author.id, author.name FROM author LEFT JOIN (SELECT author_id, count(*) AS n FROM article GROUP BY author_id) c ON c.author_id = author.id
          ORDER BY coalesce(c.n, 0) DESC, author.id LIMIT 20) a`,
};

async function main() {
  progress(`order-by-aggregate: ${count(AUTHORS)} authors, ${count(ARTICLES)} articles, ${RUNS} runs each`);
  const e = await startEngineProcess('postgres');
  const client = new pg.Client({ connectionString: e.databaseUrl });
  try {
    await e.query({ type: 'run_sql', args: { sql: SETUP_SQL } });
    await e.query({ type: 'bulk', args: METADATA });
    await client.connect();
    // The same answer both ways, or the comparison means nothing.
    const engineText = await e.graphql(QUERY);
    for (const [name, sql] of Object.entries(HAND)) {
      const hand = JSON.stringify((await client.query(sql)).rows[0].j);
      if (JSON.stringify(JSON.parse(engineText)) !== hand) throw new Error(`the engine's answer differs from the hand-written SQL (${name}):\n${engineText}\n${hand}`);
    }
    const times = { engine: [], ...Object.fromEntries(Object.keys(HAND).map((k) => [k, []])) };
    for (let i = 0; i < 10; i++) {
      await e.graphql(QUERY);
      for (const sql of Object.values(HAND)) await client.query(sql);
    }
    for (let i = 0; i < RUNS; i++) {
      times.engine.push(await time(() => e.graphql(QUERY)));
      for (const [name, sql] of Object.entries(HAND)) times[name].push(await time(() => client.query(sql)));
    }
    const hands = Object.keys(HAND).map((k) => [k, p50(times[k])]).sort((a, b) => a[1] - b[1]);
    const [bestName, best] = hands[0];
    const engine = p50(times.engine);
    const ratio = engine / best;
    const rows = [
      ['figure', 'p50', 'ratio to SQL', 'goal', 'result'],
      ['engine: author(order_by: articles_aggregate.count desc, limit: 20) over HTTP', fmt(engine), `${ratio.toFixed(2)}×`, `≤ ${GOAL}×`, ratio <= GOAL ? 'pass' : 'FAIL'],
      ...hands.map(([name, ms]) => [`hand-written SQL (${name}) through pg`, fmt(ms), name === bestName ? '1.00× (reference)' : `${(engine / ms).toFixed(2)}× of it`, '', '']),
    ];
    console.log(rows.map((r, i) => `| ${r.join(' | ')} |${i === 0 ? `\n|${r.map(() => '---').join('|')}|` : ''}`).join('\n'));
  } finally {
    await client.end().catch(() => {});
    await e.close();
  }
}

await main();
