// Issue 28: one costly request must not freeze the engine. `engine serve` in its own process with `--query-timeout`
// LIMIT_S; the cost query of the issue (40 authors × 25 articles, nested five levels deep, as role `user`) runs until
// the limit cancels it. Figures: GET /healthz latency while it runs (p99, goal ≤ 50 ms; requests one after the other
// from the moment the query is sent) and the time from sending the query to its `timeout` error (information: the
// limit plus the cancel).
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { startEngineProcess, SECRET } from './engine-process.mjs';
import { goalRow, progress } from './lib.mjs';

const GROUP = 'query time limit (issue 28)';
const LIMIT_S = 3;
const COST_QUERY = '{ authors { articles { author { articles { author { articles { author { articles { author { articles { id } } } } } } } } } } }';

const SCHEMA = `CREATE TABLE authors (id int PRIMARY KEY, name text NOT NULL);
CREATE TABLE articles (id int PRIMARY KEY, author_id int NOT NULL REFERENCES authors, title text NOT NULL);
INSERT INTO authors SELECT a, 'author ' || a FROM generate_series(1, 40) a;
INSERT INTO articles SELECT (a - 1) * 25 + i, a, 'article ' || i FROM generate_series(1, 40) a, generate_series(1, 25) i;`;

const p99 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))];

async function measure(kind, add) {
  progress(`${GROUP}: ${kind}, --query-timeout ${LIMIT_S}`);
  const e = await startEngineProcess(kind, { args: ['--query-timeout', String(LIMIT_S)] });
  try {
    await e.query({ type: 'run_sql', args: { sql: SCHEMA } });
    await e.query({ type: 'track_table', args: { table: 'authors' } });
    await e.query({ type: 'track_table', args: { table: 'articles' } });
    await e.query({ type: 'create_array_relationship', args: { table: 'authors', name: 'articles', using: { foreign_key_constraint_on: { table: 'articles', column: 'author_id' } } } });
    await e.query({ type: 'create_object_relationship', args: { table: 'articles', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } });
    for (const table of ['authors', 'articles']) {
      await e.query({ type: 'create_select_permission', args: { table, role: 'user', permission: { columns: '*', filter: {}, limit: 100 } } });
    }
    const sent = performance.now();
    let answer = null;
    const costly = request(`${e.baseUrl}/v1/graphql`, {
      method: 'POST', body: JSON.stringify({ query: COST_QUERY }),
      headers: { 'content-type': 'application/json', 'x-engine-admin-secret': SECRET, 'x-engine-role': 'user' },
    }).then(async (res) => {
      answer = { ms: performance.now() - sent, text: await res.body.text() };
    });
    const health = [];
    while (answer === null) {
      const t = performance.now();
      const res = await request(`${e.baseUrl}/healthz`);
      await res.body.text();
      if (answer === null) health.push(performance.now() - t);
    }
    await costly;
    if (!answer.text.includes('"code":"timeout"')) throw new Error(`the cost query did not time out: ${answer.text.slice(0, 300)}`);
    add(goalRow(GROUP, `GET /healthz p99 while the cost query runs (${health.length} requests)`, kind, p99(health), 50));
    add({ group: GROUP, figure: `cost query → timeout error (limit ${LIMIT_S} s)`, database: kind, value: answer.ms, goal: 'information', ratio: null, pass: null });
  } finally {
    await e.close();
  }
}

export async function run({ kinds, add }) {
  for (const kind of kinds.filter((k) => k !== 'pglite-memory')) await measure(kind, add);
}
