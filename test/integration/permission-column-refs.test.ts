import { describe, expect, it } from 'vitest';
import { useTestEngine } from '../helpers/engine.js';
import { exported, write } from '../helpers/assertions.js';
import { gql } from './graphql-fixture.js';

// Issue 29 point 6: column comparison operators with a root-table reference, `_ceq: ["$", "col"]`: inside a
// relationship or `_exists`, the column of the row the permission is about; `["col"]` is the current table's column.

const e = useTestEngine({ setup: async () => {
  await e.sql(`create table author (id int primary key, lang text, min_views int);
    create table article (id int primary key, author_id int references author (id), lang text, views int);
    insert into author values (1, 'en', 5), (2, 'de', 0);
    insert into article values (10, 1, 'en', 9), (11, 1, 'de', 9), (12, 2, 'de', 1), (13, 1, 'en', 2)`);
  for (const t of ['author', 'article']) await write(e, { type: 'track_table', args: t });
  await write(e, { type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } });
} });

const USER = { 'x-engine-role': 'user' };
const select = (filter: unknown) => ({ type: 'create_select_permission', args: { table: 'article', role: 'user', permission: { columns: ['id'], filter } } });
const ids = async () => {
  const r = await gql(e, { query: '{ article(order_by: {id: asc}) { id } }' }, USER);
  return (r.body as { data: { article: { id: number }[] } }).data.article.map((a) => a.id);
};

describe('_c* operators with a root-table reference (issue 29 point 6)', () => {
  it('["$", col] inside a relationship compares with the permission row; the export keeps the form', async () => {
    const filter = { author: { lang: { _ceq: ['$', 'lang'] }, min_views: { _clte: ['$', 'views'] } } };
    await write(e, select(filter));
    expect(await ids()).toEqual([10, 12]);
    const tables = JSON.parse((await exported(e)).text).tables as { table: unknown; select_permissions?: { permission: { filter: unknown } }[] }[];
    expect(tables.find((t) => (t.table as { name: string }).name === 'article')?.select_permissions?.[0]?.permission.filter).toEqual(filter);
  });

  it('["$", col] inside _exists, and [col] on the current table', async () => {
    await write(e, select({ _exists: { _table: 'author', _where: { id: { _ceq: ['$', 'author_id'] }, lang: { _ceq: ['$', 'lang'] } } }, views: { _cgt: ['id'] } }));
    expect(await ids()).toEqual([]);
    await write(e, { type: 'drop_select_permission', args: { table: 'article', role: 'user' } });
    await write(e, select({ _exists: { _table: 'author', _where: { id: { _ceq: ['$', 'author_id'] }, lang: { _ceq: ['$', 'lang'] } } }, views: { _clt: ['id'] } }));
    expect(await ids()).toEqual([10, 12, 13]);
  });

  it('rejects a root reference to a column the root table lacks, or a malformed one, changing nothing', async () => {
    const cases: [unknown, string][] = [
      [{ author: { lang: { _ceq: ['$', 'nope'] } } }, 'column "nope" does not exist in table "article"'],
      [{ author: { lang: { _ceq: ['$', 'views'] } } }, 'incompatible column types: "lang" is of type "text", "views" is of type "integer"'],
      [{ author: { lang: { _ceq: ['#', 'lang'] } } }, 'expecting a column name, [column] or ["$", column] for operator "_ceq"'],
    ];
    for (const [filter, reason] of cases) {
      const before = await e.state();
      const r = await e.query(select(filter));
      const error = `in table "article": in permission for role "user": ${reason}`;
      expect({ status: r.status, code: (r.body as { code: string }).code, error: (r.body as { error: string }).error, path: (r.body as { path: string }).path })
        .toEqual({ status: 400, code: 'constraint-violation', error, path: '$.args' });
      expect(await e.state()).toEqual(before);
    }
  });

  it('renaming a column rewrites the operands that name it, root references included', async () => {
    await write(e, select({ author: { lang: { _ceq: ['$', 'lang'] } }, views: { _cgt: ['id'] } }));
    await e.ok({ type: 'run_sql', args: { sql: 'alter table article rename column lang to language; alter table article rename column id to key' } });
    const tables = JSON.parse((await exported(e)).text).tables as { table: { name: string }; select_permissions?: { permission: { filter: unknown } }[] }[];
    expect(tables.find((t) => t.table.name === 'article')?.select_permissions?.[0]?.permission.filter)
      .toEqual({ author: { lang: { _ceq: ['$', 'language'] } }, views: { _cgt: ['key'] } });
    expect(await e.ok({ type: 'get_inconsistent_metadata', args: {} })).toEqual({ is_consistent: true, inconsistent_objects: [] });
  });
});
