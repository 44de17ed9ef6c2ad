import { describe, expect, it } from 'vitest';
import { useTestEngine } from '../helpers/engine.js';
import { err, expectError, exported, qt, write } from '../helpers/assertions.js';

// add_computed_field (engine-api.md §4.5.1), its export (§6.1–§6.3), the §1.7 multi-reason layout, the §3.4
// constraint-violation records; §7 rows 10, 24, 38, 47, 48, 49.

const e = useTestEngine({ setup: async () => {
  await e.sql(`create table author (id int primary key, first_name text, last_name text);
    create table article (id int primary key, author_id int references author(id), title text);
    create table secret (id int primary key, author_id int);
    create schema billing;
    create table billing.customer (id int primary key, author_id int);
    create type pair as (a int, b int);
    create function author_full_name(a author) returns text stable language sql as $$ select a.first_name || ' ' || a.last_name $$;
    create function author_initial(a author) returns text immutable language sql as $$ select left(a.first_name, 1) $$;
    create function author_prefixed(prefix text, who author) returns text stable language sql as $$ select prefix || who.last_name $$;
    create function author_greeting(a author, session json) returns text stable language sql as $$ select session->>'x-engine-role' $$;
    create function author_greeting_b(a author, session jsonb) returns text stable language sql as $$ select session->>'x-engine-role' $$;
    create function author_articles(a author) returns setof article stable language sql as $$ select * from article where author_id = a.id $$;
    create function author_latest(a author) returns article stable language sql as $$ select * from article where author_id = a.id order by id desc limit 1 $$;
    create function author_volatile(a author) returns text volatile language sql as $$ select a.first_name $$;
    create function fetch_articles_volatile(a author) returns setof article volatile language sql as $$ select * from article where author_id = a.id $$;
    create function author_over(a author) returns text stable language sql as $$ select a.first_name $$;
    create function author_over(a author, n int) returns text stable language sql as $$ select a.first_name $$;
    create function no_args() returns text stable language sql as $$ select 'x' $$;
    create function int_first(n int) returns text stable language sql as $$ select n::text $$;
    create function article_title(r article) returns text stable language sql as $$ select r.title $$;
    create function customer_name(c billing.customer) returns text stable language sql as $$ select c.id::text $$;
    create function author_text_session(a author, s text) returns text stable language sql as $$ select s $$;
    create function author_void(a author) returns void stable language plpgsql as $$ begin end $$;
    create function author_record(a author) returns record stable language sql as $$ select 1, 2 $$;
    create function author_pair(a author) returns pair stable language sql as $$ select row(1, 2)::pair $$;
    create function author_ids(a author) returns setof integer stable language sql as $$ select 1 $$;
    create function author_secrets(a author) returns setof secret stable language sql as $$ select * from secret $$;
    create function author_secret(a author) returns secret stable language sql as $$ select * from secret limit 1 $$;
    create schema fns;
    create function fns.author_upper(a author) returns text stable language sql as $$ select upper(a.first_name) $$;`);
  await e.ok({ type: 'bulk', args: [
    { type: 'track_table', args: 'author' },
    { type: 'track_table', args: 'article' },
    { type: 'track_table', args: { schema: 'billing', name: 'customer' } },
    { type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } },
  ] });
} });

