// Issue 28 point 2: the engine's peak memory under distinct GraphQL documents holding large string literals, sent
// without credentials (`--unauthorized-role anonymous`): `{ __type(name: "<i><20 MB>") { name } }`, one after the
// other. Before the plan cache was bounded by bytes, the engine died of heap exhaustion after 67 such documents.
// The figure is the engine process's peak resident set size (VmHWM of /proc/<pid>/status, Linux), read before it stops.
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import { progress } from './lib.mjs';
import { startEngineProcess } from './engine-process.mjs';

const GROUP = 'graphql memory';
export const SIZES = { full: { documents: 200, mb: 20 }, quick: { documents: 40, mb: 20 } };
// PGlite's own peak at start-up is 300–400 MB; a request reads its 20 MB body, parses it and holds the text a few times.
const GOAL_MB = 768;

const peakMb = (pid) => Number(/VmHWM:\s*(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;

export async function run({ quick = false, kinds, add }) {
  const { documents, mb } = quick ? SIZES.quick : SIZES.full;
  for (const kind of kinds.filter((k) => k === 'pglite' || k === 'postgres')) {
    progress(`${GROUP}: ${kind}, ${documents} documents of ${mb} MB as anonymous`);
    const e = await startEngineProcess(kind, { args: ['--unauthorized-role', 'anonymous'] });
    const agent = new Agent({ connections: 1 });
    try {
      const before = peakMb(e.pid);
      const literal = 'x'.repeat(mb * 1024 * 1024);
      for (let i = 0; i < documents; i++) {
        const res = await request(`${e.baseUrl}/v1/graphql`, {
          method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json' },
          body: `{"query":"{ __type(name: \\"${i}${literal}\\") { name } }"}`,
        });
        const text = await res.body.text();
        if (res.statusCode !== 200 || text !== '{"data":{"__type":null}}') throw new Error(`document ${i}: HTTP ${res.statusCode}: ${text.slice(0, 300)}`);
      }
      const peak = peakMb(e.pid);
      progress(`  peak RSS ${before.toFixed(0)} MB after start-up, ${peak.toFixed(0)} MB after ${documents} documents`);
      add({
        group: GROUP, figure: `engine peak RSS: ${documents} distinct ${mb} MB documents as anonymous`, database: kind, value: peak, unit: 'MB',
        goal: `≤ ${GOAL_MB} MB`, ratio: peak / GOAL_MB, pass: peak <= GOAL_MB,
      });
    } finally {
      await agent.close();
      await e.close();
    }
  }
}
