// Issue 13 (and issue 14's mutation): this engine against PostGraphile v5, side by side in one run, on the external
// PostgreSQL, same data (graphql-api.md §0's schema, 10,000 authors × 10 articles), concurrency 16, each server its own
// process with a pool of 10 connections (ours: its default; PostGraphile: pg's). Load by autocannon from this process.
// PostGraphile is installed at bench time into bench/.cache/postgraphile (git-ignored), never a dependency of ours.
//   npm run bench:peer                      full run: BENCH_SECONDS=10 per query and server, after 2 s of warm-up
//   BENCH_SECONDS=3 npm run bench:peer      a quicker run (BENCH_WARMUP_SECONDS, BENCH_CONNECTIONS likewise)
// Markdown table on stdout, progress on stderr. Also part of `npm run bench` (its figures in that table).
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { count, EXTERNAL_URL, externalDatabase, progress, QUICK } from './lib.mjs';
import { maskUrl } from '../dist/db/database.js';
import { applyMetadata, ARTICLES_PER_AUTHOR, AUTHORS, createDatabase, dropDatabase } from './peer/data.mjs';
import { load, sampleError } from './peer/load.mjs';
import { measureOverhead } from './peer/overhead.mjs';
import { ensurePostgraphile, peerNodeVersion, POSTGRAPHILE_VERSION, startEngine, startPostgraphile, THIS_CHECKOUT } from './peer/servers.mjs';

export { POSTGRAPHILE_VERSION };

const GROUP = 'peer (issue 13)';
const rndAuthor = () => 1 + Math.floor(Math.random() * AUTHORS);
const rndArticle = () => 1 + Math.floor(Math.random() * AUTHORS * ARTICLES_PER_AUTHOR);
const LIST = '{ author(limit: 100, order_by: {id: asc}) { id name articles(order_by: {id: asc}) { id title } } }';
const PEER_LIST = '{ allAuthors(first: 100, orderBy: ROW_ID_ASC) { nodes { rowId name articlesByAuthorId(orderBy: ROW_ID_ASC) { nodes { rowId title } } } } }';
const USER = { 'x-engine-role': 'user', 'x-engine-user-id': '7' };

/** The queries: ours and PostGraphile's (`peer: 'list'` reuses that row's PostGraphile figures). */
export const QUERIES = [
  {
    key: 'pk', label: '(1) author by primary key', goal: 1.0,
    engine: { random: rndAuthor, body: (i) => ({ query: 'query ($id: Int!) { author_by_pk(id: $id) { id name bio } }', variables: { id: i } }) },
    peer: { random: rndAuthor, body: (i) => ({ query: 'query ($id: Int!) { authorByRowId(rowId: $id) { rowId name bio } }', variables: { id: i } }) },
  },
  {
    key: 'list', label: '(2) 100 authors with their articles', goal: 1.5,
    engine: { body: () => ({ query: LIST }) },
    peer: { body: () => ({ query: PEER_LIST }) },
  },
  {
    key: 'user', label: '(3) the same list as role user (select filter, session variable)', goal: 1.0,
    engine: { body: () => ({ query: LIST }), headers: () => USER },
    // PostGraphile has no permission system: its figures are row (2)'s.
    peer: 'list',
  },
  {
    key: 'mutation', label: '(4) update an article by pk as role user (issue 14)', goal: 1.2,
    engine: {
      random: rndArticle,
      body: (i) => ({ query: 'mutation ($id: Int!, $c: String!) { update_article_by_pk(pk_columns: {id: $id}, _set: {content: $c}) { id content } }', variables: { id: i, c: `edited ${i}` } }),
      // Article i belongs to author ceil(i / 10): the row is within the user's update filter.
      headers: (i) => ({ 'x-engine-role': 'user', 'x-engine-user-id': String(Math.ceil(i / ARTICLES_PER_AUTHOR)) }),
    },
    peer: {
      random: rndArticle,
      body: (i) => ({ query: 'mutation ($id: Int!, $c: String!) { updateArticleByRowId(input: {rowId: $id, articlePatch: {content: $c}}) { article { rowId content } } }', variables: { id: i, c: `edited ${i}` } }),
    },
  },
];

