import { describe, expect, it } from 'vitest';
import { parse, print } from 'graphql';
import { splitActions } from '../../src/project/metadata-dir/actions-sdl.js';
import { LOGIN_YAML, merge, ok, RICH_SDL, RICH_YAML, TEMPLATE, yamlText } from './actions-sdl-fixtures.js';

// splitActions: the bytes written for actions.graphql and actions.yaml, and the comments kept from the existing file.

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
