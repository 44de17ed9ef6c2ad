import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parse, print } from 'graphql';
import { stringify } from 'yaml';
import { mergeActions, splitActions, type MergeResult } from '../../src/project/actions-sdl.js';
import type { JsonObject } from '../../src/metadata/json.js';
import { Problems, type Problem } from '../../src/project/problems.js';
import { parseYaml } from '../../src/project/yaml-source.js';

const G = 'metadata/actions.graphql';
const Y = 'metadata/actions.yaml';

function merge(sdl: string | null, yaml: string | null): { r: MergeResult; problems: Problem[] } {
  const problems = new Problems();
  const src = yaml === null ? null : parseYaml(Y, yaml, problems);
  expect(problems.list).toEqual([]);
  const r = mergeActions(sdl === null ? null : { file: G, text: sdl }, src, problems);
  return { r, problems: problems.sorted() };
}

/** merge that must succeed without problems. */
function ok(sdl: string | null, yaml: string | null): MergeResult {
  const { r, problems } = merge(sdl, yaml);
  expect(problems).toEqual([]);
  return r;
}

const at = (file: string, line: number, column: number) => ({ file, line, column });
const e = (code: string, message: string, file: string, line: number, column: number): Problem =>
  ({ severity: 'error', code, message, file, line, column });
const w = (code: string, message: string, file: string, line: number, column: number): Problem =>
  ({ severity: 'warning', code, message, file, line, column });

const yamlText = (v: JsonObject): string => stringify(v, { indent: 2, indentSeq: true, lineWidth: 0 });

/** build(export(build(x))) for the two files. */
function roundTrip(r: MergeResult, existingSdl?: string): MergeResult {
  const s = splitActions(r.actions, r.custom_types ?? undefined, existingSdl);
  return ok(s.sdl, yamlText(s.yaml));
}

const TEMPLATE = (name: string) => `type Mutation {
  # Define your action as a mutation here
  ${name}(arg1: SampleInput!): SampleOutput
}

type SampleOutput {
  accessToken: String!
}

input SampleInput {
  username: String!
  password: String!
}
`;
const LOGIN_YAML = 'actions:\n  - {name: login, definition: {kind: synchronous, handler: "{{AUTH_URL}}/login"}, permissions: [{role: anonymous}]}\n';

describe('mergeActions: the §4.6 example', () => {
  it('builds the documented actions and custom_types, keys in canonical order', () => {
    const r = ok(TEMPLATE('login'), LOGIN_YAML);
    expect(JSON.stringify({ actions: r.actions, custom_types: r.custom_types })).toBe(JSON.stringify({
      actions: [{
        name: 'login',
        definition: { handler: '{{AUTH_URL}}/login', output_type: 'SampleOutput', arguments: [{ name: 'arg1', type: 'SampleInput!' }], kind: 'synchronous' },
        permissions: [{ role: 'anonymous' }],
      }],
      custom_types: {
        input_objects: [{ name: 'SampleInput', fields: [{ name: 'username', type: 'String!' }, { name: 'password', type: 'String!' }] }],
        objects: [{ name: 'SampleOutput', fields: [{ name: 'accessToken', type: 'String!' }] }],
      },
    }));
  });

  it('records origins: actions and custom types in actions.graphql, permissions in actions.yaml', () => {
    const r = ok(TEMPLATE('login'), 'actions:\n  - name: login\n    definition:\n      handler: http://h/login\n    permissions:\n      - role: user\n      - role: anonymous\n');
    expect(Object.fromEntries(r.origins)).toEqual({
      'action:login': at(G, 3, 3),
      'action_permission:login.anonymous': at(Y, 7, 9),
      'action_permission:login.user': at(Y, 6, 9),
      'custom_type:SampleOutput': at(G, 6, 1),
      'custom_type:SampleInput': at(G, 10, 1),
    });
    expect(r.actions[0]?.['permissions']).toEqual([{ role: 'anonymous' }, { role: 'user' }]);
  });
});

describe('mergeActions: empty files', () => {
  const EMPTY_YAML = 'actions: []\ncustom_types:\n  enums: []\n  input_objects: []\n  objects: []\n  scalars: []\n';
  it.each([
    ['missing files', null, null],
    ['0-byte files', '', ''],
    ['comment-only files', '# nothing yet\n\n   # still nothing\n', '# empty\n'],
    ['the §4.1 empty contents', '', EMPTY_YAML],
    ['a BOM and whitespace', '\uFEFF \n\t\n', null],
  ])('%s give no actions and no custom types', (_, sdl, yaml) => {
    const r = ok(sdl, yaml);
    expect(r.actions).toEqual([]);
    expect(r.custom_types).toBeNull();
    expect(r.origins.size).toBe(0);
  });
});

