import { describe, expect, it } from 'vitest';
import { post, useTestEngine, type TestEngine } from '../helpers/engine.js';

// Issue 29.6: the incumbent's projects read the session in triggers and functions with
// current_setting('hasura.user') (JSON, x-hasura- keys); the engine sets it next to engine.session_variables.

const SQL = `CREATE TABLE note (id serial PRIMARY KEY, body text, seen text, seen_engine text);
CREATE FUNCTION note_who() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  NEW.seen := current_setting('hasura.user', true); NEW.seen_engine := current_setting('engine.session_variables', true); RETURN NEW; END $$;
CREATE TRIGGER note_who BEFORE INSERT ON note FOR EACH ROW EXECUTE FUNCTION note_who();`;

const setup = async (e: TestEngine): Promise<void> => {
  await e.sql(SQL);
  await e.ok({ type: 'pg_track_table', args: { table: 'note' } });
  await e.ok({ type: 'pg_create_insert_permission', args: { table: 'note', role: 'user', permission: { columns: ['body'], check: {} } } });
  await e.ok({ type: 'pg_create_select_permission', args: { table: 'note', role: 'user', permission: { columns: ['seen', 'seen_engine'], filter: {} } } });
};

describe("current_setting('hasura.user') in a mutation", () => {
  const e = useTestEngine({ setup });

  it('holds the session variables under x-hasura- keys, whichever prefix the client sent', async () => {
    const r = await post(`${e.url}/v1/graphql`, { query: 'mutation { insert_note_one(object: {body: "x"}) { seen seen_engine } }' },
      { 'x-hasura-role': 'user', 'X-Engine-User-Id': '7' });
    expect(r.status).toBe(200);
    const { seen, seen_engine: engine } = r.body.data.insert_note_one as { seen: string; seen_engine: string };
    expect(JSON.parse(seen)).toEqual({ 'x-hasura-role': 'user', 'x-hasura-user-id': '7' });
    expect(JSON.parse(engine)).toEqual({ 'x-engine-role': 'user', 'x-engine-user-id': '7' });
  });

  it('run_sql sees it too (admin)', async () => {
    const r = await e.sql("SELECT current_setting('hasura.user', true) AS u");
    expect(JSON.parse(r.result[1][0] as string)).toEqual({ 'x-hasura-role': 'admin' });
  });
});
