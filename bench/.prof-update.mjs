// Scratch (not committed): profile the engine process under the peer update load.
import { createDatabase, applyMetadata, dropDatabase } from './peer/data.mjs';
import { spawnServer } from './peer/servers.mjs';
import { load } from './peer/load.mjs';
import { fileURLToPath } from 'node:url';
const BIN = fileURLToPath(new URL('../bin/engine.js', import.meta.url));
const url = await createDatabase();
const kind = process.argv[2] ?? 'update';
const prof = process.argv[3] !== 'noprof';
const s = await spawnServer('engine', process.execPath, [...(prof ? ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] : []), BIN, 'serve', '--database-url', url, '--port', '0', '--log-level', 'warn', '--no-color'],
  { cwd: '/tmp', env: { ...process.env, NO_COLOR: '1' } }, /Engine listening on (\S+)/, (u) => u);
await applyMetadata(s.url);
const rnd = () => 1 + Math.floor(Math.random() * 100000);
const Q = {
  update: { random: rnd, body: (i) => ({ query: 'mutation ($id: Int!, $c: String!) { update_article_by_pk(pk_columns: {id: $id}, _set: {content: $c}) { id content } }', variables: { id: i, c: `edited ${i}` } }),
    headers: (i) => ({ 'x-engine-role': 'user', 'x-engine-user-id': String(Math.ceil(i / 10)) }) },
  pk: { random: () => 1 + Math.floor(Math.random() * 10000), body: (i) => ({ query: 'query ($id: Int!) { author_by_pk(id: $id) { id name } }', variables: { id: i } }) },
};
const m = await load(`${s.url}/v1/graphql`, Q[kind], { seconds: Number(process.env.SECS ?? 8), warmup: 1, connections: 16 });
console.log(kind, Math.round(m.rps), 'req/s', 'p50', m.p50, 'failed', m.failed);
await s.stop();
await dropDatabase();
