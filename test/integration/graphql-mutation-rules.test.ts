import { describe, expect, it } from 'vitest';
import { ADMIN, as, gqlErr, q, useExampleEngine, USER1, USER2, type Headers } from './graphql-fixture.js';

// graphql-api.md §6.2 (every SQLSTATE row), §4.2 presets, §4.1 session variables seen by event triggers, §2.7/§8
// (views, materialized views, generated and identity columns, no or composite primary key) and the §6.1 rows in
// mutation position. Every error also proves that nothing changed.

const e = useExampleEngine();

type ErrBody = { errors: { message: string; extensions: { path: string; code: string; internal?: { error: { status_code: string } } } }[] };

async function snapshot(tables: string[]): Promise<unknown> {
  const parts = tables.map((t) => `(SELECT json_agg(x ORDER BY x::text) FROM ${t} x)::text AS "${t}"`);
  const r = await e.sql(`SELECT ${parts.join(', ')}, (SELECT count(*) FROM engine_catalog.event_log) AS events`);
  return r.result[1];
}

/** The error answered for `query`, after checking that the tables (and event_log) did not change. */
async function failing(query: string, headers: Headers = ADMIN, tables = ['author', 'article']): Promise<ErrBody['errors'][0]> {
  const before = await snapshot(tables);
  const body = await q(e, query, headers) as ErrBody;
  expect(body.errors).toHaveLength(1);
  expect(await snapshot(tables)).toEqual(before);
  return body.errors[0] as ErrBody['errors'][0];
}

describe('§6.2 PostgreSQL errors by SQLSTATE', () => {
  const rows: [string, string, string, string, string][] = [
    ['23503', 'mutation { insert_article(objects: [{title: "X", author_id: 99}]) { affected_rows } }', 'insert_article', 'constraint-violation',
      'Foreign key violation. insert or update on table "article" violates foreign key constraint "article_author_id_fkey"'],
    ['23502', 'mutation { insert_article_one(object: {title: null, author_id: 1}) { id } }', 'insert_article_one', 'constraint-violation',
      'Not-NULL violation. null value in column "title" of relation "article" violates not-null constraint'],
    ['23503', 'mutation { delete_author_by_pk(id: 1) { id } }', 'delete_author_by_pk', 'constraint-violation',
      'Foreign key violation. update or delete on table "author" violates foreign key constraint "article_author_id_fkey" on table "article"'],
    ['22P02', 'mutation { update_article(where: {}, _set: {views: "abc"}) { affected_rows } }', 'update_article', 'data-exception',
      'invalid input syntax for type bigint: "abc"'],
  ];
  for (const [state, query, key, code, message] of rows) {
    it(`${state}: ${message}`, async () => {
      const err = await failing(query);
      expect(err.message).toBe(message);
      expect(err.extensions.path).toBe(`$.selectionSet.${key}`);
      expect(err.extensions.code).toBe(code);
      expect(err.extensions.internal?.error.status_code).toBe(state);
    });
  }

  it('23514, 23P01, 23001, other 23…, P0001 and anything else', async () => {
    await e.sql(`ALTER TABLE author ADD CONSTRAINT rating_max CHECK (rating <= 5);
      CREATE TABLE booking (id serial PRIMARY KEY, during int4range, EXCLUDE USING gist (during WITH &&));
      INSERT INTO booking (during) VALUES ('[1,5)');
      CREATE FUNCTION guard() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
        IF NEW.name = 'restrict' THEN RAISE EXCEPTION 'kept by a rule' USING ERRCODE = 'restrict_violation'; END IF;
        IF NEW.name = 'integrity' THEN RAISE EXCEPTION 'generic integrity' USING ERRCODE = 'integrity_constraint_violation'; END IF;
        IF NEW.name = 'raise' THEN RAISE EXCEPTION 'names must not be raise'; END IF;
        IF NEW.name = 'denied' THEN RAISE EXCEPTION 'no' USING ERRCODE = 'insufficient_privilege'; END IF;
        RETURN NEW; END $$;
      CREATE TRIGGER guard BEFORE INSERT OR UPDATE ON author FOR EACH ROW EXECUTE FUNCTION guard();`);
    await e.ok({ type: 'track_table', args: 'booking' });
    const cases: [string, string, string, string][] = [
      ['mutation { update_author(where: {}, _set: {rating: 9}) { affected_rows } }', 'update_author', 'constraint-violation',
        'Check constraint violation. new row for relation "author" violates check constraint "rating_max"'],
      ['mutation { insert_booking(objects: [{during: "[3,8)"}]) { affected_rows } }', 'insert_booking', 'constraint-violation',
        'Exclusion violation. conflicting key value violates exclusion constraint "booking_during_excl"'],
      ['mutation { insert_author_one(object: {name: "restrict"}) { id } }', 'insert_author_one', 'constraint-violation',
        'Can not delete or update due to data being referred. kept by a rule'],
      ['mutation { insert_author_one(object: {name: "integrity"}) { id } }', 'insert_author_one', 'constraint-violation', 'generic integrity'],
      ['mutation { insert_author_one(object: {name: "raise"}) { id } }', 'insert_author_one', 'postgres-error', 'names must not be raise'],
      ['mutation { insert_author_one(object: {name: "denied"}) { id } }', 'insert_author_one', 'unexpected', 'database query error'],
    ];
    for (const [query, key, code, message] of cases) {
      const err = await failing(query, ADMIN, ['author', 'article', 'booking']);
      expect({ message: err.message, path: err.extensions.path, code: err.extensions.code }).toEqual({ message, path: `$.selectionSet.${key}`, code });
    }
    // A non-admin never sees internal.
    await e.ok({ type: 'create_update_permission', args: { table: 'author', role: 'user', permission: { columns: ['name'], filter: {} } } });
    expect(await q(e, 'mutation { update_author(where: {id: {_eq: 1}}, _set: {name: "denied"}) { affected_rows } }', USER1))
      .toEqual(gqlErr('database query error', '$.selectionSet.update_author', 'unexpected'));
  });
});