describe('mergeActions: canonical form', () => {
  it('sorts actions and custom types, omits defaults, orders definition keys, normalises headers and relationships', () => {
    const sdl = `
scalar Json
enum Color { RED GREEN @deprecated BLUE @deprecated(reason: "old") }
type Mutation {
  zeta(id: uuid!, tags: [String!]): [Out!]!
}
extend type Mutation {
  alpha(
    "the input"
    input: In
  ): Out
}
input In { color: Color, when: timestamptz, nested: [In!] }
type Out { id: uuid!, data: Json, color: Color }
`;
    const yaml = `
custom_types:
  objects:
    - name: Out
      relationships:
        - {field_mapping: {id: zc, data: ac}, remote_table: users, type: object, name: user}
        - {name: author, type: array, remote_table: {name: author}, field_mapping: {id: author_id}}
actions:
  - name: zeta
    comment: null
    definition:
      timeout: 30
      forward_client_headers: false
      headers: []
      handler: "{{BASE}}/zeta"
  - name: alpha
    permissions: [{role: b, comment: null}, {role: a, comment: two}]
    comment: first
    definition:
      timeout: 60
      headers: [{value_from_env: TOKEN, name: x-token}, {value: v, name: x-v}]
      forward_client_headers: true
      handler: "{{BASE}}/alpha"
      kind: asynchronous
`;
    const r = ok(sdl, yaml);
    expect(JSON.stringify(r.actions)).toBe(JSON.stringify([
      {
        name: 'alpha',
        definition: {
          handler: '{{BASE}}/alpha', output_type: 'Out', arguments: [{ name: 'input', type: 'In', description: 'the input' }],
          kind: 'asynchronous', forward_client_headers: true,
          headers: [{ name: 'x-token', value_from_env: 'TOKEN' }, { name: 'x-v', value: 'v' }], timeout: 60,
        },
        comment: 'first',
        permissions: [{ role: 'a', comment: 'two' }, { role: 'b' }],
      },
      {
        name: 'zeta',
        definition: {
          handler: '{{BASE}}/zeta', output_type: '[Out!]!',
          arguments: [{ name: 'id', type: 'uuid!' }, { name: 'tags', type: '[String!]' }], kind: 'synchronous',
        },
      },
    ]));
    expect(JSON.stringify(r.custom_types)).toBe(JSON.stringify({
      input_objects: [{ name: 'In', fields: [{ name: 'color', type: 'Color' }, { name: 'when', type: 'timestamptz' }, { name: 'nested', type: '[In!]' }] }],
      objects: [{
        name: 'Out', fields: [{ name: 'id', type: 'uuid!' }, { name: 'data', type: 'Json' }, { name: 'color', type: 'Color' }],
        relationships: [
          { name: 'author', type: 'array', remote_table: { schema: 'public', name: 'author' }, field_mapping: { id: 'author_id' } },
          { name: 'user', type: 'object', remote_table: { schema: 'public', name: 'users' }, field_mapping: { data: 'ac', id: 'zc' } },
        ],
      }],
      scalars: [{ name: 'Json' }],
      enums: [{ name: 'Color', values: [{ value: 'RED' }, { value: 'GREEN', is_deprecated: true }, { value: 'BLUE', is_deprecated: true }] }],
    }));
  });

  it('takes descriptions from the SDL, else from actions.yaml', () => {
    const sdl = `type Mutation { a: O }
"""SDL words"""
type O { "field doc" f: Int }
scalar S
enum E {
  "value doc"
  V
}
`;
    const yaml = `actions: [{name: a, definition: {handler: "http://x"}}]
custom_types:
  objects: [{name: O, description: yaml words}]
  scalars: [{name: S, description: from yaml}]
  enums: [{name: E, description: null}]
`;
    const r = ok(sdl, yaml);
    expect(r.custom_types).toEqual({
      objects: [{ name: 'O', description: 'SDL words', fields: [{ name: 'f', type: 'Int', description: 'field doc' }] }],
      scalars: [{ name: 'S', description: 'from yaml' }],
      enums: [{ name: 'E', values: [{ value: 'V', description: 'value doc' }] }],
    });
    expect(Object.keys((r.custom_types?.['objects'] as JsonObject[])[0] ?? {})).toEqual(['name', 'description', 'fields']);
  });

  it('prints list and non-null type references as written', () => {
    const r = ok('type Mutation { a(x: [[Int!]]!, y: [uuid]): [O!]! }\ntype O { f: [[String]!] }\n', 'actions: [{name: a, definition: {handler: "http://x"}}]\n');
    expect(r.actions[0]?.['definition']).toMatchObject({ output_type: '[O!]!', arguments: [{ name: 'x', type: '[[Int!]]!' }, { name: 'y', type: '[uuid]' }] });
    expect(r.custom_types).toEqual({ objects: [{ name: 'O', fields: [{ name: 'f', type: '[[String]!]' }] }] });
  });

  it('takes undefined names as PostgreSQL scalars for arguments and fields', () => {
    const r = ok('type Mutation { a(id: uuid!, at: timestamptz): O }\ntype O { id: uuid!, doc: jsonb }\ninput I { v: numeric }\n',
      'actions: [{name: a, definition: {handler: "http://x"}}]\n');
    expect(r.actions[0]?.['definition']).toMatchObject({ arguments: [{ name: 'id', type: 'uuid!' }, { name: 'at', type: 'timestamptz' }] });
  });
});

