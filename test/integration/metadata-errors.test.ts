import { describe, expect, it } from 'vitest';
import { useTestEngine } from '../helpers/engine.js';
import { expectErrorKeys } from '../helpers/assertions.js';

// replace_metadata parse errors and duplicates, in both argument forms (engine-api.md §4.8.2 steps 1 and 3,
// §6.5; §7 rows 74–77 and 79). In the second form the paths start with $.args.metadata.

// Each test starts from the same metadata: author tracked (resource_version 2).
const e = useTestEngine({ setup: async () => {
  await e.sql('create table author (id serial primary key, name text); create table article (id serial primary key, author_id int references author(id))');
  await e.ok({ type: 'track_table', args: 'author' });
} });

interface Case {
  name: string;
  doc: Record<string, unknown>;
  /** Path inside the document: '' for the document itself, else '.tables[0]' … */
  at: string;
  code: string;
  error: string;
}

const rel = (name: string) => ({ name, using: { foreign_key_constraint_on: 'author_id' } });
const arrRel = (name: string) => ({ name, using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } });

const CASES: Case[] = [
  // Row 74: unknown top-level keys, all of them, in the order given.
  { name: 'unknown top-level keys', doc: { version: 2, tables: [], sources: [], foo: 1 }, at: '', code: 'parse-failed', error: 'unexpected keys in metadata: "sources", "foo"' },
  // Row 75: unknown table-entry keys.
  { name: 'unknown table key', doc: { version: 2, tables: [{ table: 'author' }, { table: 'article', permissions: [], relationships: [] }] }, at: '.tables[1]', code: 'parse-failed', error: 'unexpected keys in table metadata: "permissions", "relationships"' },
  // Row 76: §6.5 sections and table keys not at their defaults.
  // Issue 35: remote schemas are parsed and checked like their operations' arguments.
  { name: 'remote_schemas', doc: { version: 2, tables: [], remote_schemas: ['a', 'a'].map((name) => ({ name, definition: { url: 'http://example.com/graphql' } })) }, at: '.remote_schemas', code: 'already-exists', error: 'multiple declarations exist for the following remote schemas : "a"' },
  { name: 'remote schema customization', doc: { version: 2, tables: [], remote_schemas: [{ name: 'a', definition: { url: 'http://example.com/graphql', customization: { root_fields_namespace: 'not ok' } } }] }, at: '.remote_schemas[0].definition.customization.root_fields_namespace', code: 'parse-failed', error: '"not ok" is not a valid GraphQL name' },
  // Issue 20: query collections, the allow list and cron triggers are parsed and checked like their operations.
  { name: 'query_collections', doc: { version: 2, tables: [], query_collections: [{ name: 'qc', definition: { queries: [{ name: 'q', query: '{ a' }] } }] }, at: '.query_collections[0].definition.queries[0].query', code: 'parse-failed', error: 'query "q" is not a valid GraphQL document: Expected Name, found <EOF>. (query line 1, column 4)' },
  { name: 'allowlist', doc: { version: 2, tables: [], allowlist: [{ collection: 'qc' }] }, at: '.allowlist[0].collection', code: 'not-exists', error: 'query collection "qc" does not exist' },
  { name: 'cron_triggers', doc: { version: 2, tables: [], cron_triggers: [{ name: 'c', webhook: 'http://example.com', schedule: '* * * 13 *', include_in_metadata: true }] }, at: '.cron_triggers[0].schedule', code: 'parse-failed', error: 'invalid cron schedule "* * * 13 *": field "month" is out of range' },
  { name: 'rest_endpoints', doc: { version: 2, tables: [], query_collections: [{ name: 'qc', definition: { queries: [{ name: 'q', query: '{ a }' }] } }], rest_endpoints: [{ name: 'r', url: 'a/:id', methods: ['GET'], definition: { query: { collection_name: 'qc', query_name: 'q' } } }, { name: 's', url: 'a/b', methods: ['GET', 'POST'], definition: { query: { collection_name: 'qc', query_name: 'q' } } }] }, at: '.rest_endpoints', code: 'already-exists', error: 'REST endpoint "s" (a/b) collides with "r" (a/:id)' },
  // Issue 12 item 4: is_enum and configuration are accepted; a configuration is checked like the rest of the entry.
  { name: 'configuration key', doc: { version: 2, tables: [{ table: 'author', configuration: { custom_root_fields: { select: 'writers' }, custom_names: {} } }] }, at: '.tables[0].configuration', code: 'parse-failed', error: 'unexpected keys in table configuration: "custom_names"' },
  { name: 'configuration root field', doc: { version: 2, tables: [{ table: 'author', configuration: { custom_root_fields: { selekt: 'writers' } } }] }, at: '.tables[0].configuration.custom_root_fields', code: 'parse-failed', error: 'unexpected keys in custom_root_fields: "selekt"' },
  { name: 'configuration name', doc: { version: 2, tables: [{ table: 'author', configuration: { custom_column_names: { name: 'full name' } } }] }, at: '.tables[0].configuration.custom_column_names.name', code: 'parse-failed', error: '"full name" is not a valid GraphQL name' },
  // Issue 35.3: remote relationships are read like create_remote_relationship's arguments; one to another source is not supported.
  { name: 'remote_relationships', doc: { version: 2, tables: [{ table: 'author', remote_relationships: [{ name: 'r', definition: {} }] }] }, at: '.tables[0].remote_relationships[0].definition', code: 'parse-failed', error: 'the key "remote_schema" was not present' },
  { name: 'remote_relationships to_source', doc: { version: 2, tables: [{ table: 'author', remote_relationships: [{ name: 'r', definition: { to_source: {} } }] }] }, at: '.tables[0].remote_relationships[0].definition.to_source', code: 'not-supported', error: 'remote relationships to a table of another source are not supported: engine has one database' },
  // Row 77: version other than 2.
  { name: 'version 1', doc: { version: 1, tables: [] }, at: '.version', code: 'parse-failed', error: 'expected one of 2, encountered 1' },
  { name: 'version 3', doc: { version: 3, tables: [] }, at: '.version', code: 'parse-failed', error: 'expected one of 2, encountered 3' },
  { name: 'version "2"', doc: { version: '2', tables: [] }, at: '.version', code: 'parse-failed', error: 'expected one of 2, encountered "2"' },
  // Entries are parsed like the corresponding operations' arguments, at paths inside the document (§1.6).
  { name: 'tables not an array', doc: { version: 2, tables: { table: 'author' } }, at: '.tables', code: 'parse-failed', error: 'expected Array, encountered Object' },
  { name: 'table key missing', doc: { version: 2, tables: [{ table: 'author' }, { object_relationships: [] }] }, at: '.tables[1]', code: 'parse-failed', error: 'the key "table" was not present' },
  { name: 'bad relationship name', doc: { version: 2, tables: [{ table: 'article', object_relationships: [rel('ok'), rel('not ok')] }] }, at: '.tables[0].object_relationships[1].name', code: 'parse-failed', error: '"not ok" is not a valid GraphQL name' },
  { name: 'both using keys', doc: { version: 2, tables: [{ table: 'article', object_relationships: [{ name: 'a', using: { foreign_key_constraint_on: 'author_id', manual_configuration: { remote_table: 'author', column_mapping: {} } } }] }] }, at: '.tables[0].object_relationships[0].using', code: 'parse-failed', error: 'only one of "foreign_key_constraint_on" or "manual_configuration" may be given' },
  // Row 79: duplicates, names double-quoted, each once, in order of first repetition.
  { name: 'duplicate tables', doc: { version: 2, tables: [{ table: 'author' }, { table: { schema: 'public', name: 'author' } }] }, at: '.tables', code: 'already-exists', error: 'multiple declarations exist for the following tables : "author"' },
  {
    name: 'duplicate tables, several',
    doc: { version: 2, tables: ['a', 'b', { schema: 'billing', name: 'invoice' }, 'b', 'a', 'a', { name: 'invoice', schema: 'billing' }].map((table) => ({ table })) },
    at: '.tables', code: 'already-exists', error: 'multiple declarations exist for the following tables : "b", "a", "billing.invoice"',
  },
  {
    name: 'duplicate relationships (object and array together)',
    doc: { version: 2, tables: [{ table: 'article', object_relationships: [rel('x'), rel('y')] }, { table: 'author', object_relationships: [rel('y')], array_relationships: [arrRel('z'), arrRel('y')] }] },
    at: '.tables[1]', code: 'already-exists', error: 'multiple declarations exist for the following relationships : "y"',
  },
  { name: 'duplicate functions', doc: { version: 2, tables: [], functions: ['f', 'g', { function: { schema: 'public', name: 'f' } }] }, at: '.functions', code: 'already-exists', error: 'multiple declarations exist for the following functions : "f"' },
  {
    name: 'duplicate tables before relationships and functions',
    doc: { version: 2, tables: [{ table: 'author', object_relationships: [rel('x'), rel('x')] }, { table: 'author' }], functions: ['f', 'f'] },
    at: '.tables', code: 'already-exists', error: 'multiple declarations exist for the following tables : "author"',
  },
  {
    name: 'duplicate relationships before functions',
    doc: { version: 2, tables: [{ table: 'author', object_relationships: [rel('x'), rel('x')] }], functions: ['f', 'f'] },
    at: '.tables[0]', code: 'already-exists', error: 'multiple declarations exist for the following relationships : "x"',
  },
];