describe('§4.2 presets and session variables', () => {
  it('static values, session variables and NOW() fill preset columns; clients cannot write them', async () => {
    await e.sql('CREATE TABLE note (id serial PRIMARY KEY, body text, owner integer, kind text, at timestamptz, edited_at timestamptz, editor text)');
    await e.ok({ type: 'bulk', args: [
      { type: 'track_table', args: 'note' },
      { type: 'create_select_permission', args: { table: 'note', role: 'user', permission: { columns: '*', filter: { owner: 'X-Engine-User-Id' } } } },
      { type: 'create_insert_permission', args: { table: 'note', role: 'user', permission: { columns: '*', check: {}, set: { owner: 'x-engine-user-id', kind: 'memo', at: 'now()' } } } },
      { type: 'create_update_permission', args: { table: 'note', role: 'user', permission: { columns: ['body'], filter: { owner: 'X-Engine-User-Id' }, set: { edited_at: 'NOW()', editor: 'X-Engine-Name' } } } },
    ] });
    const r = await q(e, 'mutation { a: insert_note_one(object: {body: "b"}) { id owner kind } b: insert_note(objects: [{body: "c"}, {body: "d"}]) { returning { at } } }', as('user', 7)) as { data: { a: unknown; b: { returning: { at: string }[] } } };
    expect(r.data.a).toEqual({ id: 1, owner: 7, kind: 'memo' });
    const [x, y] = r.data.b.returning;
    expect(x?.at).toBe(y?.at); // one transaction timestamp for every row of the mutation
    expect(await q(e, 'mutation { insert_note_one(object: {body: "b", owner: 1}) { id } }', as('user', 7)))
      .toEqual(gqlErr('field "owner" not found in type: \'note_insert_input\'', '$.selectionSet.insert_note_one.args.object.owner', 'validation-failed'));
    expect(await q(e, 'mutation { update_note_by_pk(pk_columns: {id: 1}, _set: {body: "e"}) { body editor edited_at } }', { ...as('user', 7), 'x-engine-name': 'Eve' }))
      .toMatchObject({ data: { update_note_by_pk: { body: 'e', editor: 'Eve', edited_at: expect.stringMatching(/^\d{4}-/) } } });
    // Only the variables the used permissions reference are required; a missing one fails before any SQL.
    expect(await q(e, 'mutation { update_note_by_pk(pk_columns: {id: 1}, _set: {body: "f"}) { body } }', as('user', 7)))
      .toEqual(gqlErr('missing session variable: "x-engine-name"', '$', 'not-found'));
  });

  it('an event trigger records the session variables of the user who inserted the row', async () => {
    await e.ok({ type: 'create_event_trigger', args: { name: 'article_ins', table: 'article', webhook: 'http://127.0.0.1:9/hook', insert: { columns: '*' } } });
    await q(e, 'mutation { insert_article(objects: [{title: "New"}]) { affected_rows } }', USER1);
    const rows = await e.db.query<{ payload: { session_variables: unknown; data: { new: { author_id: number } } } }>('SELECT payload FROM engine_catalog.event_log');
    expect(rows).toHaveLength(1);
    expect(rows[0]?.payload.session_variables).toEqual({ 'x-engine-role': 'user', 'x-engine-user-id': '1' });
    expect(rows[0]?.payload.data.new.author_id).toBe(1);
    // A rolled-back mutation leaves no event row.
    const err = await failing('mutation { a: insert_article(objects: [{title: "Other"}]) { affected_rows } b: insert_article(objects: [{title: "Other"}]) { affected_rows } }', USER1);
    expect(err.message).toMatch(/^Uniqueness violation/);
  });

  it('the database\'s own row triggers see the session variables, before and after the write, in every kind of mutation', async () => {
    // An audit pattern of the incumbent's users: triggers reading the session variables of the request.
    await e.sql(`CREATE TABLE audit (op text, vars text);
      CREATE FUNCTION audit_row() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
        INSERT INTO audit VALUES (TG_WHEN || ' ' || TG_OP, current_setting('engine.session_variables', true));
        RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END; END $$;
      CREATE TRIGGER audit_before BEFORE INSERT OR UPDATE OR DELETE ON article FOR EACH ROW EXECUTE FUNCTION audit_row();
      CREATE TRIGGER audit_after AFTER INSERT OR UPDATE OR DELETE ON article FOR EACH ROW EXECUTE FUNCTION audit_row();`);
    await q(e, 'mutation { insert_article_one(object: {title: "Audited"}) { id } }', USER1);
    await q(e, 'mutation { update_article(where: {title: {_eq: "Audited"}}, _set: {content: "c"}) { affected_rows } }', USER1);
    await q(e, 'mutation { delete_article(where: {title: {_eq: "Audited"}}) { affected_rows } }', USER1);
    const vars = '{"x-engine-role":"user","x-engine-user-id":"1"}';
    expect(await e.db.query('SELECT op, vars FROM audit')).toEqual(['BEFORE INSERT', 'AFTER INSERT', 'BEFORE UPDATE', 'AFTER UPDATE', 'BEFORE DELETE', 'AFTER DELETE'].map((op) => ({ op, vars })));
  });
});