export function settings(quick = QUICK) {
  const num = (name, dflt) => (process.env[name] ? Number(process.env[name]) : dflt);
  const seconds = num('BENCH_SECONDS', quick ? 2 : 10);
  return { seconds, warmup: num('BENCH_WARMUP_SECONDS', Math.min(2, Math.max(1, seconds / 5))), connections: num('BENCH_CONNECTIONS', 16), overheadRuns: quick ? 300 : 2000 };
}

async function measureOne(url, q, opts) {
  const error = await sampleError(url, q);
  if (error) return { error };
  const m = await load(url, q, opts);
  // Failures during the run (after a good sample) are reported, not hidden: more than 1 % makes the figure n/a.
  if (m.failed > m.total / 100) return { error: `${count(m.failed)} of ${count(m.total)} requests failed during the run` };
  return m;
}

/** Runs everything; returns the figures (no printing but progress). */
export async function measure(opts = settings()) {
  ensurePostgraphile();
  const peerNode = peerNodeVersion();
  const loadStart = loadavg()[0];
  progress(`peer: creating the database (${count(AUTHORS)} authors × ${ARTICLES_PER_AUTHOR} articles)`);
  const url = await createDatabase();
  let engine = null;
  let peer = null;
  try {
    engine = await startEngine(THIS_CHECKOUT, url);
    await applyMetadata(engine.url);
    peer = await startPostgraphile(url);
    progress(`peer: engine at ${engine.url}, PostGraphile at ${peer.url}`);
    const ours = `${engine.url}/v1/graphql`;
    const results = {};
    for (const q of QUERIES) {
      progress(`peer: ${q.label}: engine, ${opts.seconds} s at ${opts.connections} connections`);
      const e = await measureOne(ours, q.engine, opts);
      let p;
      if (typeof q.peer === 'string') {
        p = results[q.peer].peer;
      } else {
        progress(`peer: ${q.label}: PostGraphile`);
        p = await measureOne(peer.url, q.peer, opts);
      }
      results[q.key] = { engine: e, peer: p };
      progress(`peer:   ${fmtRate(e)} vs ${fmtRate(p)}`);
    }
    await engine.stop();
    engine = null;
    await peer.stop();
    peer = null;
    const overhead = await measureOverhead(url, QUERIES[0].engine, opts.overheadRuns);
    return { results, overhead, loadStart, loadEnd: loadavg()[0], opts, peerNode };
  } finally {
    await engine?.stop();
    await peer?.stop();
    await dropDatabase();
  }
}

const fmtRate = (m) => (m.error ? `n/a (error: ${m.error})` : `${count(Math.round(m.rps))}/s`);
const fmtMs = (ms) => `${ms.toFixed(ms < 10 ? 2 : 1)} ms`;
const ratio = (e, p) => (e.error || p.error ? null : e.rps / p.rps);

/** The figures as rows of `npm run bench`'s table (lib.mjs `table`). */
export function rows({ results, overhead }) {
  const out = QUERIES.map((q) => {
    const { engine: e, peer: p } = results[q.key];
    const r = ratio(e, p);
    return { group: GROUP, figure: `${q.label}: requests/s, engine vs PostGraphile ${POSTGRAPHILE_VERSION}`, database: 'postgres', value: e.rps ?? 0, base: p.rps ?? 0,
      text: `${fmtRate(e)} vs ${fmtRate(p)}`, goal: `≥ ${q.goal.toFixed(1)}× PostGraphile`, ratio: r, pass: r === null ? null : r >= q.goal, comparison: true };
  });
  const u = results.user.engine;
  const a = results.list.engine;
  const ua = u.error || a.error ? null : u.rps / a.rps;
  out.push({ group: GROUP, figure: 'role user vs admin on the list: requests/s, (3) vs (2)', database: 'postgres', value: u.rps ?? 0, base: a.rps ?? 0,
    text: `${fmtRate(u)} vs ${fmtRate(a)}`, goal: '≥ 0.85× (within 15 %)', ratio: ua, pass: ua === null ? null : ua >= 0.85, comparison: true });
  out.push({ group: GROUP, figure: 'plan-cache hit (by pk): p50 in the engine outside PostgreSQL, sequential', database: 'postgres', value: overhead.inside,
    goal: '≤ 0.3 ms', ratio: overhead.inside / 0.3, pass: overhead.inside <= 0.3 });
  return out;
}

