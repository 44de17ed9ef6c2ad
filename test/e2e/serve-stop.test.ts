/**
 * End-to-end (issue 28): `engine serve` stopped by SIGTERM while a GraphQL statement runs stops accepting, lets the
 * request run for the grace period, then cancels it (a timeout error for its client) and exits 0. On the embedded
 * database the statement runs in a worker thread, so the signal is handled at all; on PostgreSQL when
 * ENGINE_TEST_DATABASE_URL is set.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EXTERNAL_URL, post } from '../helpers/engine.js';
import { eventually } from '../helpers/webhook.js';
import { tempDir } from './cli-helpers.js';
import { externalDatabase, finished, ok, serve, stopAll } from './process-helpers.js';

afterEach(stopAll);

describe(`engine serve stopped with a statement in flight (${EXTERNAL_URL ? 'PostgreSQL' : 'embedded'})`, () => {
  it('SIGTERM: the statement is cancelled after --graceful-shutdown-timeout, its client answered, exit 0', async () => {
    const dir = await tempDir();
    const db = EXTERNAL_URL ? ['--database-url', await externalDatabase('engine_stop')] : ['--data-dir', join(dir, 'data')];
    const { p, url } = await serve(dir, [...db, '--graceful-shutdown-timeout', '1', '--query-timeout', '600']);
    await ok(url, { type: 'run_sql', args: { sql: 'CREATE VIEW slow AS SELECT 1 AS id FROM pg_sleep(600)' } });
    await ok(url, { type: 'track_table', args: { table: 'slow' } });
    const slow = post(`${url}/v1/graphql`, { query: '{ slow { id } }' });
    // The request has reached the engine (its connection was accepted before this one's).
    await eventually(async () => (await fetch(`${url}/healthz`)).status === 200, 30_000, '/healthz');
    p.child.kill('SIGTERM');
    const r = await slow;
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ errors: [{ message: 'the operation was cancelled: the engine is stopping', extensions: { path: '$', code: 'timeout' } }] });
    // Well before the statement would have ended.
    expect(await finished(p, 60_000)).toBe(0);
    expect(p.err()).toContain('Engine stopped.');
  }, 180_000);
});
