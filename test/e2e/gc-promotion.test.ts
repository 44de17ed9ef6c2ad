import { afterEach, describe, expect, it } from 'vitest';
import { EXTERNAL_URL, post } from '../helpers/engine.js';
import { eventually } from '../helpers/webhook.js';
import { BIN, tempDir } from './cli-helpers.js';
import { externalDatabase, ok, runNode, stopAll } from './process-helpers.js';

// Issue 28 (the collector's share of a cheap request): what a request allocates must die young. An object literal with
// a getter in the request path gave every request a hidden class of its own whose getter held the request's scope;
// V8's scavenges keep what such a class reaches until a full collection, so about 3.7 KB of every request was promoted
// and the collector did 4–10× the work per request. The real `engine serve` under --trace-gc-nvp counts the bytes its
// scavenges promote over sequential requests (a figure of memory, not of time).

afterEach(stopAll);

const REQUESTS = 3000;

describe('requests die young', () => {
  it('sequential GraphQL queries by primary key promote under 1 KB per request', async () => {
    const cwd = await tempDir();
    const db = EXTERNAL_URL ? ['--database-url', await externalDatabase('engine_gc')] : ['--data-dir', `${cwd}/data`];
    const p = runNode(['--trace-gc-nvp', BIN, 'serve', '--port', '0', ...db], cwd, { ENGINE_GRAPHQL_ENABLED_LOG_TYPES: 'startup' });
    const url = (await eventually(() => {
      if (p.child.exitCode !== null) throw new Error(`engine serve ended: ${p.err()}`);
      return /Engine listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(p.out())?.[1];
    }, 45_000, 'the listening line'));
    await ok(url, { type: 'run_sql', args: { sql: "CREATE TABLE gc_t (id int PRIMARY KEY, name text); INSERT INTO gc_t SELECT i, 'name ' || i FROM generate_series(1, 100) i" } });
    await ok(url, { type: 'pg_track_table', args: { table: 'gc_t' } });
    const query = 'query ($id: Int!) { gc_t_by_pk(id: $id) { id name } }';
    const one = async (i: number): Promise<void> => {
      const r = await post(`${url}/v1/graphql`, { query, variables: { id: 1 + (i % 100) } });
      if (r.status !== 200 || (r.body as { errors?: unknown }).errors) throw new Error(`${r.status} ${r.text}`);
    };
    for (let i = 0; i < 1000; i++) await one(i);
    // Only the main thread's isolate, where requests are served: the embedded database's worker thread has its own
    // (PGlite's work), whose lines start later, once the engine has loaded its modules.
    const isolate = (l: string): string | undefined => /^\[\d+:(0x[0-9a-f]+)\]/.exec(l)?.[1];
    const main = isolate(p.out().split('\n').find((l) => l.includes(' gc=')) ?? '');
    // Each scavenge of the main isolate with the number of requests answered when its line was read.
    const scavenges: { promoted: number; at: number }[] = [];
    let read = p.out().length;
    const collect = (at: number): void => {
      const out = p.out();
      const end = out.lastIndexOf('\n') + 1;
      if (end <= read) return;
      for (const l of out.slice(read, end).split('\n')) {
        if (l.includes(' gc=s ') && isolate(l) === main) scavenges.push({ promoted: Number(/ promoted=(\d+)/.exec(l)?.[1] ?? 0), at });
      }
      read = end;
    };
    for (let i = 0; i < REQUESTS; i++) {
      await one(i);
      collect(i + 1);
    }
    // V8 promotes what survives two scavenges: the first two after the warm-up promote what the warm-up left alive
    // (caches filled once, code feedback; up to a megabyte on PostgreSQL), not the requests measured. What the later
    // ones promote, over the requests answered between the second and the last, is what a request leaves behind.
    expect(scavenges.length).toBeGreaterThan(3);
    const later = scavenges.slice(2);
    const promoted = later.reduce((sum, s) => sum + s.promoted, 0);
    const requests = scavenges[scavenges.length - 1]!.at - scavenges[1]!.at;
    expect(requests).toBeGreaterThan(0);
    expect(promoted / requests).toBeLessThan(1024);
  }, 180_000);
});
