/**
 * End-to-end: a metadata file that does not parse is reported once, and nothing that depends on its content is
 * reported besides (issue 37 item 2): no "not in tables.yaml" for the tables of a tables.yaml with a YAML error, no
 * "unknown query collection" for a broken query_collections.yaml. `metadata validate` is offline: no engine here.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cli, lines, removeTempDirs, show, tempDir } from './cli-helpers.js';

afterEach(removeTempDirs);

const TABLES = `- table:
    schema: public
    name: users
  select_permissions:
    - role: user
      permission:
        columns: [id]
       filter: {}
`;
const ACTIONS_GRAPHQL = 'type Mutation {\n  login(u: String!): Out\n}\n\ntype Out {\n  id: Int\n}\n';
const ACTIONS_YAML = `actions:
  - name: login
    definition:
      kind: synchronous
      handler: http://localhost:3000/login
custom_types:
  objects:
    - name: Out
      relationships:
        - name: user
          type: object
          remote_table:
            schema: public
            name: users
          field_mapping:
            id: id
`;

async function project(files: Record<string, string>): Promise<string> {
  const root = await tempDir();
  const init = await cli(['init', 'p'], { cwd: root });
  expect(init.code, show(init)).toBe(0);
  const dir = join(root, 'p');
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, 'metadata', name), text);
  return dir;
}

describe('metadata validate after a file fails to parse', () => {
  it('tables.yaml with an indentation error: that error only, no reference finding from actions.yaml', async () => {
    const dir = await project({ 'tables.yaml': TABLES, 'actions.graphql': ACTIONS_GRAPHQL, 'actions.yaml': ACTIONS_YAML });
    const r = await cli(['metadata', 'validate'], { cwd: dir });
    expect(r.code, show(r)).toBe(1);
    expect(lines(r.stdout)).toEqual(['metadata/tables.yaml:8:1: error: All mapping items must start at the same column [yaml-parse-error]']);
    // Once tables.yaml parses (and holds no users), the reference is checked again.
    writeFileSync(join(dir, 'metadata', 'tables.yaml'), '[]\n');
    const fixed = await cli(['metadata', 'validate'], { cwd: dir });
    expect(fixed.code, show(fixed)).toBe(1);
    expect(lines(fixed.stdout)).toEqual([expect.stringMatching(/^metadata\/actions\.yaml:\d+:\d+: error: relationship "user" of type "Out" refers to table public\.users, which is not in tables\.yaml \[reference-invalid\]$/)]);
  });

  it('query_collections.yaml that does not parse: no "unknown query collection" for allow_list.yaml', async () => {
    const dir = await project({ 'query_collections.yaml': '- name: c\n  definition: [\n', 'allow_list.yaml': '- collection: c\n' });
    const r = await cli(['metadata', 'validate'], { cwd: dir });
    expect(r.code, show(r)).toBe(1);
    expect(lines(r.stdout)).toHaveLength(1);
    expect(lines(r.stdout)[0]).toMatch(/^metadata\/query_collections\.yaml:\d+:\d+: error: .* \[yaml-parse-error\]$/);
  });
});
