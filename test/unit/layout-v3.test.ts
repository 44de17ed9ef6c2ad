import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/metadata/json.js';
import { exportV3, readExistingV3 } from '../../src/project/metadata-dir/layout-v3/write.js';
import { buildMetadata } from '../../src/project/metadata-dir/build.js';

// Issue 12 item 3: the config version 3 layout. Problems are reported at the file:line:col of the file a value is
// written in, across "!include"; include errors, several databases and what the layout alone has are checked offline.

const FIXTURE = new URL('../fixtures/projects/layout-v3/metadata', import.meta.url).pathname;
const TABLES = 'metadata/databases/default/tables';
const DATABASE = `- name: default
  kind: postgres
  configuration:
    connection_info:
      database_url:
        from_env: PG_DATABASE_URL
  tables: "!include default/tables/tables.yaml"
`;

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A version 3 metadata directory: the fixture's, or only version.yaml, plus `files` (path → text, null removes). */
function project(files: Record<string, string | null>, fromFixture = false): string {
  dir = mkdtempSync(join(tmpdir(), 'engine-v3-'));
  const md = join(dir, 'metadata');
  if (fromFixture) cpSync(FIXTURE, md, { recursive: true });
  else mkdirSync(md);
  writeFileSync(join(md, 'version.yaml'), 'version: 3\n');
  for (const [name, text] of Object.entries(files)) {
    const path = join(md, name);
    if (text === null) rmSync(path);
    else {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
    }
  }
  return md;
}

function problems(md: string): string[] {
  return buildMetadata(md, dir, 3).problems.sorted().map((p) => `${p.severity} ${p.code} ${p.file}:${p.line}:${p.column} ${p.message}`);
}