/** The standalone report: one side-by-side table. */
function report(m, label) {
  const head = ['query', 'engine req/s', 'p50', 'p99', 'PostGraphile req/s', 'p50', 'p99', 'engine / PG', 'goal', 'ok'];
  const lines = QUERIES.map((q) => {
    const { engine: e, peer: p } = m.results[q.key];
    const r = ratio(e, p);
    const side = (x) => (x.error ? [`n/a (error: ${x.error})`, '—', '—'] : [count(Math.round(x.rps)), fmtMs(x.p50), fmtMs(x.p99)]);
    const ps = typeof q.peer === 'string' ? side(p).map((c) => (c === '—' ? c : `${c}¹`)) : side(p);
    return [q.label, ...side(e), ...ps, r === null ? '—' : `${r.toFixed(2)}×`, `≥ ${q.goal.toFixed(1)}×`, r === null ? '—' : r >= q.goal ? 'ok' : 'UNDER'];
  });
  const [ua, inside] = rows(m).slice(-2);
  lines.push(['role user vs admin, engine: (3) / (2)', '', '', '', '', '', '', ua.ratio === null ? '—' : `${ua.ratio.toFixed(2)}×`, '≥ 0.85×', ua.pass === null ? '—' : ua.pass ? 'ok' : 'UNDER']);
  const width = head.map((h, i) => Math.max(h.length, 3, ...lines.map((c) => c[i].length)));
  const line = (c) => `| ${c.map((x, i) => (i > 0 && i < 8 ? x.padStart(width[i]) : x.padEnd(width[i]))).join(' | ')} |`;
  const o = m.overhead;
  return [
    `## Peer benchmark: engine vs PostGraphile ${POSTGRAPHILE_VERSION}`,
    '',
    `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC; ${label}; ${cpus().length} cores; load average ${m.loadStart.toFixed(2)} at start, ${m.loadEnd.toFixed(2)} at end.`,
    `engine: node ${process.version}; PostGraphile: node ${m.peerNode}, CLI, preset amber, production mode. Load: autocannon, ${m.opts.connections} connections, ` +
      `${m.opts.seconds} s per query and server after ${m.opts.warmup} s of warm-up; latency from send to the last byte.`,
    `Data: §0 schema (+ index on article.author_id), ${count(AUTHORS)} authors × ${ARTICLES_PER_AUTHOR} articles, all published; (1) a random author, (4) a random article ` +
      '(as its author, so within the update filter).',
    '',
    line(head),
    `|${width.map((w, i) => (i > 0 && i < 8 ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`,
    ...lines.map(line),
    '',
    '¹ PostGraphile has no permission system: it runs (3) as (2), without a role; its figures are row (2)\'s.',
    `Plan-cache hit path (by pk, ${count(m.opts.overheadRuns)} sequential requests): p50 in the engine outside PostgreSQL ${fmtMs(o.inside)} ` +
      `(goal ≤ 0.3 ms: ${inside.pass ? 'ok' : 'OVER'}) — server-side, 'request' event to 'finish' minus the time in database calls (p50 ${fmtMs(o.inDb)}). ` +
      `Cross-check from outside: HTTP round trip ${fmtMs(o.rtt)} − same statements by pg ${fmtMs(o.sql)} − bare node:http round trip ${fmtMs(o.http)} = ${fmtMs(o.outside)}.`,
  ].join('\n');
}

/** For `npm run bench`: adds its rows; needs the external PostgreSQL. */
export async function run({ quick = false, kinds = ['postgres'], add }) {
  if (!kinds.includes('postgres')) {
    progress('peer: skipped (needs the external PostgreSQL)');
    return;
  }
  for (const row of rows(await measure(settings(quick)))) add(row);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const external = await externalDatabase();
  if (!external.ok) {
    console.error(`bench:peer: ${external.label}`);
    process.exit(1);
  }
  const c = new pg.Client({ connectionString: EXTERNAL_URL });
  await c.connect();
  const [{ server_version: version }] = (await c.query('SHOW server_version')).rows;
  await c.end();
  console.log(report(await measure(), `PostgreSQL ${version} at ${maskUrl(EXTERNAL_URL)}`));
}
