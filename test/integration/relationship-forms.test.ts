import { describe, expect, it } from 'vitest';
import { useTestEngine } from '../helpers/engine.js';
import { err, expectError, exported, qt, write } from '../helpers/assertions.js';
import { q } from './graphql-fixture.js';

// Issue 29 point 5: the relationship forms the incumbent writes — foreign keys of several columns, array relationships
// by `{table, columns}`, object relationships by the remote table's foreign key, manual relationships with a composite
// column_mapping and insertion_order — are stored and exported as written and join as their foreign key says.

const e = useTestEngine({ setup: async () => {
  await e.sql(`create table team (org int, code text, name text, primary key (org, code));
    create table member (id int primary key, org int, team_code text, name text, foreign key (org, team_code) references team (org, code));
    create table profile (id int primary key, member_id int unique references member (id), bio text);
    create table other (id int primary key, member_id int references member (id));
    insert into team values (1, 'a', 'Alpha'), (1, 'b', 'Beta'), (2, 'a', 'Gamma');
    insert into member values (10, 1, 'a', 'Ann'), (11, 2, 'a', 'Bob'), (12, 1, 'a', 'Cid');
    insert into profile values (100, 10, 'writes'), (101, 11, 'reads')`);
  for (const t of ['team', 'member', 'profile', 'other']) await write(e, { type: 'track_table', args: t });
} });

const rel = (kind: 'object' | 'array', table: string, name: string, using: unknown) => ({ type: `create_${kind}_relationship`, args: { table, name, using } });

const FORMS = [
  rel('object', 'member', 'team', { foreign_key_constraint_on: ['team_code', 'org'] }),
  rel('array', 'team', 'members', { foreign_key_constraint_on: { table: 'member', columns: ['org', 'team_code'] } }),
  rel('object', 'member', 'profile', { foreign_key_constraint_on: { table: 'profile', columns: ['member_id'] } }),
  rel('object', 'member', 'profile_by_column', { foreign_key_constraint_on: { table: { schema: 'public', name: 'profile' }, column: 'member_id' } }),
  rel('object', 'profile', 'member', { foreign_key_constraint_on: ['member_id'] }),
  rel('object', 'member', 'team_manual', { manual_configuration: { remote_table: 'team', column_mapping: { team_code: 'code', org: 'org' }, insertion_order: 'before_parent' } }),
  rel('array', 'team', 'members_manual', { manual_configuration: { remote_table: 'member', column_mapping: { org: 'org', code: 'team_code' } } }),
];