describe('reading the version 3 layout', () => {
  it('builds the fixture and locates each object in its own file', () => {
    const md = project({}, true);
    const r = buildMetadata(md, dir, 3);
    expect(r.problems.list).toEqual([]);
    const doc = r.document as { tables: { table: { name: string } }[]; functions: unknown[] };
    expect(doc.tables.map((t) => t.table.name)).toEqual(['article', 'author']);
    expect(doc.functions).toEqual([{ function: { schema: 'public', name: 'search_articles' } }]);
    const at = (key: string) => {
      const p = r.origins.get(key);
      return p && `${p.file}:${p.line}:${p.column}`;
    };
    expect(at('table:public.author')).toBe(`${TABLES}/public_author.yaml:2:1`);
    expect(at('select_permission:public.author.user')).toBe(`${TABLES}/public_author.yaml:15:5`);
    expect(at('function:public.search_articles')).toBe('metadata/databases/default/functions/public_search_articles.yaml:1:1');
  });

  it('reports problems of an included file at its line and column', () => {
    const md = project({
      'databases/default/tables/public_author.yaml': 'table:\n  name: author\nselect_permissions:\n  - role: user\n    permision: {}\n',
      'databases/default/tables/public_article.yaml': 'table: article\nremote_relationships:\n  - name: r\n    definition: {}\n',
    }, true);
    expect(problems(md)).toEqual([
      `error metadata-invalid ${TABLES}/public_article.yaml:4:5 remote relationship "r": the key "remote_schema" was not present`,
      `error metadata-invalid ${TABLES}/public_author.yaml:4:5 select permission for role "user" on public.author is missing required key "permission"`,
      `error metadata-unknown-key ${TABLES}/public_author.yaml:5:5 unknown key "permision" in select permission for role "user" on public.author (did you mean "permission"?)`,
    ]);
  });

  it('a missing include, a cycle and an include leaving the metadata directory are errors at the include', () => {
    const md = project({
      'databases/databases.yaml': DATABASE,
      'databases/default/tables/tables.yaml': '- "!include gone.yaml"\n- "!include ../../../../secret.yaml"\n- "!include loop.yaml"\n- "!include self.yaml"\n',
      'databases/default/tables/loop.yaml': '"!include again.yaml"\n',
      'databases/default/tables/again.yaml': '# back\n"!include loop.yaml"\n',
      'databases/default/tables/self.yaml': 'table: x\nselect_permissions: "!include self.yaml"\n',
    });
    writeFileSync(join(dir, 'secret.yaml'), 'table: secret\n');
    expect(problems(md)).toEqual([
      `error include-cycle ${TABLES}/again.yaml:2:1 !include "loop.yaml" makes a cycle: ${TABLES}/loop.yaml → ${TABLES}/again.yaml → ${TABLES}/loop.yaml; a file may not include itself, directly or through others`,
      `error include-cycle ${TABLES}/self.yaml:2:21 !include "self.yaml" makes a cycle: ${TABLES}/self.yaml → ${TABLES}/self.yaml; a file may not include itself, directly or through others`,
      `error include-not-found ${TABLES}/tables.yaml:1:3 !include "gone.yaml": ${TABLES}/gone.yaml does not exist; create the file, or fix the path (relative to the including file)`,
      `error include-outside-metadata ${TABLES}/tables.yaml:2:3 !include "../../../../secret.yaml" points outside the metadata directory metadata/; include only files inside the metadata directory`,
    ]);
  });

  it('one database: a second one, another kind and the features of a database engine lacks are errors at their positions', () => {
    const md = project({
      'databases/databases.yaml': `- name: main
  kind: citus
  native_queries: [{root_field_name: q}]
  configuration:
    connection_info:
      database_url: {from_env: PG_DATABASE_URL}
      pool_settings: {max_connections: 50}
    read_replicas: []
  tables: []
  colour: blue
- name: other
  kind: postgres
`,
    });
    expect(problems(md)).toEqual([
      'error feature-not-supported metadata/databases/databases.yaml:2:9 engine does not support databases of kind "citus" yet (only postgres); remove it from the metadata directory, or keep it on a branch until engine supports it',
      'error feature-not-supported metadata/databases/databases.yaml:3:3 engine does not support native queries yet; remove it from the metadata directory, or keep it on a branch until engine supports it',
      'warning database-setting-ignored metadata/databases/databases.yaml:8:5 setting "read_replicas" of database "main" has no effect: engine uses the database it is started with (engine serve --database-url); the setting is kept as written',
      'error metadata-unknown-key metadata/databases/databases.yaml:10:3 unknown key "colour" in database "main"',
      'error feature-not-supported metadata/databases/databases.yaml:11:3 engine does not support several databases yet: database "other" is a second one; engine serves one database; remove it from the metadata directory, or keep it on a branch until engine supports it',
    ]);
  });

  it('tables written in databases.yaml itself are located there; version.yaml must say 3', () => {
    const md = project({
      'version.yaml': 'version: 2\n',
      'databases/databases.yaml': '- name: default\n  tables:\n    - table: author\n      select_permissions: [{role: user}]\n',
    });
    expect(problems(md)).toEqual([
      'error metadata-invalid metadata/databases/databases.yaml:4:28 select permission for role "user" on public.author is missing required key "permission"',
      'error metadata-version-unsupported metadata/version.yaml:1:10 unsupported metadata version 2: expected 3 (config.yaml says version 3)',
    ]);
  });

  it('a file named databases is no databases directory: ignored, and said so', () => {
    const md = project({ databases: '- name: default\n' });
    expect(problems(md)).toEqual(['warning metadata-file-ignored metadata/databases:1:1 databases is not a metadata file engine reads; it is ignored']);
  });

  it('files nothing includes, and version 2 files, are reported as ignored; unsupported files still are errors', () => {
    const md = project({
      'databases/databases.yaml': DATABASE,
      'databases/default/tables/tables.yaml': '[]\n',
      'databases/default/tables/public_old.yaml': 'table: old\n',
      'tables.yaml': '- table: author\n',
      'network.yaml': 'tls: {}\n',
    });
    expect(problems(md)).toEqual([
      `warning metadata-file-ignored ${TABLES}/public_old.yaml:1:1 databases/default/tables/public_old.yaml is not included from databases/databases.yaml; it is ignored`,
      'error feature-not-supported metadata/network.yaml:1:1 engine does not support network settings (TLS allow list) yet; remove it from the metadata directory, or keep it on a branch until engine supports it',
      'warning metadata-file-ignored metadata/tables.yaml:1:1 tables.yaml is not a metadata file engine reads; it is ignored',
    ]);
  });
});