describe('mergeActions: problems', () => {
  it('graphql-syntax-error at the parser position; the SDL cross-checks are then skipped', () => {
    const { problems } = merge('type Mutation {\n  login(: Out\n}\n', 'actions: [{name: other, definition: {handler: "http://x", kind: sync}}]\n');
    expect(problems).toEqual([
      e('graphql-syntax-error', 'Syntax Error: Expected Name, found ":".', G, 2, 9),
      e('action-kind-invalid', 'invalid kind "sync" for action "other": expected "synchronous" or "asynchronous"', Y, 1, 65),
    ]);
  });

  it('sdl-unsupported for every rejected construct, at its position', () => {
    const sdl = [
      'schema { mutation: Mutation }', // 1
      'type Query { a: Int }', // 2
      'type Subscription { a: Int }', // 3
      'interface Node { id: ID }', // 4
      'union U = O | P', // 5
      'directive @auth on FIELD_DEFINITION', // 6
      'query Q { a }', // 7
      'fragment F on O { a }', // 8
      'extend type O { b: Int }', // 9
      'type P implements Node { id: ID }', // 10
      'type Mutation { a(x: Int = 1 @foo): O @auth }', // 11
      'input In { v: Int = 2 }', // 12
      'enum E { A @deprecated B @other }', // 13
      'type O @key { a: Int @deprecated }', // 14
      'extend schema @x', // 15
      'extend scalar S @y', // 16
      '"described"', // 17
      'type Query { b: Int }', // 18
    ].join('\n');
    const { problems } = merge(sdl, 'actions: [{name: a, definition: {handler: "http://x"}}]\n');
    const u = (what: string, line: number, column: number) => e('sdl-unsupported', `${what} is not supported in actions.graphql`, G, line, column);
    expect(problems).toEqual([
      u('a schema definition', 1, 1),
      u('type Query', 2, 1),
      u('type Subscription', 3, 1),
      u('an interface', 4, 1),
      u('a union', 5, 1),
      u('a directive definition', 6, 1),
      u('an operation', 7, 1),
      u('a fragment', 8, 1),
      u('an extension of type "O"', 9, 1),
      u('"implements"', 10, 8),
      u('a default value', 11, 28),
      u('directive "@foo"', 11, 30),
      u('directive "@auth"', 11, 39),
      u('a default value', 12, 21),
      u('directive "@other"', 13, 26),
      u('directive "@key"', 14, 8),
      u('directive "@deprecated"', 14, 22),
      u('a schema definition', 15, 1),
      u('an extension of type "S"', 16, 1),
      u('type Query', 18, 1),
    ]);
  });

  it('sdl-type-invalid: duplicates, built-ins, wrong kinds, unknown output, arguments, empty types', () => {
    const sdl = `type Mutation {
  a(o: Out, i: In, e: E, s: S, p: uuid): Out
  b: In
  c: [String!]
  d: Missing!
}
type Out { f: Int, g: Out, h: In, k(x: Int): E, l: [S!] }
input In { f: Int, g: Out, h: In }
enum E { A }
scalar S
input Out { x: Int }
scalar String
type Empty
enum NoValues
`;
    const { problems } = merge(sdl, 'actions: [{name: a, definition: {handler: "http://x"}}, {name: b, definition: {handler: "http://x"}}, {name: c, definition: {handler: "http://x"}}, {name: d, definition: {handler: "http://x"}}]\n');
    const t = (message: string, line: number, column: number) => e('sdl-type-invalid', message, G, line, column);
    expect(problems).toEqual([
      t('argument "o" of action "a" must be a scalar, enum or input type, but "Out" is an object type', 2, 8),
      t('action "b" must return an object type or a list of object types, but returns "In"', 3, 6),
      t('action "c" must return an object type or a list of object types, but returns "[String!]"', 4, 6),
      t('unknown type "Missing" (used by action "d")', 5, 6),
      t('field "Out.g" of an object type must be a scalar or enum type', 7, 23),
      t('field "Out.h" of an object type must be a scalar or enum type', 7, 31),
      t('field "Out.k" cannot have arguments', 7, 37),
      t('field "In.g" of an input type must be a scalar, enum or input type', 8, 23),
      t('type "Out" is defined more than once (first at metadata/actions.graphql:7:1)', 11, 1),
      t('"String" is a built-in scalar and cannot be redefined', 12, 1),
      t('type "Empty" must define at least one field', 13, 1),
      t('type "NoValues" must define at least one field', 14, 1),
    ]);
  });

  it('duplicate actions across Mutation blocks', () => {
    const { problems } = merge('type Mutation { a: O }\nextend type Mutation { a: O }\ntype O { f: Int }\n', 'actions: [{name: a, definition: {handler: "http://x"}}]\n');
    expect(problems).toEqual([e('duplicate-object', 'duplicate action a (first defined at metadata/actions.graphql:1:17)', G, 2, 24)]);
  });

  it('warns about action descriptions and SDL-owned keys in actions.yaml', () => {
    const sdl = 'type Mutation {\n  """does things"""\n  a: O\n}\ntype O { f: Int }\nenum E { A }\n';
    const yaml = `actions:
  - name: a
    definition:
      handler: http://x
      arguments: []
      output_type: O
      type: mutation
custom_types:
  objects: [{name: O, fields: []}]
  enums: [{name: E, values: [A]}]
`;
    const { r, problems } = merge(sdl, yaml);
    expect(problems).toEqual([
      w('action-description-ignored', 'the description of action "a" is ignored; use "comment" in actions.yaml', G, 2, 3),
      w('sdl-key-ignored', 'key "definition.arguments" of action "a" is ignored: it is defined by actions.graphql', Y, 5, 7),
      w('sdl-key-ignored', 'key "definition.output_type" of action "a" is ignored: it is defined by actions.graphql', Y, 6, 7),
      w('sdl-key-ignored', 'key "definition.type" of action "a" is ignored: it is defined by actions.graphql', Y, 7, 7),
      w('sdl-key-ignored', 'key "fields" of custom type "O" is ignored: it is defined by actions.graphql', Y, 9, 23),
      w('sdl-key-ignored', 'key "values" of custom type "E" is ignored: it is defined by actions.graphql', Y, 10, 21),
    ]);
    expect(r.actions).toEqual([{ name: 'a', definition: { handler: 'http://x', output_type: 'O', kind: 'synchronous' } }]);
    expect(r.origins.get('action:a')).toEqual(at(G, 3, 3));
  });

  it('cross-checks actions and custom types of the two files, reporting every problem', () => {
    const sdl = 'type Mutation {\n  a: O\n  b: O\n  c: O\n}\ntype O { f: Int }\nscalar S\n';
    const yaml = `actions:
  - name: b
    definition: {kind: asynchronous}
  - name: c
    definition: {handler: http://x, kind: 1}
  - name: ghost
    definition: {handler: http://x}
custom_types:
  objects:
    - name: S
    - name: Nope
`;
    const { problems } = merge(sdl, yaml);
    expect(problems).toEqual([
      e('action-not-in-yaml', 'action "a" is defined in actions.graphql but has no entry with a handler in actions.yaml', G, 2, 3),
      e('action-not-in-yaml', 'action "b" is defined in actions.graphql but has no entry with a handler in actions.yaml', Y, 3, 17),
      e('action-kind-invalid', 'invalid kind "1" for action "c": expected "synchronous" or "asynchronous"', Y, 5, 43),
      e('action-not-in-sdl', 'action "ghost" is listed in actions.yaml but not defined in actions.graphql', Y, 6, 11),
      e('custom-type-group-mismatch', 'custom type "S" is listed under custom_types.objects, but actions.graphql defines it as a scalar', Y, 10, 13),
      e('custom-type-not-in-sdl', 'custom type "Nope" is listed in actions.yaml but not defined in actions.graphql', Y, 11, 13),
    ]);
  });

  it('a missing actions.graphql makes every actions.yaml entry unknown', () => {
    const { problems } = merge(null, 'actions: [{name: a, definition: {handler: "http://x"}}]\ncustom_types: {enums: [{name: E}]}\n');
    expect(problems).toEqual([
      e('action-not-in-sdl', 'action "a" is listed in actions.yaml but not defined in actions.graphql', Y, 1, 18),
      e('custom-type-not-in-sdl', 'custom type "E" is listed in actions.yaml but not defined in actions.graphql', Y, 2, 31),
    ]);
  });

  it('unknown keys warn and are left out; duplicates and malformed entries are errors', () => {
    const sdl = 'type Mutation { a: O }\ntype O { f: Int }\n';
    const yaml = `actions:
  - name: a
    definition: {handler: "http://x", timeot: 3}
    permissions: [{role: u}, {role: u}, {comment: x}]
    commnt: typo
  - name: a
    definition: {handler: "http://y"}
  - just a string
custom_types:
  objects: [{name: O, relationships: [], extra: 1}]
  unions: []
actionz: true
`;
    const { r, problems } = merge(sdl, yaml);
    expect(problems).toEqual([
      w('metadata-unknown-key', 'unknown key "timeot" in "definition" of action "a" (did you mean "timeout"?)', Y, 3, 39),
      e('duplicate-object', 'duplicate action_permission a.u (first defined at metadata/actions.yaml:4:19)', Y, 4, 30),
      e('metadata-invalid', 'permission #3 of action "a" is missing required key "role"', Y, 4, 41),
      w('metadata-unknown-key', 'unknown key "commnt" in action "a" (did you mean "comment"?)', Y, 5, 5),
      e('duplicate-object', 'duplicate action a (first defined at metadata/actions.yaml:2:11)', Y, 6, 11),
      e('metadata-invalid', 'expected a mapping for "actions[2]", got a string', Y, 8, 5),
      w('metadata-unknown-key', 'unknown key "extra" in custom type "O"', Y, 10, 42),
      w('metadata-unknown-key', 'unknown key "unions" in custom_types', Y, 11, 3),
      w('metadata-unknown-key', 'unknown key "actionz" in actions.yaml (did you mean "actions"?)', Y, 12, 1),
    ]);
    expect(r.actions).toEqual([{ name: 'a', definition: { handler: 'http://x', output_type: 'O', kind: 'synchronous' }, permissions: [{ role: 'u' }] }]);
    expect(r.custom_types).toEqual({ objects: [{ name: 'O', fields: [{ name: 'f', type: 'Int' }] }] });
  });

  it('validates the shapes the engine accepts for the actions.yaml keys', () => {
    const sdl = 'type Mutation { a: O, b: O }\ntype O { id: Int, name: String }\n';
    const yaml = `actions:
  - name: a
    comment: 5
    definition:
      handler: ftp://x
      forward_client_headers: "yes"
      timeout: 0
      headers: [{name: x}, {name: y, value: v, value_from_env: E}]
    permissions: [{role: admin}, {role: ""}]
  - name: b
    definition: {handler: "{{ENGINE_GRAPHQL_SECRET}}/b", kind: synchronous}
custom_types:
  objects:
    - name: O
      description: [no]
      relationships:
        - {name: 1bad, type: many, remote_table: {schema: s}, field_mapping: {id: 1, nope: x}}
        - {name: ok, type: object, remote_table: missing, field_mapping: {name: name}}
`;
    const problems = new Problems();
    mergeActions({ file: G, text: sdl }, parseYaml(Y, yaml, problems), problems, new Set(['public.users']));
    expect(problems.sorted()).toEqual([
      e('metadata-invalid', 'expected a string for "comment", got 5', Y, 3, 14),
      e('url-invalid', 'invalid handler "ftp://x": expected an http(s) URL or a {{ENV_VAR}} template', Y, 5, 16),
      e('metadata-invalid', 'expected a boolean for "forward_client_headers", got a string', Y, 6, 31),
      e('metadata-invalid', 'expected an integer ≥ 1 for "timeout", got 0', Y, 7, 16),
      e('metadata-invalid', 'header "x" of action "a" must set exactly one of "value" or "value_from_env"', Y, 8, 17),
      e('metadata-invalid', 'header "y" of action "a" must set exactly one of "value" or "value_from_env"', Y, 8, 48),
      e('permission-invalid', 'cannot define a permission for the admin role', Y, 9, 26),
      e('metadata-invalid', 'expected a non-empty string for "role", got an empty string', Y, 9, 41),
      e('metadata-invalid', 'env variables starting with "ENGINE_GRAPHQL_" are not allowed in handler: ENGINE_GRAPHQL_SECRET', Y, 11, 27),
      e('metadata-invalid', 'expected a string for "description", got a list', Y, 15, 20),
      e('name-invalid', 'invalid relationship name "1bad": expected a GraphQL name', Y, 17, 18),
      e('metadata-invalid', 'expected "object" or "array" for "type", got a string', Y, 17, 30),
      e('metadata-invalid', '"remote_table" of relationship "1bad" of custom type "O" is missing required key "name"', Y, 17, 50),
      e('metadata-invalid', 'expected a string for "id", got 1', Y, 17, 83),
      e('reference-invalid', 'relationship "1bad" of type "O" maps unknown field "nope"', Y, 17, 86),
      e('reference-invalid', 'relationship "ok" of type "O" refers to table public.missing, which is not in tables.yaml', Y, 18, 50),
    ]);
  });

  it('a top level that is not a mapping', () => {
    const { problems } = merge(null, '- a\n');
    expect(problems).toEqual([e('metadata-invalid', 'expected a mapping for "actions.yaml", got a list', Y, 1, 1)]);
  });
});