const add = (table: unknown, name: string, definition: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  ({ type: 'add_computed_field', args: { table, name, definition, ...extra } });

/** The stored definition: function as a QT object, then table_argument and session_argument when given (§6.1). */
function storedDefinition(def: { function: string | { schema: string; name: string }; table_argument?: string; session_argument?: string }) {
  const out: Record<string, unknown> = { function: typeof def.function === 'string' ? qt(def.function) : def.function };
  if (def.table_argument !== undefined) out['table_argument'] = def.table_argument;
  if (def.session_argument !== undefined) out['session_argument'] = def.session_argument;
  return out;
}

/** A §7 row 47–49 body: constraint-violation with one computed_field record (§3.4). */
function violation(table: { schema: string; name: string }, name: string, def: Parameters<typeof storedDefinition>[0], reason: string, comment?: string) {
  const t = table.schema === 'public' ? table.name : `${table.schema}.${table.name}`;
  const error = `in table "${t}": in computed field "${name}": ${reason}`;
  const definition: Record<string, unknown> = { table, name, definition: storedDefinition(def) };
  if (comment !== undefined) definition['comment'] = comment;
  return { path: '$.args', error, code: 'constraint-violation', internal: [{ definition, reason: error, type: 'computed_field' }] };
}

/** Row 49: the head with one reason inline, several as the §1.7 bulleted list with a trailing newline. */
function requirements(name: string, table: string, reasons: string[]): string {
  const head = `the computed field "${name}" cannot be added to table "${table}"`;
  return reasons.length === 1 ? `${head} because ${reasons[0]}` : `${head} for the following reasons:\n${reasons.map((r) => `  • ${r}\n`).join('')}`;
}

describe('add_computed_field: success (§4.5.1, §6)', () => {
  it('adds scalar, table_argument, session_argument and table-returning fields and exports them sorted by name', async () => {
    await write(e, add('author', 'full_name', { function: 'author_full_name' }, { comment: 'first and last' }));
    await write(e, add({ name: 'author' }, 'initial', { function: { schema: 'public', name: 'author_initial' } }, { comment: null }));
    await write(e, add('author', 'prefixed', { function: 'author_prefixed', table_argument: 'who' }));
    await write(e, add('author', 'greeting', { function: 'author_greeting', session_argument: 'session' }));
    await write(e, add('author', 'greeting_b', { function: 'author_greeting_b', table_argument: 'a', session_argument: 'session' }));
    await write(e, add('author', 'all_articles', { function: 'author_articles' }));
    await write(e, add('author', 'latest_article', { function: 'author_latest' }));
    await write(e, add('author', 'upper', { function: { schema: 'fns', name: 'author_upper' } }, { comment: '' }));
    await write(e, add({ schema: 'billing', name: 'customer' }, 'label', { function: 'customer_name' }));
    const x = await exported(e);
    expect(x.version).toBe('11');
    expect(x.text).toBe(JSON.stringify({
      version: 2,
      tables: [
        { table: qt('customer', 'billing'), computed_fields: [{ name: 'label', definition: { function: qt('customer_name') } }] },
        { table: qt('article') },
        {
          table: qt('author'),
          array_relationships: [{ name: 'articles', using: { foreign_key_constraint_on: { table: qt('article'), column: 'author_id' } } }],
          computed_fields: [
            { name: 'all_articles', definition: { function: qt('author_articles') } },
            { name: 'full_name', definition: { function: qt('author_full_name') }, comment: 'first and last' },
            { name: 'greeting', definition: { function: qt('author_greeting'), session_argument: 'session' } },
            { name: 'greeting_b', definition: { function: qt('author_greeting_b'), table_argument: 'a', session_argument: 'session' } },
            { name: 'initial', definition: { function: qt('author_initial') } },
            { name: 'latest_article', definition: { function: qt('author_latest') } },
            { name: 'prefixed', definition: { function: qt('author_prefixed'), table_argument: 'who' } },
            { name: 'upper', definition: { function: qt('author_upper', 'fns') }, comment: '' },
          ],
        },
      ],
    }));
    expect(await e.ok({ type: 'get_inconsistent_metadata', args: {} })).toEqual({ is_consistent: true, inconsistent_objects: [] });
  });

  it('exports the same bytes after export → replace → export (§6.3)', async () => {
    await write(e, add('author', 'full_name', { function: 'author_full_name' }));
    await write(e, add('author', 'greeting', { function: 'author_greeting', session_argument: 'session' }, { comment: 'hi' }));
    const first = await exported(e);
    const r = await e.query({ type: 'replace_metadata', args: JSON.parse(first.text) });
    expect({ status: r.status, body: r.body }).toEqual({ status: 200, body: { message: 'success' } });
    expect((await exported(e)).text).toBe(first.text);
  });
});

describe('add_computed_field: errors (§4.5.1, §7)', () => {
  it('rejects an invalid GraphQL name before the table check (row 10) and an untracked table (row 24)', async () => {
    await expectError(e, add('author', 'full name', { function: 'author_full_name' }), 400, err('$.args.name', '"full name" is not a valid GraphQL name', 'parse-failed'));
    await expectError(e, add('secret', '1x', { function: 'nope' }), 400, err('$.args.name', '"1x" is not a valid GraphQL name', 'parse-failed'));
    await expectError(e, add('secret', 'x', { function: 'nope' }), 400, err('$.args.table', 'table "secret" does not exist', 'not-exists'));
    await expectError(e, add({ schema: 'billing', name: 'nope' }, 'x', { function: 'author_full_name' }), 400,
      err('$.args.table', 'table "billing.nope" does not exist', 'not-exists'));
  });

  it('rejects a name taken by a column, a relationship or another computed field, before resolving (row 38)', async () => {
    await write(e, add('author', 'full_name', { function: 'author_full_name' }));
    const conflict = (name: string, what: string, t: string) => err('$.args.name', `"${name}" conflicts with an existing ${what} of table "${t}"`, 'already-exists');
    await expectError(e, add('author', 'first_name', { function: 'nope' }), 400, conflict('first_name', 'column', 'author'));
    await expectError(e, add('author', 'articles', { function: 'author_volatile' }), 400, conflict('articles', 'relationship', 'author'));
    await expectError(e, add('author', 'full_name', { function: 'author_initial' }), 400, conflict('full_name', 'computed field', 'author'));
    await expectError(e, add({ schema: 'billing', name: 'customer' }, 'author_id', { function: 'customer_name' }), 400, conflict('author_id', 'column', 'billing.customer'));
  });

  it('rejects a missing function (row 47) and an overloaded one (row 48)', async () => {
    const A = qt('author');
    await expectError(e, add('author', 'x', { function: 'nope' }), 400, violation(A, 'x', { function: 'nope' }, 'no such function exists in postgres : "nope"'));
    await expectError(e, add('author', 'x', { function: { schema: 'fns', name: 'nope' } }), 400,
      violation(A, 'x', { function: qt('nope', 'fns') }, 'no such function exists in postgres : "fns.nope"'));
    // "nope" does not exist, so no requirement is checked even though table_argument names no argument.
    await expectError(e, add('author', 'x', { function: 'nope', table_argument: 'zz' }, { comment: 'c' }), 400,
      violation(A, 'x', { function: 'nope', table_argument: 'zz' }, 'no such function exists in postgres : "nope"', 'c'));
    // Issue 27: not-supported, as the incumbent answers, not a constraint-violation.
    await expectError(e, add('author', 'over', { function: 'author_over' }), 400, {
      ...violation(A, 'over', { function: 'author_over' }, 'the function "author_over" is overloaded; overloaded functions are not supported'), code: 'not-supported',
    });
  });

  it('reports each single requirement reason (row 49)', async () => {
    const A = qt('author');
    const cases: [string, Parameters<typeof storedDefinition>[0], string][] = [
      ['v', { function: 'author_volatile' }, 'the function "author_volatile" is of type VOLATILE; cannot be added as a computed field'],
      ['v', { function: 'no_args' }, 'the function "no_args" has no input arguments'],
      ['v', { function: 'no_args', table_argument: 'a' }, 'the function "no_args" has no input arguments'],
      ['v', { function: 'author_full_name', table_argument: 'x' }, '"x" is not an input argument of the function "author_full_name"'],
      ['v', { function: 'author_prefixed', table_argument: 'other' }, '"other" is not an input argument of the function "author_prefixed"'],
      ['v', { function: 'article_title' }, 'first argument of the function "article_title" of type "article" is not the table to which the computed field is being added'],
      ['v', { function: 'customer_name', table_argument: 'c' },
        '"c" argument of the function "customer_name" of type "billing.customer" is not the table to which the computed field is being added'],
      ['v', { function: 'author_full_name', session_argument: 'session' }, '"session" is not an input argument of the function "author_full_name"'],
      ['v', { function: 'author_text_session', session_argument: 's' }, '"s" argument of the function "author_text_session" is not of type JSON'],
      ['v', { function: 'author_void' }, 'the function "author_void" returning type "void" is not a BASE type'],
      ['v', { function: 'author_record' }, 'the function "author_record" returning type "record" is not a BASE type'],
      ['v', { function: 'author_pair' }, 'the function "author_pair" returning type "pair" is not a BASE type'],
      ['v', { function: 'author_ids' }, 'the function "author_ids" returning set of type "integer" is not supported'],
      ['v', { function: 'author_secrets' }, 'the function "author_secrets" returns rows of table "secret", which is not tracked'],
      ['v', { function: 'author_secret' }, 'the function "author_secret" returns rows of table "secret", which is not tracked'],
    ];
    for (const [name, def, reason] of cases) {
      await expectError(e, add('author', name, def), 400, violation(A, name, def, requirements(name, 'author', [reason])));
    }
  });

  it('lists several reasons with the §1.7 layout (row 49)', async () => {
    const A = qt('author');
    // Reasons 4 and 5 together.
    await expectError(e, add('author', 'n', { function: 'int_first' }), 400, violation(A, 'n', { function: 'int_first' }, requirements('n', 'author', [
      'first argument of the function "int_first" is not COMPOSITE type',
      'first argument of the function "int_first" of type "integer" is not the table to which the computed field is being added',
    ])));
    await expectError(e, add('author', 'n', { function: 'author_prefixed', table_argument: 'prefix' }), 400,
      violation(A, 'n', { function: 'author_prefixed', table_argument: 'prefix' }, requirements('n', 'author', [
        '"prefix" argument of the function "author_prefixed" is not COMPOSITE type',
        '"prefix" argument of the function "author_prefixed" of type "text" is not the table to which the computed field is being added',
      ])));
    // The example of §4.5.1, byte for byte.
    const def = { function: 'fetch_articles_volatile', table_argument: 'random' };
    const r = await e.query(add('author', 'get_articles', def));
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('in table "author": in computed field "get_articles": the computed field "get_articles" cannot be added to table "author" for the following reasons:\n'
      + '  • the function "fetch_articles_volatile" is of type VOLATILE; cannot be added as a computed field\n'
      + '  • "random" is not an input argument of the function "fetch_articles_volatile"\n');
    await expectError(e, add('author', 'get_articles', def), 400, violation(A, 'get_articles', def, requirements('get_articles', 'author', [
      'the function "fetch_articles_volatile" is of type VOLATILE; cannot be added as a computed field',
      '"random" is not an input argument of the function "fetch_articles_volatile"',
    ])));
    // Reasons of every group collected in order: 1, 4+5, 7, 8.
    await e.sql(`create function everything_wrong(n int, s text) returns setof integer volatile language sql as $$ select 1 $$`);
    const all = { function: 'everything_wrong', session_argument: 's' };
    await expectError(e, add('author', 'w', all), 400, violation(A, 'w', all, requirements('w', 'author', [
      'the function "everything_wrong" is of type VOLATILE; cannot be added as a computed field',
      'first argument of the function "everything_wrong" is not COMPOSITE type',
      'first argument of the function "everything_wrong" of type "integer" is not the table to which the computed field is being added',
      '"s" argument of the function "everything_wrong" is not of type JSON',
      'the function "everything_wrong" returning set of type "integer" is not supported',
    ])));
    // No input arguments skips 3–5 but not the others.
    await e.sql(`create function nothing() returns void volatile language plpgsql as $$ begin end $$`);
    const none = { function: 'nothing', table_argument: 'a', session_argument: 'session' };
    await expectError(e, add({ schema: 'billing', name: 'customer' }, 'z', none), 400, violation(qt('customer', 'billing'), 'z', none, requirements('z', 'billing.customer', [
      'the function "nothing" is of type VOLATILE; cannot be added as a computed field',
      'the function "nothing" has no input arguments',
      '"session" is not an input argument of the function "nothing"',
      'the function "nothing" returning type "void" is not a BASE type',
    ])));
  });
});
