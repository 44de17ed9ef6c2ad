import { describe, expect, it } from 'vitest';
import { shown } from './validate-helpers.js';

/** tables.yaml with one table `author` (computed field `full_name`) and the given select-permission body. */
const selectOn = (permission: string, role = 'user') =>
  `- table: author\n  computed_fields: [{name: full_name, definition: {function: author_full_name}}]\n  select_permissions:\n    - role: ${role}\n      permission: ${permission}\n`;

describe('permissions', () => {
  it('rejects the admin role at the role', () => {
    expect(shown({ tables: selectOn('{columns: "*", filter: {}}', 'admin') })).toEqual([
      'error permission-invalid tables.yaml:4:13 cannot define a permission for the admin role',
    ]);
  });

  it('needs a non-empty role', () => {
    expect(shown({ tables: selectOn('{columns: "*", filter: {}}', '""') })).toEqual([
      'error metadata-invalid tables.yaml:4:13 expected a non-empty string for "role", got an empty string',
    ]);
  });

  it('checks columns: "*" or a list of names, an empty list allowed', () => {
    expect(shown({ tables: selectOn('{columns: [], filter: {}}') })).toEqual([]);
    expect(shown({ tables: selectOn('{columns: id, filter: {}}') })).toEqual([
      'error permission-invalid tables.yaml:5:29 "columns" must be "*" or a list of column names',
    ]);
    expect(shown({ tables: selectOn('{columns: [id, 2], filter: {}}') })).toEqual([
      'error permission-invalid tables.yaml:5:29 "columns" must be "*" or a list of column names',
    ]);
  });

  it('checks limit: an integer ≥ 1', () => {
    for (const limit of ['0', '1.5', '"10"']) {
      expect(shown({ tables: selectOn(`{columns: "*", filter: {}, limit: ${limit}}`) })).toEqual([
        'error permission-invalid tables.yaml:5:53 "limit" must be an integer ≥ 1',
      ]);
    }
    expect(shown({ tables: selectOn('{columns: "*", filter: {}, limit: 1, allow_aggregations: true}') })).toEqual([]);
  });

  it('checks set: column names mapped to scalars', () => {
    const tables = [
      '- table: article',
      '  insert_permissions:',
      '    - role: user',
      '      permission:',
      '        check: {}',
      '        set: {author_id: X-Engine-User-Id, created_at: now(), tags: [a], n: 1, b: true, z: null}',
      '  update_permissions:',
      '    - role: user',
      '      permission: {columns: [title], filter: {}, set: [author_id]}',
      '',
    ].join('\n');
    expect(shown({ tables })).toEqual([
      'error permission-invalid tables.yaml:6:69 "set" must map column names to scalar values',
      'error permission-invalid tables.yaml:9:55 "set" must map column names to scalar values',
    ]);
  });

  it('checks that select computed_fields exist on the table', () => {
    expect(shown({ tables: selectOn('{columns: "*", computed_fields: [full_name, age], filter: {}}') })).toEqual([
      'error permission-invalid tables.yaml:5:63 computed field "age" is not defined on table public.author',
    ]);
  });

  it('needs the required keys of each kind, and knows their keys', () => {
    const tables = [
      '- table: article',
      '  insert_permissions: [{role: a, permission: {columns: "*"}}]',
      '  select_permissions: [{role: a, permission: {filter: {}}}]',
      '  update_permissions: [{role: a, permission: {columns: "*", filter: {}, check: null}}]',
      '  delete_permissions: [{role: a, permission: {filter: {}, columns: "*"}}, {permission: {filter: {}}}]',
      '',
    ].join('\n');
    expect(shown({ tables })).toEqual([
      'error metadata-invalid tables.yaml:2:46 insert permission for role "a" on public.article is missing required key "check"',
      'error metadata-invalid tables.yaml:3:46 select permission for role "a" on public.article is missing required key "columns"',
      'warning metadata-unknown-key tables.yaml:5:59 unknown key "columns" in delete permission for role "a" on public.article',
      'error metadata-invalid tables.yaml:5:75 delete permission #2 on public.article is missing required key "role"',
    ]);
  });

  it('checks backend_only and allow_aggregations as booleans', () => {
    const tables = '- table: a\n  insert_permissions: [{role: r, permission: {check: {}, backend_only: 1}}]\n';
    expect(shown({ tables })).toEqual([
      'error metadata-invalid tables.yaml:2:72 expected a boolean for "backend_only", got 1',
    ]);
  });
});

