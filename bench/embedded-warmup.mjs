// Issue 28 (the cost of `--wasm-num-compilation-tasks=1`, docs/decisions.md): embedded throughput of two builds from
// the first second of load on. `engine serve` on a new PGlite data directory (its own process), 2,000 authors × 10
// articles tracked with a relationship, then a by-pk query with 5 articles at 4 connections, requests/s in consecutive
// slices (0–1, 1–3, 3–7, 7–15 s): PostgreSQL's WebAssembly is optimised while it runs hot, so early slices show how fast
// that happens. The two builds alternate round by round; medians per slice.
//   node bench/embedded-warmup.mjs <checkout A> <checkout B>     each with dist/ built;  BENCH_ROUNDS=5
import { join, resolve } from 'node:path';
import { p50, progress } from './lib.mjs';
import { rate, startEngineProcess } from './engine-process.mjs';

const [a, b] = process.argv.slice(2).map((c) => resolve(c));
if (!a || !b) throw new Error('usage: node bench/embedded-warmup.mjs <checkout A> <checkout B>');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SLICES = [1, 2, 4, 8];
const DATA = `CREATE TABLE author (id serial PRIMARY KEY, name text, bio text);
CREATE TABLE article (id serial PRIMARY KEY, author_id int REFERENCES author (id), title text, body text);
INSERT INTO author (name, bio) SELECT 'a' || i, repeat('b', 100) FROM generate_series(1, 2000) i;
INSERT INTO article (author_id, title, body) SELECT 1 + i % 2000, 't' || i, repeat('x', 200) FROM generate_series(1, 20000) i;`;
const QUERY = 'query ($id: Int!) { author_by_pk(id: $id) { id name articles(limit: 5, order_by: {id: desc}) { id title } } }';

const sides = [{ label: 'A', bin: join(a, 'bin', 'engine.js'), got: SLICES.map(() => []) }, { label: 'B', bin: join(b, 'bin', 'engine.js'), got: SLICES.map(() => []) }];
for (let round = 0; round < ROUNDS; round++) {
  for (const s of round % 2 ? [...sides].reverse() : sides) {
    const e = await startEngineProcess('pglite', { bin: s.bin });
    try {
      await e.query({ type: 'run_sql', args: { sql: DATA } });
      await e.query({ type: 'bulk', args: [
        { type: 'track_table', args: { table: 'author' } }, { type: 'track_table', args: { table: 'article' } },
        { type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } },
      ] });
      const byPk = (w, i) => e.graphql({ query: QUERY, variables: { id: 1 + ((w * 7919 + i * 31) % 2000) } });
      for (const [k, seconds] of SLICES.entries()) s.got[k].push(await rate(byPk, 4, seconds));
    } finally {
      await e.close();
    }
    progress(`embedded-warmup: round ${round + 1}/${ROUNDS} ${s.label}: ${s.got.map((g) => g.at(-1).toFixed(0)).join(' / ')} req/s`);
  }
}
console.log(`A = ${a}\nB = ${b}\n${ROUNDS} rounds, PGlite on a data directory, by pk with 5 articles at 4 connections\n`);
console.log('| slice of load | A req/s | B req/s | B ÷ A |\n|---|---:|---:|---:|');
let from = 0;
for (const [k, seconds] of SLICES.entries()) {
  const [x, y] = sides.map((s) => p50(s.got[k]));
  console.log(`| ${from}–${from + seconds} s | ${x.toFixed(0)} | ${y.toFixed(0)} | ${(y / x).toFixed(3)}× |`);
  from += seconds;
}