/** A richer pair of files: every section, descriptions of every kind, relationships, headers, permissions. */
const RICH_SDL = `type Mutation {
  """ignored description"""
  createUser(
    """The e-mail address"""
    email: String!
    role: Role
  ): UserOutput
}

"""
A user.

Second paragraph with "quotes" and \\"""triple\\""" quotes.
"""
type UserOutput {
  id: uuid!
  "the role"
  role: Role
}

enum Role {
  "plain"
  user
  admin @deprecated(reason: "no")
}

scalar Json

input Filter { tags: [String!]!, doc: Json, nested: Filter }

extend type Mutation { search(filter: Filter): [UserOutput!]! }
`;
const RICH_YAML = `actions:
  - name: search
    definition: {handler: "{{SEARCH}}", kind: asynchronous, timeout: 5, forward_client_headers: true, headers: [{name: a, value: b}]}
    comment: finds users
    permissions: [{role: user, comment: all users}, {role: anonymous}]
  - name: createUser
    definition: {handler: "https://example.com/create"}
custom_types:
  scalars: [{name: Json, description: Any JSON}]
  objects:
    - name: UserOutput
      relationships: [{name: user, type: object, remote_table: {schema: auth, name: users}, field_mapping: {id: id}}]
`;

describe('splitActions', () => {
  it('writes the known bytes for the §7.1 template example', () => {
    const s = splitActions(ok(TEMPLATE('login'), LOGIN_YAML).actions, ok(TEMPLATE('login'), LOGIN_YAML).custom_types ?? undefined);
    expect(s.sdl).toBe('type Mutation {\n  login(arg1: SampleInput!): SampleOutput\n}\n\ninput SampleInput {\n  username: String!\n  password: String!\n}\n\ntype SampleOutput {\n  accessToken: String!\n}\n');
    expect(s.yaml).toEqual({
      actions: [{ name: 'login', definition: { kind: 'synchronous', handler: '{{AUTH_URL}}/login' }, permissions: [{ role: 'anonymous' }] }],
      custom_types: { enums: [], input_objects: [{ name: 'SampleInput' }], objects: [{ name: 'SampleOutput' }], scalars: [] },
    });
    expect(s.droppedComments).toBe(0);
  });

  it('writes the known bytes for a rich example: groups, descriptions, @deprecated, argument descriptions', () => {
    const { r } = merge(RICH_SDL, RICH_YAML);
    const s = splitActions(r.actions, r.custom_types ?? undefined);
    expect(s.sdl).toBe(`type Mutation {
  createUser(
    """The e-mail address"""
    email: String!
    role: Role
  ): UserOutput
}

type Mutation {
  search(filter: Filter): [UserOutput!]!
}

"""Any JSON"""
scalar Json

enum Role {
  """plain"""
  user
  admin @deprecated
}

input Filter {
  tags: [String!]!
  doc: Json
  nested: Filter
}

"""
A user.

Second paragraph with "quotes" and \\"""triple\\""" quotes.
"""
type UserOutput {
  id: uuid!
  """the role"""
  role: Role
}
`);
    expect(yamlText(s.yaml)).toBe(`actions:
  - name: createUser
    definition:
      kind: synchronous
      handler: https://example.com/create
  - name: search
    definition:
      kind: asynchronous
      handler: "{{SEARCH}}"
      forward_client_headers: true
      headers:
        - name: a
          value: b
      timeout: 5
    permissions:
      - role: anonymous
      - role: user
        comment: all users
    comment: finds users
custom_types:
  enums:
    - name: Role
  input_objects:
    - name: Filter
  objects:
    - name: UserOutput
      relationships:
        - name: user
          type: object
          remote_table:
            schema: auth
            name: users
          field_mapping:
            id: id
  scalars:
    - name: Json
`);
  });

  it('lays definitions out exactly as graphql print does', () => {
    const { r } = merge(RICH_SDL, RICH_YAML);
    const s = splitActions(r.actions, r.custom_types ?? undefined);
    expect(s.sdl).toBe(`${print(parse(s.sdl))}\n`);
  });

  it('is empty for no actions and no custom types, with the §4.1 empty actions.yaml', () => {
    const s = splitActions(undefined, undefined, '# header\n\ntype Mutation { a: O }\n');
    expect(s.sdl).toBe('');
    expect(yamlText(s.yaml)).toBe('actions: []\ncustom_types:\n  enums: []\n  input_objects: []\n  objects: []\n  scalars: []\n');
    expect(s.droppedComments).toBe(1);
  });

  it('uses a quoted string for a description a block string cannot hold', () => {
    const s = splitActions([], { scalars: [{ name: 'S', description: 'trailing space \r\n  ' }] });
    expect(s.sdl).toBe('"trailing space \\r\\n  "\nscalar S\n');
  });
});

