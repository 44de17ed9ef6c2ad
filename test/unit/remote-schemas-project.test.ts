import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildMetadata } from '../../src/project/metadata-dir/build.js';
import { canonicalDocument } from '../../src/metadata/document.js';

// Issue 35 point 5: metadata/remote_schemas.yaml (config versions 2 and 3 keep it at the same place) is read,
// validated at file positions and canonicalised like every other kind.

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function build(text: string, version = 2) {
  dir = mkdtempSync(join(tmpdir(), 'engine-remote-'));
  const md = join(dir, 'metadata');
  mkdirSync(md);
  writeFileSync(join(md, 'version.yaml'), `version: ${version}\n`);
  if (version === 3) {
    mkdirSync(join(md, 'databases'));
    writeFileSync(join(md, 'databases', 'databases.yaml'), '- name: default\n  kind: postgres\n  configuration: {connection_info: {database_url: {from_env: DB}}}\n  tables: []\n');
  }
  writeFileSync(join(md, 'remote_schemas.yaml'), text);
  const r = buildMetadata(md, dir);
  return { document: r.document, problems: r.problems.sorted().map((p) => `${p.severity} ${p.code} ${p.file}:${p.line}:${p.column} ${p.message}`) };
}

const FULL = `- name: countries
  definition:
    url: "{{COUNTRIES_URL}}/graphql"
    timeout_seconds: 30
    forward_client_headers: true
    headers:
      - {name: x-api-key, value_from_env: COUNTRIES_KEY}
    customization:
      root_fields_namespace: geo
      type_names: {prefix: Geo_}
      field_names: [{parent_type: Country, mapping: {code: iso}}]
  comment: the countries API
  permissions:
    - role: user
      definition: {schema: "type Query { countries: [Country] }"}
`;

describe('remote_schemas.yaml', () => {
  for (const version of [2, 3]) {
    it(`is read in the config version ${version} layout, in canonical form`, () => {
      const r = build(FULL, version);
      expect(r.problems).toEqual([]);
      const rs = (r.document?.['remote_schemas'] as unknown[])[0];
      expect(rs).toEqual({
        name: 'countries',
        definition: {
          url: '{{COUNTRIES_URL}}/graphql', timeout_seconds: 30, forward_client_headers: true,
          headers: [{ name: 'x-api-key', value_from_env: 'COUNTRIES_KEY' }],
          customization: { root_fields_namespace: 'geo', type_names: { prefix: 'Geo_' }, field_names: [{ parent_type: 'Country', mapping: { code: 'iso' } }] },
        },
        comment: 'the countries API',
        permissions: [{ role: 'user', definition: { schema: 'type Query { countries: [Country] }' } }],
      });
      // Canonical: building the canonical form again gives the same bytes.
      expect(JSON.stringify(canonicalDocument(r.document))).toBe(JSON.stringify(r.document));
    });
  }

  it('reports a wrong key at its position', () => {
    const r = build('- name: a\n  definition:\n    url: http://a\n    timeout_secs: 3\n');
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]).toMatch(/^error metadata-unknown-key metadata\/remote_schemas\.yaml:4:5 unknown key "timeout_secs"/);
    expect(r.document).toBeNull();
  });

  it('reports a definition with both url and url_from_env', () => {
    const r = build('- name: a\n  definition: {url: "http://a", url_from_env: A}\n');
    expect(r.problems.length).toBeGreaterThan(0);
    expect(r.problems[0]).toContain('metadata/remote_schemas.yaml:2:');
  });
});
