import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildMetadata } from '../../src/project/metadata-dir/build.js';

// Issue 12 item 5: what engine does not support yet is an error at its file:line:col, naming the feature, before
// any request is sent (validate, build, diff and apply build the same way); no file is passed over in silence.

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function build(files: Record<string, string>): string[] {
  dir = mkdtempSync(join(tmpdir(), 'engine-unsupported-'));
  const md = join(dir, 'metadata');
  mkdirSync(md);
  for (const [name, text] of Object.entries({ 'version.yaml': 'version: 2\n', ...files })) {
    if (name.endsWith('/')) mkdirSync(join(md, name), { recursive: true });
    else writeFileSync(join(md, name), text);
  }
  const r = buildMetadata(md, dir);
  return r.problems.sorted().map((p) => `${p.severity} ${p.code} ${p.file}:${p.line}:${p.column} ${p.message}`);
}

const HINT = 'remove it from the metadata directory, or keep it on a branch until engine supports it';

describe('unsupported features (issue 12 item 5)', () => {
  it('reads remote relationships as the engine does (issue 35): each problem at its definition, to_source not supported', () => {
    expect(build({
      'remote_schemas.yaml': '# ours\n- name: weather\n  definition: {url: "http://w"}\n- name: billing\n  definition: {url_from_env: BILLING_URL}\n',
      'tables.yaml': '- table: article\n  remote_relationships:\n    - name: ok\n      definition: {to_remote_schema: {remote_schema: billing, lhs_fields: [id], remote_field: {order: {arguments: {id: $id}}}}}\n' +
        '- table: author\n  remote_relationships:\n    - name: orders\n      definition: {remote_schema: billing}\n    - name: elsewhere\n      definition: {to_source: {source: other, table: t}}\n',
    })).toEqual([
      'error metadata-invalid metadata/tables.yaml:8:7 remote relationship "orders": the key "hasura_fields" was not present',
      `error feature-not-supported metadata/tables.yaml:10:7 engine does not support remote relationships to a table of another source (to_source) yet; ${HINT}`,
    ]);
  });

  it('reports files of features engine lacks when they hold anything (api_limits.yaml is read), and the version 3 layout in a version 2 project', () => {
    expect(build({
      'api_limits.yaml': 'rate_limit: {global: {max_reqs_per_min: 10}}\n',
      'metrics_config.yaml': 'analyze_query_variables: true\n',
      'opentelemetry.yaml': '# nothing\n{}\n',
      'network.yaml': '',
      'inherited_roles.yaml': '[]\n',
      'databases/': '',
    })).toEqual([
      'error config-version-mismatch metadata/databases/:1:1 metadata/databases/ is the config version 3 layout, but the project is at config version 2; its tables and functions would be ignored; set "version: 3" in config.yaml and in version.yaml',
      `error feature-not-supported metadata/metrics_config.yaml:1:1 engine does not support metrics configuration yet; ${HINT}`,
    ]);
  });

  it('warns about any other file, so nothing is ignored in silence', () => {
    expect(build({ 'tables.yaml': '[]\n', 'notes.md': '# why\n' })).toEqual([
      'warning metadata-file-ignored metadata/notes.md:1:1 notes.md is not a metadata file engine reads; it is ignored',
    ]);
  });
});

describe('table configuration, offline (issue 12 item 4)', () => {
  it('checks names and keys at their positions', () => {
    expect(build({
      'tables.yaml': '- table: author\n  configuration:\n    custom_root_fields: {selekt: writers}\n    custom_column_names:\n      full_name: full name\n',
    })).toEqual([
      'error metadata-unknown-key metadata/tables.yaml:3:26 unknown key "selekt" in "custom_root_fields" of "configuration" of table public.author (did you mean "select"?)',
      'error name-invalid metadata/tables.yaml:5:18 invalid column name "full name": expected a GraphQL name',
    ]);
  });
});
