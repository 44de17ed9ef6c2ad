// Issue 35.3, on `engine serve` in its own process: a list of 100 authors, each joined to a remote schema's field
// (a table → remote schema relationship), against a graphql-js remote on 127.0.0.1 that counts its calls. Figures:
// the engine's p50 for the list with its joins vs the remote's own p50 for the same 100 fields in one document (the
// engine's overhead: the SQL and the splice), the incumbent's N+1 way for comparison (100 calls of one field each,
// concurrently, the row fetch not counted), and the remote calls per request (goal 1).
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';
import { buildSchema, graphql } from 'graphql';
import { request } from 'undici';
import { compareRow, count, goalRow, p50, progress, QUICK, table, time } from './lib.mjs';
import { startEngineProcess } from './engine-process.mjs';

const GROUP = 'remote joins';
export const SIZES = { full: { runs: 300, rows: 100 }, quick: { runs: 30, rows: 100 } };

const SDL = 'type Query { profile(id: Int!): Profile } type Profile { id: Int! name: String! }';

async function startRemote() {
  const schema = buildSchema(SDL);
  const rootValue = { profile: ({ id }) => ({ id, name: `profile ${id}` }) };
  let calls = 0;
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (!String(body.query).includes('__schema')) calls++;
      const result = await graphql({ schema, source: body.query, rootValue, variableValues: body.variables ?? {} });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(result));
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${server.address().port}/graphql`,
    calls: () => calls,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

async function post(url, body) {
  const res = await request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const text = await res.body.text();
  if (res.statusCode !== 200 || text.includes('"errors"')) throw new Error(`HTTP ${res.statusCode}: ${text.slice(0, 300)}`);
  return text;
}

async function measure(kind, runs, rows) {
  progress(`${GROUP}: ${kind}, ${count(runs)} requests of ${rows} rows joined to a remote field`);
  const remote = await startRemote();
  const e = await startEngineProcess(kind);
  try {
    await e.query({ type: 'run_sql', args: { sql: `CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL); INSERT INTO author (name) SELECT 'a' || g FROM generate_series(1, ${rows}) g;` } });
    await e.query({ type: 'track_table', args: { table: 'author' } });
    await e.query({ type: 'add_remote_schema', args: { name: 'profiles', definition: { url: remote.url } } });
    await e.query({ type: 'create_remote_relationship', args: { name: 'profile', table: 'author', hasura_fields: ['id'], remote_schema: 'profiles', remote_field: { profile: { arguments: { id: '$id' } } } } });
    const query = { query: `{ author(limit: ${rows}) { id profile { name } } }` };
    const batched = JSON.stringify({ query: `{ ${Array.from({ length: rows }, (_, i) => `_r${i}: profile(id: ${i + 1}) { name }`).join(' ')} }` });
    const single = Array.from({ length: rows }, (_, i) => JSON.stringify({ query: `{ profile(id: ${i + 1}) { name } }` }));
    for (let i = 0; i < 30; i++) {
      await e.graphql(query);
      await post(remote.url, batched);
    }
    const before = remote.calls();
    const viaEngine = [];
    const direct = [];
    const nPlusOne = [];
    let engineCalls = 0;
    // Interleaved, so that all three see the same machine load.
    for (let i = 0; i < runs; i++) {
      const c0 = remote.calls();
      viaEngine.push(await time(() => e.graphql(query)));
      engineCalls += remote.calls() - c0;
      direct.push(await time(() => post(remote.url, batched)));
      nPlusOne.push(await time(() => Promise.all(single.map((b) => post(remote.url, b)))));
    }
    if (remote.calls() - before !== engineCalls + runs + runs * rows) throw new Error('the remote counted other calls');
    return { engine: p50(viaEngine), direct: p50(direct), nPlusOne: p50(nPlusOne), callsPerRequest: engineCalls / runs };
  } finally {
    await e.close();
    await remote.close();
  }
}

/** Adds its rows through `add`; `kinds` are the databases to run on ('pglite', 'postgres'). */
export async function run({ quick = false, kinds = ['pglite', 'postgres'], add }) {
  const { runs, rows } = quick ? SIZES.quick : SIZES.full;
  for (const kind of kinds) {
    const m = await measure(kind, runs, rows);
    add(compareRow(GROUP, `${rows} rows joined, p50: through the engine vs the remote's own answer to the one batched document (information)`, kind, m.engine, m.direct, 'information', null));
    add(compareRow(GROUP, `${rows} rows joined, p50: through the engine vs the N+1 way (${rows} remote calls at once, rows not fetched) (engine faster)`, kind, m.engine, m.nPlusOne, 'ratio < 1', m.engine < m.nPlusOne));
    add({ ...goalRow(GROUP, `remote calls per request of ${rows} joined rows`, kind, m.callsPerRequest, 1), text: String(m.callsPerRequest), goal: '= 1', pass: m.callsPerRequest === 1 });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = [];
  const kinds = process.argv.includes('--postgres') ? ['pglite', 'postgres'] : ['pglite'];
  await run({ quick: QUICK, kinds, add: (r) => rows.push(r) });
  process.stdout.write(`${table(rows)}\n`);
}
