import { describe, expect, it } from 'vitest';
import { mergeActions } from '../../src/project/metadata-dir/actions-sdl.js';
import { Problems } from '../../src/project/problems.js';
import { parseYaml } from '../../src/project/yaml-source.js';
import { at, e, G, merge, w, Y } from './actions-sdl-fixtures.js';

// The problems mergeActions reports for actions.graphql and actions.yaml, with their positions.

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
      'type Subscription { c: Int }', // 2
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
      'type Subscription { b: Int }', // 18
    ].join('\n');
    const { problems } = merge(sdl, 'actions: [{name: a, definition: {handler: "http://x"}}]\n');
    const u = (what: string, line: number, column: number) => e('sdl-unsupported', `${what} is not supported in actions.graphql`, G, line, column);
    expect(problems).toEqual([
      u('a schema definition', 1, 1),
      u('type Subscription', 2, 1),
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
      u('type Subscription', 18, 1),
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
      t('field "Out.h" of an object type must be a scalar, enum or object type', 7, 31),
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
