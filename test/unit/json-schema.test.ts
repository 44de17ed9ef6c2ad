/**
 * The JSON Schemas of schemas/ (editor support) against the offline validator they are generated beside: the committed
 * files are the generator's output; every valid input is accepted by both; every structural error is reported by the
 * validator and rejected by the schema (one table, run through both); `engine init` points each file at its schema.
 *
 * What a schema cannot express, and stays the validator's alone:
 * - duplicates: tables, relationship and computed-field names per table, permissions per role, event-trigger names over
 *   all tables, functions, remote schemas, query collections and queries, allow-list entries, actions, action
 *   permissions, custom types, cron triggers (cli.md §4.13);
 * - references across entries and files: allow-list collections, custom-type relationship tables, permission
 *   `computed_fields` of the table, and the actions.graphql ↔ actions.yaml rules of cli.md §4.3–§4.6;
 * - BoolExp beyond its logical keys: operator names, operand shapes, operators mixed with field names;
 * - the GraphQL syntax of queries, the ranges and steps of cron fields (the schema checks their syntax), URL parsing
 *   (the schema's pattern is an approximation of "an http(s) URL"), non-ASCII case folding of ENGINE_GRAPHQL_;
 * - config.yaml values as the validator reads them: by their source text (`version: 2.0` is not `2`), and `${VAR}`
 *   references only once interpolated.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import jsyaml from 'js-yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { CliError } from '../../src/errors.js';
import type { JsonObject } from '../../src/metadata/json.js';
import { mergeActions } from '../../src/project/metadata-dir/actions-sdl.js';
import { readActionsYaml } from '../../src/project/metadata-dir/actions-yaml.js';
import { loadConfig } from '../../src/project/config/config.js';
import { initProject, schemaLine, SCHEMAS_DIR } from '../../src/project/init/init.js';
import { jsonSchema, SCHEMA_NAMES, schemaFiles } from '../../src/project/validate/json-schema.js';
import { buildMetadata, METADATA_FILES, OPTIONAL_FILES, type MetadataFileKey } from '../../src/project/metadata-dir/build.js';
import { readExistingFiles, renderFiles } from '../../src/project/metadata-dir/export.js';
import { Problems } from '../../src/project/problems.js';
import type { SchemaName } from '../../src/project/validate/shapes.js';
import type { MetadataSources } from '../../src/project/validate/validate.js';
import { parseYaml } from '../../src/project/yaml-source.js';
import { CONFIG_ENV, INVALID, VALID } from './json-schema-cases.js';
import { validate } from './validate-helpers.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURES = join(ROOT, 'test/fixtures/metadata');

const ajv = new Ajv({ strict: true, allowUnionTypes: true, allErrors: true });
const validators = new Map<SchemaName, ValidateFunction>(SCHEMA_NAMES.map((n) => [n, ajv.compile(jsonSchema(n))]));

/** The value as the validator reads it (js-yaml, core schema); an empty file is null. */
const value = (text: string): unknown => jsyaml.load(text, { schema: jsyaml.CORE_SCHEMA }) ?? null;

