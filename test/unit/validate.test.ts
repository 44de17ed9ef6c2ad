import { describe, expect, it } from 'vitest';
import { knownTableKeys } from '../../src/project/validate/validate.js';
import { levenshtein, nearest } from '../../src/project/validate/core.js';
import { REALISTIC_TEXTS, shown } from './validate-helpers.js';

describe('version.yaml', () => {
  it('accepts version 2 and an empty file', () => {
    expect(shown({ version: 'version: 2\n' })).toEqual([]);
    expect(shown({ version: '# nothing\n' })).toEqual([]);
  });

  it('rejects another version at its value', () => {
    expect(shown({ version: 'version: 3\n' })).toEqual([
      'error metadata-version-unsupported version.yaml:1:10 unsupported metadata version 3: expected 2',
    ]);
    expect(shown({ version: 'version: "2"\n' })).toEqual([
      'error metadata-version-unsupported version.yaml:1:10 unsupported metadata version "2": expected 2',
    ]);
  });

  it('needs the version key and warns about others', () => {
    expect(shown({ version: 'verison: 2\n' })).toEqual([
      'warning metadata-unknown-key version.yaml:1:1 unknown key "verison" in version.yaml (did you mean "version"?)',
      'error metadata-invalid version.yaml:1:1 version.yaml is missing required key "version"',
    ]);
  });
});

describe('top-level shapes', () => {
  it('needs a list in each list file', () => {
    expect(shown({ tables: 'table: author\n', cronTriggers: '"x"\n' })).toEqual([
      'error metadata-invalid cron_triggers.yaml:1:1 expected a list for "cron_triggers", got a string',
      'error metadata-invalid tables.yaml:1:1 expected a list for "tables", got a mapping',
    ]);
  });

  it('names a list item by its list key and index', () => {
    expect(shown({ tables: '- author\n- 42\n' })).toEqual([
      'error metadata-invalid tables.yaml:1:3 expected a mapping for "tables[0]", got a string',
      'error metadata-invalid tables.yaml:2:3 expected a mapping for "tables[1]", got 42',
    ]);
  });

  it('reports a missing required key at the enclosing mapping', () => {
    expect(shown({ tables: '- is_enum: false\n' })).toEqual([
      'error metadata-invalid tables.yaml:1:3 table #1 is missing required key "table"',
    ]);
  });

  it('treats an empty value of a required key as missing', () => {
    expect(shown({ tables: '- table:\n' })).toEqual([
      'error metadata-invalid tables.yaml:1:3 table #1 is missing required key "table"',
    ]);
  });

  it('checks value types of table keys', () => {
    expect(shown({ tables: '- table: author\n  is_enum: "yes"\n  configuration: []\n  object_relationships: {}\n' })).toEqual([
      'error metadata-invalid tables.yaml:2:12 expected a boolean for "is_enum", got a string',
      'error metadata-invalid tables.yaml:3:18 expected a mapping for "configuration", got an empty list',
      'error metadata-invalid tables.yaml:4:25 expected a list for "object_relationships", got a mapping',
    ]);
  });

  it('checks QNames', () => {
    expect(shown({ tables: '- table: {schema: 1, nam: x}\n- table: 7\n' })).toEqual([
      'error metadata-invalid tables.yaml:1:10 "table" of table #1 is missing required key "name"',
      'error metadata-invalid tables.yaml:1:19 expected a string for "schema", got 1',
      'warning metadata-unknown-key tables.yaml:1:22 unknown key "nam" in "table" of table #1 (did you mean "name"?)',
      'error metadata-invalid tables.yaml:2:10 expected a mapping for "table", got 7',
    ]);
  });
});

describe('unknown keys', () => {
  it('warns at the key, naming the nearest known key', () => {
    expect(shown({ tables: '- table: author\n  select_permission: []\n  colour: red\n' })).toEqual([
      'warning metadata-unknown-key tables.yaml:2:3 unknown key "select_permission" in table public.author (did you mean "select_permissions"?)',
      'warning metadata-unknown-key tables.yaml:3:3 unknown key "colour" in table public.author',
    ]);
  });

  it('warns inside nested entries too', () => {
    expect(shown({ tables: '- table: {schema: s, name: a}\n  select_permissions:\n    - role: user\n      permission: {columns: "*", filter: {}, limt: 5}\n      coment: x\n' })).toEqual([
      'warning metadata-unknown-key tables.yaml:4:46 unknown key "limt" in select permission for role "user" on s.a (did you mean "limit"?)',
      'warning metadata-unknown-key tables.yaml:5:7 unknown key "coment" in select permission for role "user" on s.a (did you mean "comment"?)',
    ]);
  });

  it('picks the nearest key within distance 3, ties in alphabetical order', () => {
    expect(levenshtein('kitten', 'sitting')).toBe(3);
    expect(nearest('ab', ['ac', 'aa'])).toBe('aa');
    expect(nearest('webhok', ['webhook', 'webhook_from_env'])).toBe('webhook');
    expect(nearest('abcdefgh', ['name', 'using'])).toBeUndefined();
    expect(nearest('abcd', ['wxyz'])).toBeUndefined();
    expect(nearest('abc', ['xyz'])).toBe('xyz');
  });

  it('lists the table-entry keys the build keeps', () => {
    expect(knownTableKeys()).toEqual([
      'table', 'is_enum', 'configuration', 'object_relationships', 'array_relationships', 'computed_fields',
      'remote_relationships', 'insert_permissions', 'select_permissions', 'update_permissions', 'delete_permissions',
      'event_triggers',
    ]);
  });
});

