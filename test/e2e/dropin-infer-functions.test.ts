/**
 * End-to-end (issue 29): HASURA_GRAPHQL_INFER_FUNCTION_PERMISSIONS=false (the incumbent's variable, read as the
 * fallback of ENGINE_GRAPHQL_INFER_FUNCTION_PERMISSIONS) reaches the running engine: a role gets a tracked function's
 * root field only once it has a function permission. The behaviour itself: test/integration/dropin-functions.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { post } from '../helpers/engine.js';
import { tempDir } from './cli-helpers.js';
import { ok, serve, stopAll } from './process-helpers.js';

afterEach(stopAll);

describe('engine serve with HASURA_GRAPHQL_INFER_FUNCTION_PERMISSIONS=false', () => {
  it('grants a function root field by function permission only', async () => {
    const dir = await tempDir();
    const { url } = await serve(dir, ['--data-dir', join(dir, 'data')], { HASURA_GRAPHQL_INFER_FUNCTION_PERMISSIONS: 'false' });
    await ok(url, { type: 'run_sql', args: { sql: `CREATE TABLE t (id int PRIMARY KEY); INSERT INTO t VALUES (1);
      CREATE FUNCTION all_t() RETURNS SETOF t STABLE LANGUAGE sql AS $$ SELECT * FROM t $$` } });
    await ok(url, { type: 'track_table', args: 't' });
    await ok(url, { type: 'track_function', args: 'all_t' });
    await ok(url, { type: 'create_select_permission', args: { table: 't', role: 'user', permission: { columns: ['id'], filter: {} } } });
    const asUser = async () => (await post(`${url}/v1/graphql`, { query: '{ all_t { id } }' }, { 'x-hasura-role': 'user' })).body;
    expect(await asUser()).toEqual({ errors: [{ message: 'field "all_t" not found in type: \'query_root\'', extensions: { path: '$.selectionSet.all_t', code: 'validation-failed' } }] });
    await ok(url, { type: 'create_function_permission', args: { function: 'all_t', role: 'user' } });
    expect(await asUser()).toEqual({ data: { all_t: [{ id: 1 }] } });
  });
});