describe('splitActions: comments of the existing actions.graphql (§4.10)', () => {
  const existing = `# Project actions
# (header)

# above the first block: belongs to action b
type Mutation { # on the block line
  # above b
  b: O # after b
  # above gone
  gone: O
}

# above O
"""doc"""
type O {
  # above f
  f: Int # after f
} # closing O

# stray comment between definitions

enum E {
  # above A
  A
  B # after B
}
# above Removed
scalar Removed
`;
  it('keeps the header, blocks above definitions, fields and enum values, and trailing comments; counts the dropped ones', () => {
    const actions = [
      { name: 'a', definition: { handler: 'http://x', output_type: 'O', kind: 'synchronous' } },
      { name: 'b', definition: { handler: 'http://x', output_type: 'O', kind: 'synchronous' } },
    ];
    const ct = {
      objects: [{ name: 'O', description: 'doc', fields: [{ name: 'f', type: 'Int' }, { name: 'g', type: 'Int' }] }],
      enums: [{ name: 'E', values: [{ value: 'A' }, { value: 'B' }] }],
    };
    const s = splitActions(actions, ct, existing);
    expect(s.sdl).toBe(`# Project actions
# (header)

type Mutation {
  a: O
}

# above the first block: belongs to action b
type Mutation { # on the block line
  # above b
  b: O # after b
}

enum E {
  # above A
  A
  B # after B
}

# above O
"""doc"""
type O {
  # above f
  f: Int # after f
  g: Int
} # closing O
`);
    // "above gone", "stray comment…" and "above Removed" have nothing left to belong to.
    expect(s.droppedComments).toBe(3);
    expect(splitActions(actions, ct, s.sdl).sdl).toBe(s.sdl);
  });

  it('keeps the comment of the §7.1 template above its action', () => {
    const r = ok(TEMPLATE('login'), LOGIN_YAML);
    const s = splitActions(r.actions, r.custom_types ?? undefined, TEMPLATE('login'));
    expect(s.sdl).toContain('type Mutation {\n  # Define your action as a mutation here\n  login(arg1: SampleInput!): SampleOutput\n}\n');
    expect(s.droppedComments).toBe(0);
  });

  it('keeps the header of a comment-only or unparsable file', () => {
    const actions = [{ name: 'a', definition: { handler: 'http://x', output_type: 'O', kind: 'synchronous' } }];
    expect(splitActions(actions, undefined, '# only a header\n').sdl).toBe('# only a header\n\ntype Mutation {\n  a: O\n}\n');
    const s = splitActions(actions, undefined, '# head\n\ntype Mutation {\n  # lost\n  a: O\n');
    expect(s.sdl).toBe('# head\n\ntype Mutation {\n  a: O\n}\n');
    expect(s.droppedComments).toBe(1);
  });
});