describe('relationships and computed fields', () => {
  it('needs exactly one of foreign_key_constraint_on or manual_configuration', () => {
    const tables = [
      '- table: article',
      '  object_relationships:',
      '    - name: author',
      '      using: {foreign_key_constraint_on: author_id, manual_configuration: {remote_table: author, column_mapping: {author_id: id}}}',
      '    - name: editor',
      '      using: {}',
      '',
    ].join('\n');
    expect(shown({ tables })).toEqual([
      'error metadata-invalid tables.yaml:4:53 "using" of object relationship "author" of public.article must set exactly one of "foreign_key_constraint_on" or "manual_configuration"',
      'error metadata-invalid tables.yaml:6:14 "using" of object relationship "editor" of public.article must set exactly one of "foreign_key_constraint_on" or "manual_configuration"',
    ]);
  });

  it('checks the shapes of each form', () => {
    const tables = [
      '- table: author',
      '  object_relationships:',
      '    - {name: a, using: {foreign_key_constraint_on: {table: x, column: y, columns: [y]}}}',
      '  array_relationships:',
      '    - {name: b, using: {foreign_key_constraint_on: {table: article}}}',
      '    - {name: c, using: {manual_configuration: {remote_table: article, column_mapping: {id: 1}}}}',
      '    - {using: {manual_configuration: {column_mapping: {}}}}',
      '',
    ].join('\n');
    expect(shown({ tables })).toEqual([
      'error metadata-invalid tables.yaml:3:74 "foreign_key_constraint_on" of "using" of object relationship "a" of public.author must set exactly one of "column" or "columns"',
      'error metadata-invalid tables.yaml:5:52 "foreign_key_constraint_on" of "using" of array relationship "b" of public.author must set exactly one of "column" or "columns"',
      'error metadata-invalid tables.yaml:6:92 expected a string for "id", got 1',
      'error metadata-invalid tables.yaml:7:7 array relationship #3 of public.author is missing required key "name"',
      'error metadata-invalid tables.yaml:7:38 "manual_configuration" of "using" of array relationship #3 of public.author is missing required key "remote_table"',
    ]);
  });

  it('checks relationship, computed-field and remote-relationship names', () => {
    const tables = [
      '- table: author',
      '  object_relationships: [{name: my-rel, using: {foreign_key_constraint_on: x}}]',
      '  computed_fields: [{name: 1st, definition: {function: f}}]',
      '  remote_relationships: [{name: "a b", definition: {}}]',
      '',
    ].join('\n');
    expect(shown({ tables })).toEqual([
      'error name-invalid tables.yaml:2:33 invalid relationship name "my-rel": expected a GraphQL name',
      'error name-invalid tables.yaml:3:28 invalid computed field name "1st": expected a GraphQL name',
      'error name-invalid tables.yaml:4:33 invalid remote relationship name "a b": expected a GraphQL name',
    ]);
  });

  it('checks computed-field definitions', () => {
    const tables = [
      '- table: author',
      '  computed_fields:',
      '    - name: full_name',
      '      definition: {table_argument: 3, session: s}',
      '      comment: 5',
      '',
    ].join('\n');
    expect(shown({ tables })).toEqual([
      'error metadata-invalid tables.yaml:4:19 "definition" of computed field "full_name" of public.author is missing required key "function"',
      'error metadata-invalid tables.yaml:4:36 expected a string for "table_argument", got 3',
      'warning metadata-unknown-key tables.yaml:4:39 unknown key "session" in "definition" of computed field "full_name" of public.author',
      'error metadata-invalid tables.yaml:5:16 expected a string for "comment", got 5',
    ]);
  });
});

describe('a whole directory', () => {
  it('reports every problem of every file at once', () => {
    expect(shown({
      version: 'version: 1\n',
      tables: '- table: author\n  select_permissions: [{role: admin, permission: {columns: "*", filter: {id: {_eqq: 1}}, limit: 0}}]\n',
      functions: '- 5\n',
      allowList: '- collection: missing\n',
      cronTriggers: '- {name: n, webhook: "ftp://x", schedule: "* * *", include_in_metadata: true}\n',
    })).toEqual([
      'error reference-invalid allow_list.yaml:1:15 allow list entry refers to unknown query collection "missing"',
      'error url-invalid cron_triggers.yaml:1:22 invalid webhook "ftp://x": expected an http(s) URL or a {{ENV_VAR}} template',
      'error cron-schedule-invalid cron_triggers.yaml:1:43 invalid cron schedule "* * *": expected 5 fields (minute hour day-of-month month day-of-week)',
      'error metadata-invalid functions.yaml:1:3 expected a mapping for "functions[0]", got 5',
      'error permission-invalid tables.yaml:2:31 cannot define a permission for the admin role',
      'error bool-exp-invalid tables.yaml:2:79 unknown operator "_eqq" (did you mean "_eq"?)',
      'error permission-invalid tables.yaml:2:97 "limit" must be an integer ≥ 1',
      'error metadata-version-unsupported version.yaml:1:10 unsupported metadata version 1: expected 2',
    ]);
  });
});

describe('a realistic valid directory', () => {
  const texts = REALISTIC_TEXTS;

  it('has no problems', () => {
    expect(shown(texts)).toEqual([]);
  });

  it('has no problems when every file is empty', () => {
    expect(shown({ version: '', tables: '[]\n', functions: '', allowList: '# none\n', remoteSchemas: '[]', queryCollections: '[]', cronTriggers: '' })).toEqual([]);
    expect(shown({})).toEqual([]);
  });
});