describe('on_conflict', () => {
  it('the update check applies to updated rows, reported at objects with the update message', async () => {
    await e.ok({ type: 'drop_update_permission', args: { table: 'article', role: 'user' } });
    await e.ok({ type: 'create_update_permission', args: { table: 'article', role: 'user', permission: { columns: ['title', 'content'], filter: { author_id: 'X-Engine-User-Id' }, check: { content: { _neq: 'bad' } } } } });
    const err = await failing('mutation { insert_article(objects: [{title: "Intro", content: "bad"}], on_conflict: {constraint: article_title_key, update_columns: [content]}) { affected_rows } }', USER1);
    expect(err).toEqual({ message: 'check constraint of an update permission has failed', extensions: { path: '$.selectionSet.insert_article.args.objects', code: 'permission-error' } });
    // A fresh row in the same statement is checked by the insert check: user 3's author is inactive.
    const ins = await failing('mutation { insert_article(objects: [{title: "Fresh"}], on_conflict: {constraint: article_title_key, update_columns: [content]}) { affected_rows } }', as('user', 3));
    expect(ins.message).toBe('check constraint of an insert permission has failed');
  });

  it('on_conflict.where narrows the updated rows; update_columns [] is DO NOTHING', async () => {
    expect(await q(e, 'mutation { insert_article(objects: [{title: "Intro", content: "n"}, {title: "Draft", content: "n"}], on_conflict: {constraint: article_title_key, update_columns: [content], where: {published: {_eq: true}}}) { affected_rows returning { id content } } }', USER1))
      .toEqual({ data: { insert_article: { affected_rows: 1, returning: [{ id: 1, content: 'n' }] } } });
    expect(await q(e, 'mutation { insert_article_one(object: {title: "News"}, on_conflict: {constraint: article_title_key}) { id } }', USER2))
      .toEqual({ data: { insert_article_one: null } });
  });
});