describe('round trip: build(export(build(x))) = build(x)', () => {
  it.each([
    ['the §4.6 example', TEMPLATE('login'), LOGIN_YAML],
    ['the §7.1 template with another name', TEMPLATE('signUp'), 'actions: [{name: signUp, definition: {handler: "http://x"}}]\n'],
    ['the rich example', RICH_SDL, RICH_YAML],
    ['custom types only', 'enum E { A B @deprecated }\ninput I { e: E }\n', null],
    ['empty files', '', null],
  ])('%s', (_, sdl, yaml) => {
    const { r } = merge(sdl, yaml);
    const again = roundTrip(r, sdl);
    expect(JSON.stringify([again.actions, again.custom_types])).toBe(JSON.stringify([r.actions, r.custom_types]));
    // Exporting again writes the same bytes.
    const first = splitActions(r.actions, r.custom_types ?? undefined, sdl);
    const second = splitActions(again.actions, again.custom_types ?? undefined, first.sdl);
    expect(second.sdl).toBe(first.sdl);
    expect(second.yaml).toEqual(first.yaml);
  });

  it('holds for generated metadata: build(export(M)) = M in canonical form (property)', () => {
    const reserved = ['true', 'false', 'null', 'String', 'Int', 'Float', 'Boolean', 'ID', 'Mutation', 'Query', 'Subscription', 'Zenum', 'Zinput', 'Zscalar'];
    const name = fc.stringMatching(/^[_A-Za-z][_0-9A-Za-z]{0,6}$/).filter((n) => !reserved.includes(n));
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 12 }),
      fc.array(fc.constantFrom(' ', '  ', '\n', '\t', '"', '"""', '\\', 'a', 'b c', '\r\n', '\r', '#'), { maxLength: 8 }).map((x) => x.join('')),
    );
    const desc = fc.option(text, { nil: undefined });
    const d = (v: string | undefined): JsonObject => (v === undefined ? {} : { description: v });
    const ref = (named: fc.Arbitrary<string>) => fc.tuple(named, fc.array(fc.integer({ min: 0, max: 2 }), { maxLength: 3 }))
      .map(([t, mods]) => mods.reduce((x, m) => (m === 0 ? (x.endsWith('!') ? x : `${x}!`) : m === 1 ? `[${x}]` : x), t));
    const field = (types: string[]) => fc.record({ name, type: ref(fc.constantFrom(...types)), description: desc });
    const fieldsJson = (fs: { name: string; type: string; description: string | undefined }[]) =>
      fs.filter((f, i) => fs.findIndex((g) => g.name === f.name) === i).map((f) => ({ name: f.name, type: f.type, ...d(f.description) }));
    const arb = fc.record({
      objects: fc.uniqueArray(fc.record({ name, description: desc, fields: fc.array(field(['Int', 'String', 'uuid', 'Zenum', 'Zscalar']), { minLength: 1, maxLength: 3 }) }),
        { minLength: 1, maxLength: 3, selector: (o) => o.name }),
      input: fc.array(field(['Int', 'Zinput', 'Zenum', 'jsonb']), { minLength: 1, maxLength: 2 }),
      values: fc.uniqueArray(fc.record({ value: name, description: desc, deprecated: fc.boolean() }), { minLength: 1, maxLength: 3, selector: (v) => v.value }),
      scalar: desc,
      actions: fc.uniqueArray(fc.record({
        name, output: fc.nat(), list: fc.boolean(), args: fc.array(field(['Int', 'Zinput', 'Zenum', 'uuid']), { maxLength: 2 }),
        kind: fc.constantFrom('synchronous', 'asynchronous'), timeout: fc.option(fc.integer({ min: 1, max: 99 }), { nil: undefined }),
        // (multi-line YAML strings are the YAML writer's business: yaml v2 loses " \n")
        comment: fc.option(fc.string({ maxLength: 12 }), { nil: undefined }), roles: fc.uniqueArray(name, { maxLength: 2 }),
      }), { maxLength: 3, selector: (a) => a.name }),
    });
    const byN = (x: { name: string }, y: { name: string }) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0);
    fc.assert(fc.property(arb, (m) => {
      const objects = [...m.objects].sort(byN).map((o) => ({ name: o.name, ...d(o.description), fields: fieldsJson(o.fields) }));
      const customTypes: JsonObject = {
        input_objects: [{ name: 'Zinput', fields: fieldsJson(m.input) }],
        objects,
        scalars: [{ name: 'Zscalar', ...d(m.scalar) }],
        enums: [{ name: 'Zenum', values: m.values.map((v) => ({ value: v.value, ...d(v.description), ...(v.deprecated ? { is_deprecated: true } : {}) })) }],
      };
      const actions: JsonObject[] = m.actions.filter((a) => !objects.some((o) => o.name === a.name)).sort(byN).map((a) => {
        const out = (objects[a.output % objects.length] as { name: string }).name;
        const args = fieldsJson(a.args);
        return {
          name: a.name,
          definition: {
            handler: `http://h/${a.name}`, output_type: a.list ? `[${out}!]!` : out, ...(args.length > 0 ? { arguments: args } : {}),
            kind: a.kind, ...(a.timeout !== undefined && a.timeout !== 30 ? { timeout: a.timeout } : {}),
          },
          ...(a.comment !== undefined ? { comment: a.comment } : {}),
          ...(a.roles.length > 0 ? { permissions: [...a.roles].sort().map((role) => ({ role })) } : {}),
        };
      });
      const split = splitActions(actions, customTypes);
      const r = ok(split.sdl, yamlText(split.yaml));
      expect(JSON.stringify([r.actions, r.custom_types])).toBe(JSON.stringify([actions, customTypes]));
      const again = roundTrip(r, split.sdl);
      expect(JSON.stringify([again.actions, again.custom_types])).toBe(JSON.stringify([r.actions, r.custom_types]));
    }), { numRuns: 300, seed: 42 });
  });
});
