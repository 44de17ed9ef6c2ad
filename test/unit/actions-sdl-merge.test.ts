import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/metadata/json.js';
import { at, G, LOGIN_YAML, ok, TEMPLATE, Y } from './actions-sdl-fixtures.js';

// mergeActions on valid input: the §4.6 example, empty files and the canonical form. Problems: actions-sdl-errors.test.ts.

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
