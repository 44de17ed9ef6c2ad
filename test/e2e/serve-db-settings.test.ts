/**
 * End-to-end (issue 31 point 7): the database settings of `engine serve` through the real bin: flags and variables
 * reach the pool and the replicas; bad values stop it before anything starts.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EXTERNAL_URL, post } from '../helpers/engine.js';
import { tempDir } from './cli-helpers.js';
import { externalDatabase, finished, ok, run, serve, stopAll } from './process-helpers.js';

afterEach(stopAll);

describe('engine serve database settings', () => {
  it('refuses a bad pool setting (flag: exit 64) and replicas without an external primary (exit 1)', async () => {
    const dir = await tempDir();
    const bad = run(['serve', '--port', '0', '--data-dir', join(dir, 'data'), '--pg-connections', '0'], dir);
    expect(await finished(bad)).toBe(64);
    expect(bad.err()).toContain('invalid value "0" for --pg-connections: expected a positive integer');
    const env = run(['serve', '--port', '0', '--data-dir', join(dir, 'data')], dir, { ENGINE_GRAPHQL_PG_POOL_TIMEOUT: 'soon' });
    expect(await finished(env)).toBe(1);
    expect(env.err()).toContain('invalid value for "pg_pool_timeout" from ENGINE_GRAPHQL_PG_POOL_TIMEOUT: expected a number of seconds ≥ 0');
    const replicas = run(['serve', '--port', '0', '--data-dir', join(dir, 'data'), '--read-replica-urls', 'postgres://postgres:hunter2@127.0.0.1:1/x'], dir);
    expect(await finished(replicas)).toBe(1);
    expect(replicas.err()).toContain('read replicas need an external primary: --read-replica-urls is given without --database-url');
    expect(replicas.err()).not.toContain('hunter2');
  });

  it.skipIf(!EXTERNAL_URL)('serves with the pool flags, --no-prepared-statements and a replica from the variable', async () => {
    const dir = await tempDir();
    const db = await externalDatabase('engine_dbset');
    const { url, p } = await serve(dir, ['--database-url', db, '--pg-connections', '2', '--pg-timeout', '1', '--pg-conn-lifetime', '60', '--pg-pool-timeout', '5', '--no-prepared-statements'], {
      ENGINE_GRAPHQL_READ_REPLICA_URLS: db,
    });
    expect(p.err()).toContain(`Read replicas for GraphQL queries: ${db}`);
    await ok(url, { type: 'run_sql', args: { sql: 'CREATE TABLE t (id int PRIMARY KEY); INSERT INTO t VALUES (1)' } });
    await ok(url, { type: 'track_table', args: { table: 't' } });
    const r = await post(`${url}/v1/graphql`, { query: '{ t { id } }' });
    expect(r.body).toEqual({ data: { t: [{ id: 1 }] } });
  });
});
