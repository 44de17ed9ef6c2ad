import { describe, expect, it } from 'vitest';
import { GraphqlService } from '../../src/server/graphql/service.js';
import { createHttpServer, listen } from '../../src/server/http/index.js';
import { silentLogger } from '../../src/logger.js';
import type { Database } from '../../src/db/database.js';
import { post } from '../helpers/engine.js';
import { gql, useExampleEngine, USER2 } from './graphql-fixture.js';

// graphql-api.md §6.1 rows 33 and 35, §6.2: PostgreSQL errors by SQLSTATE (internal for admin only) and internal
// failures as HTTP 500 with the GraphQL body.

const e = useExampleEngine();

describe('§6.2 PostgreSQL errors', () => {
  it('RAISE EXCEPTION in a function is postgres-error with its message; admins also get internal', async () => {
    await e.sql(`CREATE FUNCTION author_boom(a author) RETURNS text STABLE LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'no %', a.name; END $$;`);
    await e.ok({ type: 'add_computed_field', args: { table: 'author', name: 'boom', definition: { function: 'author_boom' } } });
    const r = await gql(e, { query: '{ x: author_by_pk(id: 1) { boom } }' });
    expect(r.body.errors[0].message).toBe('no Ann');
    expect(r.body.errors[0].extensions).toMatchObject({ path: '$.selectionSet.x', code: 'postgres-error', internal: { error: { status_code: 'P0001', message: 'no Ann' } } });
  });

  it('a division by zero is a data-exception; another SQLSTATE is unexpected "database query error"', async () => {
    await e.sql(`CREATE FUNCTION author_ratio(a author) RETURNS numeric STABLE LANGUAGE sql AS $$ SELECT 1 / (a.id - a.id) $$;
      CREATE FUNCTION author_lock(a author) RETURNS text STABLE LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION USING ERRCODE = '55P03', MESSAGE = 'locked'; END $$;`);
    await e.ok({ type: 'add_computed_field', args: { table: 'author', name: 'ratio', definition: { function: 'author_ratio' } } });
    await e.ok({ type: 'add_computed_field', args: { table: 'author', name: 'locked', definition: { function: 'author_lock' } } });
    await e.ok({ type: 'create_select_permission', args: { table: 'author', role: 'viewer', permission: { columns: ['id'], computed_fields: ['locked'], filter: {} } } });
    expect((await gql(e, { query: '{ author { ratio } }' }, USER2)).body.errors[0].message).toBe('field "ratio" not found in type: \'author\'');
    const div = await gql(e, { query: '{ author { ratio } }' });
    expect(div.body.errors[0]).toMatchObject({ message: 'division by zero', extensions: { path: '$.selectionSet.author', code: 'data-exception' } });
    const other = await gql(e, { query: '{ author { locked } }' }, { 'x-engine-role': 'viewer' });
    expect(other.body).toEqual({ errors: [{ message: 'database query error', extensions: { path: '$.selectionSet.author', code: 'unexpected' } }] });
  });
});

describe('§6.1 row 35 internal failures', () => {
  it('answer HTTP 500 with the GraphQL internal error body', async () => {
    const broken: Database = { ...e.db, kind: e.db.kind, query: e.db.query.bind(e.db), runScript: e.db.runScript.bind(e.db), close: async () => {},
      transaction: async () => { throw new Error('connection lost'); }, batch: async () => { throw new Error('connection lost'); } };
    const service = new GraphqlService({ db: broken, freshCache: () => e.engine.freshCache(), heldCache: () => e.engine.heldCache() });
    const logged: string[] = [];
    const server = createHttpServer(e.engine, { logger: { ...silentLogger, error: (m: string) => logged.push(m) }, graphql: service });
    const addr = await listen(server, 0, '127.0.0.1');
    try {
      const r = await post(`http://127.0.0.1:${addr.port}/v1/graphql`, { query: '{ author { id } }' });
      expect(r.status).toBe(500);
      expect(r.text).toBe('{"errors":[{"message":"internal error","extensions":{"path":"$","code":"unexpected"}}]}');
      expect(logged.join('\n')).toContain('connection lost');
      const typename = await post(`http://127.0.0.1:${addr.port}/v1/graphql`, { query: '{ __typename }' });
      expect(typename.body).toEqual({ data: { __typename: 'query_root' } });
    } finally {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    }
  });
});