describe('relationship forms of the incumbent (issue 29 point 5)', () => {
  it('stores and exports each form as written', async () => {
    for (const f of FORMS) await write(e, f);
    const tables = JSON.parse((await exported(e)).text).tables as { table: unknown; object_relationships?: unknown[]; array_relationships?: unknown[] }[];
    const of = (name: string) => tables.find((t) => (t.table as { name: string }).name === name);
    expect(of('member')?.object_relationships).toEqual([
      { name: 'profile', using: { foreign_key_constraint_on: { table: qt('profile'), columns: ['member_id'] } } },
      { name: 'profile_by_column', using: { foreign_key_constraint_on: { table: qt('profile'), column: 'member_id' } } },
      { name: 'team', using: { foreign_key_constraint_on: ['team_code', 'org'] } },
      { name: 'team_manual', using: { manual_configuration: { remote_table: qt('team'), column_mapping: { org: 'org', team_code: 'code' }, insertion_order: 'before_parent' } } },
    ]);
    expect(of('team')?.array_relationships).toEqual([
      { name: 'members', using: { foreign_key_constraint_on: { table: qt('member'), columns: ['org', 'team_code'] } } },
      { name: 'members_manual', using: { manual_configuration: { remote_table: qt('member'), column_mapping: { code: 'team_code', org: 'org' } } } },
    ]);
    expect(of('profile')?.object_relationships).toEqual([{ name: 'member', using: { foreign_key_constraint_on: ['member_id'] } }]);
    expect(await e.ok({ type: 'get_inconsistent_metadata', args: {} })).toEqual({ is_consistent: true, inconsistent_objects: [] });
  });

  it('joins on every column of the foreign key, in both directions', async () => {
    for (const f of FORMS) await write(e, f);
    expect(await q(e, '{ member(order_by: {id: asc}) { id team { name } team_manual { name } profile { bio } profile_by_column { id } } }')).toEqual({ data: { member: [
      { id: 10, team: { name: 'Alpha' }, team_manual: { name: 'Alpha' }, profile: { bio: 'writes' }, profile_by_column: { id: 100 } },
      { id: 11, team: { name: 'Gamma' }, team_manual: { name: 'Gamma' }, profile: { bio: 'reads' }, profile_by_column: { id: 101 } },
      { id: 12, team: { name: 'Alpha' }, team_manual: { name: 'Alpha' }, profile: null, profile_by_column: null },
    ] } });
    expect(await q(e, '{ team(order_by: [{org: asc}, {code: asc}]) { name members(order_by: {id: asc}) { id } members_manual_aggregate { aggregate { count } } } }')).toEqual({ data: { team: [
      { name: 'Alpha', members: [{ id: 10 }, { id: 12 }], members_manual_aggregate: { aggregate: { count: 2 } } },
      { name: 'Beta', members: [], members_manual_aggregate: { aggregate: { count: 0 } } },
      { name: 'Gamma', members: [{ id: 11 }], members_manual_aggregate: { aggregate: { count: 1 } } },
    ] } });
    expect(await q(e, '{ team(where: {members: {name: {_eq: "Bob"}}}) { name } profile(where: {member: {team: {name: {_eq: "Alpha"}}}}) { id } }'))
      .toEqual({ data: { team: [{ name: 'Gamma' }], profile: [{ id: 100 }] } });
  });

  it('replace_metadata takes the forms and export gives them back unchanged', async () => {
    for (const f of FORMS) await write(e, f);
    const before = (await exported(e)).text;
    await e.ok({ type: 'clear_metadata', args: {} });
    await e.ok({ type: 'replace_metadata', args: JSON.parse(before) });
    expect((await exported(e)).text).toBe(before);
    expect(await q(e, '{ member(where: {id: {_eq: 11}}) { team { name } } }')).toEqual({ data: { member: [{ team: { name: 'Gamma' } }] } });
  });

  it('rejects malformed forms at their path, changing nothing', async () => {
    const p = '$.args.using.foreign_key_constraint_on';
    const cases: [unknown, ReturnType<typeof err>][] = [
      [rel('object', 'member', 'r', { foreign_key_constraint_on: [] }), err(p, 'expected at least one column', 'parse-failed')],
      [rel('object', 'member', 'r', { foreign_key_constraint_on: ['org', 5] }), err(`${p}[1]`, 'expected String, encountered Number', 'parse-failed')],
      [rel('object', 'member', 'r', { foreign_key_constraint_on: 5 }), err(p, 'expected a column name, a list of column names or {table, columns}', 'parse-failed')],
      [rel('object', 'member', 'r', { foreign_key_constraint_on: { table: 'profile', column: 'member_id', columns: ['member_id'] } }),
        err(p, 'only one of "column" or "columns" may be given', 'parse-failed')],
      [rel('array', 'team', 'r', { foreign_key_constraint_on: { table: 'member' } }), err(p, 'one of "column" or "columns" is required', 'parse-failed')],
      [rel('array', 'team', 'r', { foreign_key_constraint_on: ['org'] }), err(p, 'expected Object, encountered Array', 'parse-failed')],
      [rel('array', 'team', 'r', { foreign_key_constraint_on: { table: 'member', columns: 5 } }), err(`${p}.columns`, 'expected Array, encountered Number', 'parse-failed')],
    ];
    for (const [body, expected] of cases) await expectError(e, body, 400, expected);
  });

  it('rejects a foreign key that does not exist on exactly the given columns, changing nothing', async () => {
    const cases: [unknown, string, string, string][] = [
      [{ foreign_key_constraint_on: ['org'] }, 'object', 'member', 'no foreign constraint exists on the given column'],
      [{ foreign_key_constraint_on: ['org', 'team_code', 'id'] }, 'object', 'member', 'no foreign constraint exists on the given columns'],
      [{ foreign_key_constraint_on: ['org', 'nope'] }, 'object', 'member', 'column "nope" does not exist in table "member"'],
      [{ foreign_key_constraint_on: { table: qt('member'), columns: ['org'] } }, 'array', 'team', 'no foreign constraint exists on the given column'],
      [{ foreign_key_constraint_on: { table: qt('other'), columns: ['member_id'] } }, 'array', 'team', 'no foreign constraint exists on the given column'],
      [{ foreign_key_constraint_on: { table: qt('profile'), columns: ['member_id', 'nope'] } }, 'object', 'member', 'column "nope" does not exist in table "profile"'],
      [{ foreign_key_constraint_on: { table: qt('nope'), column: 'member_id' } }, 'object', 'member', 'table "nope" does not exist'],
    ];
    for (const [using, kind, table, reason] of cases) {
      const error = `in table "${table}": in relationship "r": ${reason}`;
      await expectError(e, rel(kind as 'object', table, 'r', using), 400, {
        path: '$.args', error, code: 'constraint-violation',
        internal: [{ definition: { table: qt(table), name: 'r', using }, reason: error, type: `${kind}_relation` }],
      });
    }
  });

  it('a multi-column relationship becomes inconsistent when its foreign key goes, and comes back with it', async () => {
    await write(e, FORMS[0]);
    await write(e, FORMS[1]);
    await e.ok({ type: 'run_sql', args: { sql: 'alter table member drop constraint member_org_team_code_fkey', check_metadata_consistency: false } });
    const listed = await e.ok({ type: 'get_inconsistent_metadata', args: {} });
    expect(listed.inconsistent_objects.map((o: { reason: string }) => o.reason)).toEqual([
      'in table "member": in relationship "team": no foreign constraint exists on the given columns',
      'in table "team": in relationship "members": no foreign constraint exists on the given columns',
    ]);
    await e.ok({ type: 'run_sql', args: { sql: 'alter table member add foreign key (org, team_code) references team (org, code)' } });
    expect(await e.ok({ type: 'get_inconsistent_metadata', args: {} })).toEqual({ is_consistent: true, inconsistent_objects: [] });
  });

  it('renaming a column rewrites the foreign-key forms that name it', async () => {
    for (const f of FORMS) await write(e, f);
    await e.ok({ type: 'run_sql', args: { sql: 'alter table member rename column team_code to team_key; alter table profile rename column member_id to owner_id' } });
    const tables = JSON.parse((await exported(e)).text).tables as { table: { name: string }; object_relationships?: { name: string; using: unknown }[]; array_relationships?: { name: string; using: unknown }[] }[];
    const rel = (t: string, list: 'object_relationships' | 'array_relationships', name: string) => tables.find((x) => x.table.name === t)?.[list]?.find((r) => r.name === name)?.using;
    expect(rel('member', 'object_relationships', 'team')).toEqual({ foreign_key_constraint_on: ['team_key', 'org'] });
    expect(rel('team', 'array_relationships', 'members')).toEqual({ foreign_key_constraint_on: { table: qt('member'), columns: ['org', 'team_key'] } });
    expect(rel('member', 'object_relationships', 'profile')).toEqual({ foreign_key_constraint_on: { table: qt('profile'), columns: ['owner_id'] } });
    expect(rel('member', 'object_relationships', 'profile_by_column')).toEqual({ foreign_key_constraint_on: { table: qt('profile'), column: 'owner_id' } });
    expect(await e.ok({ type: 'get_inconsistent_metadata', args: {} })).toEqual({ is_consistent: true, inconsistent_objects: [] });
  });
});
