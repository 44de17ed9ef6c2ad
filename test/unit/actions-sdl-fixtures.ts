import { expect } from 'vitest';
import { stringify } from 'yaml';
import { mergeActions, splitActions, type MergeResult } from '../../src/project/metadata-dir/actions-sdl.js';
import type { JsonObject } from '../../src/metadata/json.js';
import { Problems, type Problem } from '../../src/project/problems.js';
import { parseYaml } from '../../src/project/yaml-source.js';

// Shared by the actions-sdl-*.test.ts files: the merge/split wrappers, problem builders and example files.

export const G = 'metadata/actions.graphql';
export const Y = 'metadata/actions.yaml';

export function merge(sdl: string | null, yaml: string | null): { r: MergeResult; problems: Problem[] } {
  const problems = new Problems();
  const src = yaml === null ? null : parseYaml(Y, yaml, problems);
  expect(problems.list).toEqual([]);
  const r = mergeActions(sdl === null ? null : { file: G, text: sdl }, src, problems);
  return { r, problems: problems.sorted() };
}

/** merge that must succeed without problems. */
export function ok(sdl: string | null, yaml: string | null): MergeResult {
  const { r, problems } = merge(sdl, yaml);
  expect(problems).toEqual([]);
  return r;
}

export const at = (file: string, line: number, column: number) => ({ file, line, column });
export const e = (code: string, message: string, file: string, line: number, column: number): Problem =>
  ({ severity: 'error', code, message, file, line, column });
export const w = (code: string, message: string, file: string, line: number, column: number): Problem =>
  ({ severity: 'warning', code, message, file, line, column });

export const yamlText = (v: JsonObject): string => stringify(v, { indent: 2, indentSeq: true, lineWidth: 0 });

/** build(export(build(x))) for the two files. */
export function roundTrip(r: MergeResult, existingSdl?: string): MergeResult {
  const s = splitActions(r.actions, r.custom_types ?? undefined, existingSdl);
  return ok(s.sdl, yamlText(s.yaml));
}

export const TEMPLATE = (name: string) => `type Mutation {
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
export const LOGIN_YAML = 'actions:\n  - {name: login, definition: {kind: synchronous, handler: "{{AUTH_URL}}/login"}, permissions: [{role: anonymous}]}\n';

/** A richer pair of files: every section, descriptions of every kind, relationships, headers, permissions. */
export const RICH_SDL = `type Mutation {
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
export const RICH_YAML = `actions:
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