function schemaErrors(file: SchemaName, text: string): string[] {
  const check = validators.get(file) as ValidateFunction;
  return check(value(text)) ? [] : (check.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
}

const SOURCE: Partial<Record<SchemaName, keyof MetadataSources>> = {
  version: 'version', tables: 'tables', functions: 'functions', allow_list: 'allowList', remote_schemas: 'remoteSchemas',
  query_collections: 'queryCollections', cron_triggers: 'cronTriggers',
};

let temp: string | undefined;
afterEach(() => {
  if (temp) rmSync(temp, { recursive: true, force: true });
  temp = undefined;
});

/** The codes of the problems the validator reports for one file (config.yaml: the error it throws, and its warnings). */
function validatorCodes(file: SchemaName, text: string): string[] {
  if (file === 'config') {
    temp = mkdtempSync(join(tmpdir(), 'engine-schema-'));
    writeFileSync(join(temp, 'config.yaml'), text);
    try {
      return loadConfig({ requireProject: true, cwd: temp, env: { ...CONFIG_ENV } }).warnings.map((w) => w.code);
    } catch (e) {
      if (e instanceof CliError) return [e.code];
      throw e;
    }
  }
  if (file === 'actions') {
    const problems = new Problems();
    readActionsYaml(parseYaml(METADATA_FILES.actionsYaml[0], text, problems), problems);
    return problems.list.map((p) => p.code);
  }
  return validate({ [SOURCE[file] as keyof MetadataSources]: text }).map((p) => p.code);
}

describe('the committed schemas', () => {
  it('are the generator output byte for byte', () => {
    const dir = join(ROOT, 'schemas');
    const files = schemaFiles();
    expect(readdirSync(dir).filter((f) => f.endsWith('.schema.json')).sort(), 'run `npm run schemas`').toEqual([...files.keys()].sort());
    for (const [name, text] of files) {
      expect(readFileSync(join(dir, name), 'utf8'), `schemas/${name} is out of date: run \`npm run schemas\``).toBe(text);
    }
  });

  it('are draft-07 schemas that ajv compiles in strict mode', () => {
    for (const name of SCHEMA_NAMES) expect(jsonSchema(name)['$schema']).toBe('http://json-schema.org/draft-07/schema#');
    expect(validators.size).toBe(11);
  });
});

describe('valid inputs: the validator and the schema accept them', () => {
  const fixtures = readdirSync(FIXTURES).sort();

  it.each(fixtures)('test/fixtures/metadata/%s', (kind) => {
    const dir = join(FIXTURES, kind, 'metadata');
    expect(buildMetadata(dir).problems.list).toEqual([]);
    for (const name of readdirSync(dir).filter((f) => f.endsWith('.yaml'))) {
      expect(schemaErrors(name.replace(/\.yaml$/, '') as SchemaName, readFileSync(join(dir, name), 'utf8')), `${kind}/${name}`).toEqual([]);
    }
  });

  it('examples/quickstart', () => {
    const dir = join(ROOT, 'examples/quickstart');
    expect(buildMetadata(join(dir, 'metadata')).problems.list).toEqual([]);
    expect(loadConfig({ requireProject: true, cwd: dir, env: { ENGINE_ADMIN_SECRET: 's' } }).warnings).toEqual([]);
    expect(schemaErrors('config', readFileSync(join(dir, 'config.yaml'), 'utf8'))).toEqual([]);
    for (const name of readdirSync(join(dir, 'metadata')).filter((f) => f.endsWith('.yaml'))) {
      expect(schemaErrors(name.replace(/\.yaml$/, '') as SchemaName, readFileSync(join(dir, 'metadata', name), 'utf8')), name).toEqual([]);
    }
  });

  it.each(VALID.map(([file, yaml], i) => [i, file, yaml] as const))('#%i %s', (_i, file, yaml) => {
    expect(validatorCodes(file, yaml), yaml).toEqual([]);
    expect(schemaErrors(file, yaml), yaml).toEqual([]);
  });

  it('accepts the empty content of every file (cli.md §4.1)', () => {
    for (const [name, empty] of Object.values(METADATA_FILES)) {
      // api_limits.yaml has no JSON Schema of its own yet: the engine's parser checks it (a build error at its position).
      if (name === 'api_limits.yaml') continue;
      if (name.endsWith('.yaml')) expect(schemaErrors(name.replace(/\.yaml$/, '') as SchemaName, empty), name).toEqual([]);
    }
  });
});

describe('structural errors: the validator reports them, the schema rejects them', () => {
  it.each(INVALID)('%s (%s.yaml)', (why, file, yaml, code) => {
    expect(validatorCodes(file, yaml), `${why}: the validator`).toContain(code);
    expect(schemaErrors(file, yaml), `${why}: the schema`).not.toEqual([]);
  });
});

describe('a rule checked elsewhere that the schema states', () => {
  it('an action needs definition.handler (cli.md §4.6 step 4): the merge reports it, the schema requires it', () => {
    const yaml = 'actions: [{name: a, definition: {kind: synchronous}}]\n';
    const problems = new Problems();
    const src = parseYaml(METADATA_FILES.actionsYaml[0], yaml, problems);
    mergeActions({ file: METADATA_FILES.actionsGraphql[0], text: 'type Mutation { a: O }\ntype O { x: Int }\n' }, src, problems);
    expect(problems.list.map((p) => p.code)).toEqual(['action-not-in-yaml']);
    expect(schemaErrors('actions', yaml)).not.toEqual([]);
    expect(schemaErrors('actions', 'actions: [{name: a}]\n')).not.toEqual([]);
  });
});

describe('engine init (editor support)', () => {
  const SCHEMA_LINE = /^# yaml-language-server: \$schema=(\S+)\n\n/;

  function init(): string {
    temp = mkdtempSync(join(tmpdir(), 'engine-schema-'));
    return initProject({ dir: join(temp, 'proj'), endpoint: 'http://localhost:8080' }).directory;
  }

  it('starts config.yaml and each metadata YAML file with the line naming its schema, relative to the file', () => {
    const dir = init();
    // Optional files (inherited_roles.yaml) are not created by init.
    const yamlFiles = ['config.yaml', ...(Object.entries(METADATA_FILES) as [MetadataFileKey, readonly [string, string]][])
      .filter(([key]) => !OPTIONAL_FILES.has(key)).map(([, [n]]) => `metadata/${n}`).filter((n) => n.endsWith('.yaml'))];
    expect(yamlFiles).toHaveLength(9);
    for (const rel of yamlFiles) {
      const text = readFileSync(join(dir, rel), 'utf8');
      const m = SCHEMA_LINE.exec(text);
      expect(m, rel).not.toBeNull();
      const path = (m as RegExpExecArray)[1] as string;
      const name = rel.replace(/^metadata\//, '').replace(/\.yaml$/, '');
      expect(path, 'a relative path').not.toMatch(/^\//);
      // A copy in the project (this test's project does not install engine): the same path for every teammate.
      expect(resolve(dirname(join(dir, rel)), path)).toBe(join(dir, 'schemas', `${name}.schema.json`));
      expect(readFileSync(join(dir, 'schemas', `${name}.schema.json`), 'utf8')).toBe(readFileSync(join(SCHEMAS_DIR, `${name}.schema.json`), 'utf8'));
      expect(existsSync(resolve(dirname(join(dir, rel)), path)), rel).toBe(true);
      expect(schemaErrors(name as SchemaName, text), rel).toEqual([]);
    }
    expect(readFileSync(join(dir, 'metadata/actions.graphql'), 'utf8')).toBe('');
    expect(buildMetadata(join(dir, 'metadata')).problems.list).toEqual([]);
  });

  it('points into node_modules/engine/schemas of a project (or its parent in the repository) that installs engine, and copies nothing', () => {
    temp = mkdtempSync(join(tmpdir(), 'engine-schema-'));
    // The parent is the repository's root: a clone holds it, and npm install restores its node_modules.
    mkdirSync(join(temp, '.git'));
    const installed = join(temp, 'node_modules/engine/schemas');
    mkdirSync(installed, { recursive: true });
    writeFileSync(join(installed, 'tables.schema.json'), '{}');
    const r = initProject({ dir: join(temp, 'proj'), endpoint: 'http://localhost:8080' });
    expect(existsSync(join(r.directory, 'schemas'))).toBe(false);
    expect(readFileSync(join(r.directory, 'metadata/tables.yaml'), 'utf8'))
      .toMatch(/^# yaml-language-server: \$schema=\.\.\/\.\.\/node_modules\/engine\/schemas\/tables\.schema\.json\n/);
  });

  it('copies the schemas when the only engine installed is outside the repository: a clone would not have it (issue 37 item 9)', () => {
    temp = mkdtempSync(join(tmpdir(), 'engine-schema-'));
    mkdirSync(join(temp, 'node_modules/engine/schemas'), { recursive: true });
    writeFileSync(join(temp, 'node_modules/engine/schemas/tables.schema.json'), '{}');
    // No repository: only the project directory travels with it.
    const loose = initProject({ dir: join(temp, 'loose'), endpoint: 'http://localhost:8080' });
    expect(readFileSync(join(loose.directory, 'metadata/tables.yaml'), 'utf8')).toMatch(/^# yaml-language-server: \$schema=\.\.\/schemas\/tables\.schema\.json\n/);
    expect(existsSync(join(loose.directory, 'schemas/tables.schema.json'))).toBe(true);
    // A repository below the install: its root bounds the search.
    mkdirSync(join(temp, 'repo/.git'), { recursive: true });
    const inRepo = initProject({ dir: join(temp, 'repo/proj'), endpoint: 'http://localhost:8080' });
    expect(readFileSync(join(inRepo.directory, 'config.yaml'), 'utf8')).toMatch(/^# yaml-language-server: \$schema=schemas\/config\.schema\.json\n/);
    expect(existsSync(join(inRepo.directory, 'schemas/config.schema.json'))).toBe(true);
  });

  it('reads ../node_modules/engine/schemas/<file> in a project that installs engine', () => {
    const project = join(tmpdir(), 'p');
    const installed = join(project, 'node_modules/engine/schemas');
    expect(schemaLine(project, 'metadata/tables.yaml', installed))
      .toBe('# yaml-language-server: $schema=../node_modules/engine/schemas/tables.schema.json\n\n');
    expect(schemaLine(project, 'config.yaml', installed))
      .toBe('# yaml-language-server: $schema=node_modules/engine/schemas/config.schema.json\n\n');
    expect(schemaLine(project, 'metadata/actions.graphql', installed)).toBe('');
    expect(schemaLine(project, '.gitignore', installed)).toBe('');
  });

  it('keeps the line through metadata export, on files that get content and files that stay empty', () => {
    const dir = init();
    const metadata = join(dir, 'metadata');
    const before = readExistingFiles(metadata);
    const doc = JSON.parse(readFileSync(join(FIXTURES, 'actions-custom-types/expected.json'), 'utf8')) as JsonObject;
    const dropped: string[] = [];
    const files = renderFiles(doc, before, (n, file) => dropped.push(`${file}: ${n}`));
    expect(dropped).toEqual([]);
    for (const [key, text] of files) {
      const [name] = METADATA_FILES[key];
      if (!name.endsWith('.yaml') || OPTIONAL_FILES.has(key)) continue;
      const old = before.get(key) as string;
      expect(text ?? old, name).toMatch(SCHEMA_LINE);
      expect((text ?? old).split('\n')[0], name).toBe(old.split('\n')[0]);
    }
  });
});