describe('boolean expressions', () => {
  const filter = (f: string) => selectOn(`{columns: "*", filter: ${f}}`);
  const at = (col: number, rest: string) => `error bool-exp-invalid tables.yaml:5:${col} ${rest}`;

  it('accepts the grammar of engine-api.md §4.4', () => {
    const f = [
      '{author_id: X-Engine-User-Id, $or: [{published: true}, {category: {$neq: editorial}}], author: {active: {_eq: true}},',
      '_and: [], _not: {id: {_in: [1, 2]}}, _exists: {_table: {schema: s, name: t}, _where: {x: {_is_null: false}}},',
      'tags: {_contains: {a: 1}, _has_keys_any: X-Engine-Keys, _has_key: k}, a: {_ceq: b, _gt: 1, _like: "%x"},',
      '_col: {_eq: 1}, rel: {_or: [{_col: 1}]}, ids: {_nin: x-engine-ids}}',
    ].join(' ');
    expect(shown({ tables: filter(f) })).toEqual([]);
  });

  it('needs a mapping', () => {
    expect(shown({ tables: filter('[]') })).toEqual([at(42, 'expected a mapping for the boolean expression')]);
    expect(shown({ tables: filter('{_or: [{a: 1}, 3], _not: x}') })).toEqual([
      at(57, 'expected a mapping for the boolean expression'),
      at(67, 'expected a mapping for the boolean expression'),
    ]);
  });

  it('needs lists for _and and _or', () => {
    expect(shown({ tables: filter('{$and: {a: 1}}') })).toEqual([at(49, '"$and" expects a list of boolean expressions')]);
  });

  it('rejects unknown operators with the nearest one', () => {
    expect(shown({ tables: filter('{a: {_eqq: 1, $nliek: x, _st_within: y}}') })).toEqual([
      at(47, 'unknown operator "_eqq" (did you mean "_eq"?)'),
      at(56, 'unknown operator "$nliek" (did you mean "$nlike"?)'),
      // A PostGIS operator is known (issue 30): its operand must be GeoJSON.
      at(79, 'operator "_st_within" expects a GeoJSON object or a session variable'),
    ]);
  });

  it('checks operand shapes', () => {
    const f = '{a: {_eq: [1], _gt: null, _in: x, _like: 1, _is_null: "yes", _ceq: 2, _has_key: [], _has_keys_all: [1], _contains: [1]}}';
    expect(shown({ tables: filter(f) })).toEqual([
      at(52, 'operator "_eq" expects a scalar'),
      at(62, 'operator "_gt" expects a non-null scalar'),
      at(73, 'operator "_in" expects a list or a session variable'),
      at(83, 'operator "_like" expects a string'),
      at(96, 'operator "_is_null" expects a boolean'),
      at(109, 'operator "_ceq" expects a column name, [column] or ["$", column]'),
      at(122, 'operator "_has_key" expects a string'),
      at(141, 'operator "_has_keys_all" expects a list of strings or a session variable'),
    ]);
  });

  it('rejects a mapping mixing operators and field names', () => {
    expect(shown({ tables: filter('{author: {_eq: 1, name: x}}') })).toEqual([
      at(51, 'cannot mix operators and field names under "author"'),
    ]);
  });

  it('checks _exists', () => {
    expect(shown({ tables: filter('{_exists: {_table: t}, $exists: {_table: 1, _where: {a: {_foo: 1}}}}') })).toEqual([
      at(52, '"_exists" expects a mapping with "_table" and "_where"'),
      at(74, '"$exists" expects a mapping with "_table" and "_where"'),
      at(99, 'unknown operator "_foo" (did you mean "_ceq"?)'),
    ]);
  });

  it('checks insert check and update check too', () => {
    const tables = '- table: a\n  update_permissions: [{role: r, permission: {columns: "*", filter: {}, check: {x: {_bad: 1}}}}]\n';
    expect(shown({ tables })).toEqual([
      'error bool-exp-invalid tables.yaml:2:85 unknown operator "_bad" (did you mean "_ceq"?)',
    ]);
  });
});