describe('replace_metadata, first form: errors at $.args…', () => {
  it.each(CASES)('$name', async (c) => {
    await expectErrorKeys(e, { type: 'replace_metadata', args: c.doc }, 400, { path: `$.args${c.at}`, error: c.error, code: c.code });
  });
});

describe('replace_metadata, second form: errors at $.args.metadata…', () => {
  it.each(CASES)('$name', async (c) => {
    await expectErrorKeys(e, { type: 'replace_metadata', args: { metadata: c.doc, resource_version: 2, allow_inconsistent_metadata: true } }, 400,
      { path: `$.args.metadata${c.at}`, error: c.error, code: c.code });
  });
});

describe('replace_metadata, second form: its own arguments', () => {
  it('the first form has no resource_version: it is an unknown top-level key', async () => {
    await expectErrorKeys(e, { type: 'replace_metadata', args: { version: 2, tables: [], resource_version: 2 } }, 400,
      { path: '$.args', error: 'unexpected keys in metadata: "resource_version"', code: 'parse-failed' });
  });

  it('rejects a metadata value that is not an object', async () => {
    await expectErrorKeys(e, { type: 'replace_metadata', args: { metadata: [] } }, 400,
      { path: '$.args.metadata', error: 'expected Object, encountered Array', code: 'parse-failed' });
  });

  it('rejects a resource_version that is not an integer', async () => {
    await expectErrorKeys(e, { type: 'replace_metadata', args: { metadata: { version: 2, tables: [] }, resource_version: '2' } }, 400,
      { path: '$.args.resource_version', error: 'expected Number, encountered String', code: 'parse-failed' });
  });

  it('rejects an allow_inconsistent_metadata that is not a boolean', async () => {
    await expectErrorKeys(e, { type: 'replace_metadata', args: { metadata: { version: 2, tables: [] }, allow_inconsistent_metadata: 'yes' } }, 400,
      { path: '$.args.allow_inconsistent_metadata', error: 'expected Boolean, encountered String', code: 'parse-failed' });
  });
});

describe('replace_metadata: unsupported keys at their defaults are accepted (§6.5)', () => {
  it('stores nothing of them', async () => {
    const doc = {
      version: 2,
      tables: [{ table: 'author', is_enum: false, configuration: {}, remote_relationships: [] }, { table: 'article', is_enum: null, configuration: null, remote_relationships: null }],
      remote_schemas: [], query_collections: [], allowlist: [], cron_triggers: [],
    };
    await e.ok({ type: 'replace_metadata', args: doc });
    const r = await e.query({ type: 'export_metadata', args: {} });
    expect(r.text).toBe('{"version":2,"tables":[{"table":{"schema":"public","name":"article"}},{"table":{"schema":"public","name":"author"}}]}');
    expect(r.headers.get('x-engine-resource-version')).toBe('3');
  });
});