describe('§2.7, §8: relations and columns of every kind', () => {
  it('updatable views are written through, materialized views are read-only, generated and identity columns are never input', async () => {
    await e.sql(`CREATE VIEW active_author AS SELECT id, name, is_active FROM author WHERE is_active;
      CREATE MATERIALIZED VIEW author_names AS SELECT id, name FROM author;
      CREATE TABLE item (id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY, price numeric NOT NULL, qty integer NOT NULL DEFAULT 1,
        total numeric GENERATED ALWAYS AS (price * qty) STORED);
      CREATE TABLE pair (a integer, b integer, v text, PRIMARY KEY (a, b));
      CREATE TABLE log (msg text);`);
    for (const t of ['active_author', 'author_names', 'item', 'pair', 'log']) await e.ok({ type: 'track_table', args: t });
    expect(await q(e, 'mutation { insert_active_author_one(object: {name: "Vee"}) { id name is_active } }'))
      .toEqual({ data: { insert_active_author_one: { id: 4, name: 'Vee', is_active: true } } });
    expect(await q(e, 'mutation { update_active_author(where: {name: {_eq: "Vee"}}, _set: {name: "Vi"}) { affected_rows } }'))
      .toEqual({ data: { update_active_author: { affected_rows: 1 } } });
    expect(await q(e, 'mutation { insert_author_names(objects: []) { affected_rows } }'))
      .toEqual(gqlErr('field "insert_author_names" not found in type: \'mutation_root\'', '$.selectionSet.insert_author_names', 'validation-failed'));
    const inputs = await q(e, '{ i: __type(name: "item_insert_input") { inputFields { name } } s: __type(name: "item_set_input") { inputFields { name } } }') as { data: Record<string, { inputFields: { name: string }[] }> };
    expect(inputs.data['i']?.inputFields.map((f) => f.name)).toEqual(['price', 'qty']);
    expect(inputs.data['s']?.inputFields.map((f) => f.name)).toEqual(['price', 'qty']);
    expect(await q(e, 'mutation { insert_item_one(object: {price: "2.5", qty: 4}) { id total } update_item_by_pk(pk_columns: {id: 1}, _inc: {qty: 1}) { total } }'))
      .toEqual({ data: { insert_item_one: { id: 1, total: 10 }, update_item_by_pk: { total: 12.5 } } });
    expect(await q(e, 'mutation { insert_pair(objects: [{a: 1, b: 2, v: "x"}, {a: 1, b: 3}]) { affected_rows } update_pair_by_pk(pk_columns: {a: 1, b: 3}, _set: {v: "y"}) { a b v } delete_pair_by_pk(a: 1, b: 2) { v } }'))
      .toEqual({ data: { insert_pair: { affected_rows: 2 }, update_pair_by_pk: { a: 1, b: 3, v: 'y' }, delete_pair_by_pk: { v: 'x' } } });
    const names = (await q(e, '{ __schema { mutationType { fields { name } } } }') as { data: { __schema: { mutationType: { fields: { name: string }[] } } } })
      .data.__schema.mutationType.fields.map((f) => f.name).filter((n) => n.endsWith('_log') || n.endsWith('_log_by_pk') || n.endsWith('_log_one'));
    expect(names).toEqual(['delete_log', 'insert_log', 'insert_log_one', 'update_log']);
    expect(await q(e, 'mutation { insert_log_one(object: {}) { msg } }')).toEqual({ data: { insert_log_one: { msg: null } } });
  });
});

