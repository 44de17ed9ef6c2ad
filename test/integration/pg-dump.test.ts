import { expect, it } from 'vitest';
import { post, useTestEngine } from '../helpers/engine.js';

const e = useTestEngine();

// The embedded pg_dump shares the engine's one PGlite session, and pg_dump 17.6 forbids expanding user views in it
// (restrict_nonsystem_relation_kind): the engine must leave the session as it found it.
it('after POST /v1alpha1/pg_dump, views are readable again: a user view and engine_catalog.metadata', async () => {
  await e.sql('create table t (id int); insert into t values (1); create view v as select id from t');
  const dump = await post(`${e.url}/v1alpha1/pg_dump`, { opts: ['--schema-only', '--schema', 'public'], clean_output: true });
  expect(dump.status).toBe(200);
  expect(dump.text).toContain('CREATE VIEW public.v');
  expect(await e.sql('select id from v')).toEqual({ result_type: 'TuplesOk', result: [['id'], ['1']] });
  expect(await e.sql('select resource_version from engine_catalog.metadata')).toEqual({ result_type: 'TuplesOk', result: [['resource_version'], ['1']] });
});