describe('export in the version 3 layout', () => {
  it('keeps each table in its file with its comments, adds files for new tables and removes those of dropped ones', () => {
    const md = project({
      'databases/default/tables/tables.yaml': '# the tables\n- "!include author.yaml"\n- "!include public_article.yaml"\n',
      'databases/default/tables/author.yaml': '# writers\ntable:\n  name: author # short form\n',
      'databases/default/tables/public_author.yaml': null,
      'databases/default/functions/functions.yaml': '- "!include public_search_articles.yaml"\n',
      // Not included: kept, and no new table takes its name.
      'databases/default/tables/public_x_y.yaml': '# a draft\n',
    }, true);
    const doc = buildMetadata(md, dir, 3).document as JsonObject;
    const tables = doc['tables'] as JsonObject[];
    doc['tables'] = [tables[1] as JsonObject, { table: { schema: 'public', name: 'x_y' } }, { table: { schema: 'public_x', name: 'y' } }];
    doc['functions'] = [];
    const report = exportV3(md, doc, readExistingV3(md), false);
    expect(report.created.sort()).toEqual([`databases/default/tables/public_x_y_2.yaml`, `databases/default/tables/public_x_y_3.yaml`]);
    expect(report.removed.sort()).toEqual([
      'databases/default/functions/public_search_articles.yaml', 'databases/default/tables/public_article.yaml',
    ]);
    const read = (p: string) => readFileSync(join(md, p), 'utf8');
    expect(read('databases/default/tables/tables.yaml')).toBe('# the tables\n- "!include author.yaml"\n- "!include public_x_y_2.yaml"\n- "!include public_x_y_3.yaml"\n');
    expect(read('databases/default/tables/public_x_y.yaml')).toBe('# a draft\n');
    expect(read('databases/default/tables/author.yaml').startsWith('# writers\ntable:\n  schema: public\n  name: author # short form\n')).toBe(true);
    // A name YAML 1.1 reads as a boolean is quoted (issue 29).
    expect(read('databases/default/tables/public_x_y_3.yaml')).toBe('table:\n  schema: public_x\n  name: "y"\n');
    // The database keeps its functions list, now empty.
    expect(read('databases/default/functions/functions.yaml')).toBe('[]\n');
    expect(read('databases/databases.yaml')).toBe(readFileSync(join(FIXTURE, 'databases/databases.yaml'), 'utf8'));
    expect(buildMetadata(md, dir, 3).problems.list.map((p) => p.code)).toEqual(['metadata-file-ignored']);
    // Exporting the same again changes nothing.
    const again = exportV3(md, buildMetadata(md, dir, 3).document as JsonObject, readExistingV3(md), false);
    expect(again.created.length + again.updated.length + again.removed.length).toBe(0);
  });

  it('writes databases.yaml, the list and one file per table into a new directory', () => {
    dir = mkdtempSync(join(tmpdir(), 'engine-v3-'));
    const md = join(dir, 'metadata');
    const report = exportV3(md, { version: 2, tables: [{ table: { schema: 'public', name: 'author' } }] }, readExistingV3(md), false);
    expect(report.created).toContain('databases/default/tables/public_author.yaml');
    expect(readFileSync(join(md, 'databases/databases.yaml'), 'utf8')).toBe(
      '- name: default\n  kind: postgres\n  configuration:\n    connection_info:\n      database_url:\n        from_env: ENGINE_GRAPHQL_DATABASE_URL\n  tables: "!include default/tables/tables.yaml"\n');
    expect(readFileSync(join(md, 'version.yaml'), 'utf8')).toBe('version: 3\n');
    expect(buildMetadata(md, dir, 3).problems.list).toEqual([]);
  });
});