describe('§6.1 rows in mutation position', () => {
  const rows: [string, Headers, string, string][] = [
    ['mutation { insert_articles(objects: []) { affected_rows } }', USER2, 'field "insert_articles" not found in type: \'mutation_root\'', '$.selectionSet.insert_articles'],
    ['mutation { delete_article(where: {}, limit: 1) { affected_rows } }', USER2, '"delete_article" has no argument named "limit"', '$.selectionSet.delete_article.args.limit'],
    ['mutation { delete_article { affected_rows } }', USER2, 'missing required field "where"', '$.selectionSet.delete_article.args'],
    ['mutation { delete_article(where: {}) }', USER2, 'missing selection set for "article_mutation_response"', '$.selectionSet.delete_article'],
    ['mutation { delete_article(where: {}) { affected_rows { x } } }', USER2, 'unexpected selection set for "Int"', '$.selectionSet.delete_article.selectionSet.affected_rows'],
    ['mutation { insert_article(objects: [{title: "x"}], on_conflict: {constraint: nope}) { affected_rows } }', USER2, 'invalid value for type "article_constraint": nope', '$.selectionSet.insert_article.args.on_conflict.constraint'],
    ['mutation { update_article(where: {id: null}, _set: {title: "x"}) { affected_rows } }', USER2, 'null is not allowed for field "id"', '$.selectionSet.update_article.args.where.id'],
    ['mutation { update_article(where: {id: {_gt: null}}, _set: {title: "x"}) { affected_rows } }', USER2, 'null is not allowed for operator "_gt"', '$.selectionSet.update_article.args.where.id._gt'],
    ['mutation { insert_article_one(object: null) { id } }', USER2, 'null value found for non-nullable type: "article_insert_input!"', '$.selectionSet.insert_article_one.args.object'],
    ['mutation { insert_article(objects: [{title: $t}]) { affected_rows } }', USER2, 'variable "t" is not defined', '$.selectionSet.insert_article.args.objects[0].title'],
    ['mutation { update_article(where: {}, _set: {published: true}) { affected_rows } }', as('user'), 'missing session variable: "x-engine-user-id"', '$'],
    ['mutation ($o: [article_insert_input!]!) { insert_article(objects: $o) { affected_rows } }', USER2, 'expecting a value for non-nullable variable: "o"', '$.variables'],
    ['mutation ($t: Int) { insert_article(objects: [{title: $t}]) { affected_rows } }', USER2, 'variable "t" of type "Int" is used in position expecting "String"', '$.selectionSet.insert_article.args.objects[0].title'],
    ['mutation ($t: Nope) { insert_article(objects: [{title: "x"}]) { affected_rows } }', USER2, 'unknown type "Nope"', '$'],
    ['mutation { insert_article(objects: [{title: "x"}]) { ...F } }', USER2, 'unknown fragment "F"', '$'],
    ['mutation { insert_article(objects: [{title: "x"}]) { returning { author { articles(limit: -1) { id } } } } }', USER2, 'unexpected negative value', '$.selectionSet.insert_article.selectionSet.returning.selectionSet.author.selectionSet.articles.args.limit'],
    ['mutation { delete_article(where: {}) { returning { author { articles(distinct_on: [title], order_by: {id: asc}) { id } } } } }', USER2, '"distinct_on" columns must match initial "order_by" columns', '$.selectionSet.delete_article.selectionSet.returning.selectionSet.author.selectionSet.articles.args'],
  ];
  for (const [query, headers, message, path] of rows) {
    it(message, async () => {
      const err = await failing(query, headers);
      expect(err.message).toBe(message);
      expect(err.extensions.path).toBe(path);
    });
  }

  it('a role without mutations has no mutation_root', async () => {
    expect(await failing('mutation { delete_article(where: {}) { affected_rows } }', as('anonymous')))
      .toEqual({ message: 'no mutations exist', extensions: { path: '$', code: 'validation-failed' } });
    expect(await q(e, 'mutation { insert_article(objects: [{title: "x"}]) { affected_rows } }', USER2)).toMatchObject({ data: { insert_article: { affected_rows: 1 } } });
  });
});

describe('backend_only insert permissions (issue 12)', () => {
  it('are usable only with X-Engine-Use-Backend-Only-Permissions: true from a caller who may send headers', async () => {
    await e.ok({ type: 'create_insert_permission', args: { table: 'author', role: 'svc', permission: { columns: ['name'], check: {}, backend_only: true } } });
    const svc = as('svc');
    expect(await failing('mutation { insert_author(objects: [{name: "S"}]) { affected_rows } }', svc))
      .toEqual({ message: 'no mutations exist', extensions: { path: '$', code: 'validation-failed' } });
    expect(await failing('mutation { insert_author(objects: [{name: "S"}]) { affected_rows } }', { ...svc, 'x-engine-use-backend-only-permissions': 'false' }))
      .toMatchObject({ message: 'no mutations exist' });
    expect(await q(e, 'mutation { insert_author(objects: [{name: "S"}]) { affected_rows } }', { ...svc, 'X-Engine-Use-Backend-Only-Permissions': 'True' }))
      .toEqual({ data: { insert_author: { affected_rows: 1 } } });
    // The schema without the header is cached apart from the backend one.
    expect(await failing('mutation { insert_author(objects: [{name: "T"}]) { affected_rows } }', svc)).toMatchObject({ message: 'no mutations exist' });
  });
});
