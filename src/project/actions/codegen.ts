import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { Kind, parseType, type TypeNode } from 'graphql';
import { compareCodePoints, isObject, type Json, type JsonObject } from '../../metadata/json.js';
import { renderTemplate } from './mustache.js';
import { PACKAGE_ROOT } from '../../package-root.js';

/**
 * `actions codegen` (cli.md §5.11, §7.2): the framework templates shipped in the package, the view each action is
 * rendered with, and writing the files.
 */

/** `templates/` of the installed package. */
export const TEMPLATES_DIR = join(PACKAGE_ROOT, 'templates') + sep;
const CODEGEN_DIR = join(TEMPLATES_DIR, 'codegen');

export interface Manifest {
  name: string;
  description?: string;
  files: { template: string; output: string }[];
}

/** The frameworks: directories of `templates/codegen/` holding a `manifest.json`, sorted. */
export function availableFrameworks(): string[] {
  let entries: string[];
  try {
    entries = readdirSync(CODEGEN_DIR);
  } catch {
    return [];
  }
  return entries.filter((e) => {
    try {
      return statSync(join(CODEGEN_DIR, e)).isDirectory() && statSync(join(CODEGEN_DIR, e, 'manifest.json')).isFile();
    } catch {
      return false;
    }
  }).sort(compareCodePoints);
}

/** The manifest of a framework, or null when there is no such framework (names are matched exactly, never as paths). */
export function loadFramework(name: string): Manifest | null {
  if (!availableFrameworks().includes(name)) return null;
  const file = join(CODEGEN_DIR, name, 'manifest.json');
  const m = JSON.parse(readFileSync(file, 'utf8')) as unknown;
  const files = isObject(m) && Array.isArray(m['files']) ? m['files'] : null;
  if (!files || !files.every((f) => isObject(f) && typeof f['template'] === 'string' && typeof f['output'] === 'string')) {
    throw new Error(`${file}: expected {"files": [{"template", "output"}]}`);
  }
  return { ...(m as JsonObject), name, files: files as unknown as Manifest['files'] };
}

// ---------------------------------------------------------------------------------------------------------------------
// The view (cli.md §7.2)

export interface TypedField { name: string; graphqlType: string; tsType: string; optional: boolean; last: boolean }
export interface CodegenView {
  name: string;
  Name: string;
  type: 'mutation';
  kind: string;
  handler: string;
  arguments: TypedField[];
  outputType: { name: string; graphqlType: string; tsType: string; isList: boolean };
  inputObjects: { name: string; fields: TypedField[] }[];
  objects: { name: string; fields: TypedField[] }[];
  enums: { name: string; values: { value: string; last: boolean }[]; tsUnion: string }[];
  /**
   * Each scalar with its TypeScript type (`jsType` for JSDoc, which cannot refer to itself) and what it is (issue 37
   * item 7: never `unknown`); names TypeScript reserves (`bigint`, `boolean`) are left out and typed where used.
   */
  scalars: { name: string; tsType: string; jsType: string; about: string }[];
  sampleOutput: string;
  cliVersion: string;
}

const BUILTIN_TS: Record<string, string> = { String: 'string', ID: 'string', Int: 'number', Float: 'number', Boolean: 'boolean' };
const BUILTIN_SAMPLE: Record<string, Json> = { String: '', ID: '', Int: 0, Float: 0, Boolean: false };

interface TypeDef { name: string; fields?: JsonObject[]; values?: JsonObject[] }
type Group = 'input_objects' | 'objects' | 'scalars' | 'enums';

/** The custom types of the built metadata (engine-api.md §6 form), by group and name. */
class Types {
  private readonly groups = new Map<string, { group: Group; def: TypeDef }>();
  constructor(customTypes: Json | undefined) {
    for (const group of ['input_objects', 'objects', 'scalars', 'enums'] as const) {
      const list = isObject(customTypes) ? customTypes[group] : undefined;
      for (const t of Array.isArray(list) ? list : []) {
        if (isObject(t) && typeof t['name'] === 'string') this.groups.set(t['name'], { group, def: t as unknown as TypeDef });
      }
    }
  }

  /** `builtin`, a group, or `scalars` for a name the file does not define (a PostgreSQL scalar, cli.md §4.3). */
  groupOf(name: string): Group | 'builtin' {
    if (name in BUILTIN_TS) return 'builtin';
    return this.groups.get(name)?.group ?? 'scalars';
  }

  def(name: string): TypeDef | undefined {
    return this.groups.get(name)?.def;
  }
}

const STRING_SCALARS = new Set([
  'uuid', 'text', 'varchar', 'bpchar', 'char', 'character', 'citext', 'name', 'date', 'time', 'timetz', 'timestamp', 'timestamptz',
  'interval', 'inet', 'cidr', 'macaddr', 'macaddr8', 'bytea', 'money', 'ltree', 'lquery', 'ltxtquery', 'xml', 'tsvector', 'tsquery',
  'point', 'line', 'lseg', 'box', 'path', 'polygon', 'circle', 'bit', 'varbit', 'oidvector',
]);
const NUMBER_SCALARS = new Set(['smallint', 'integer', 'int', 'int2', 'int4', 'real', 'float4', 'float8', 'oid', 'serial', 'smallserial']);
/** 64-bit and arbitrary-precision numbers: a JSON number, or a string where a number would lose digits. */
const BIG_NUMBER_SCALARS = new Set(['bigint', 'int8', 'bigserial', 'numeric', 'decimal']);
const BOOLEAN_SCALARS = new Set(['bool', 'boolean']);

/**
 * The TypeScript type of a custom or PostgreSQL scalar, as its JSON form reaches a handler. `json`, `jsonb`, PostGIS
 * values (GeoJSON) and scalars of the project's own are any JSON value; `_t` is PostgreSQL's array of `t`.
 */
export function scalarTs(name: string): { tsType: string; jsType: string; about: string } {
  const base = name.replace(/^_/, '');
  const one = (n: string): { tsType: string; about: string } | null => {
    if (STRING_SCALARS.has(n)) return { tsType: 'string', about: 'a string' };
    if (NUMBER_SCALARS.has(n)) return { tsType: 'number', about: 'a number' };
    if (BIG_NUMBER_SCALARS.has(n)) return { tsType: 'number | string', about: 'a number, or a string where a number would lose digits' };
    if (BOOLEAN_SCALARS.has(n)) return { tsType: 'boolean', about: 'a boolean' };
    return null;
  };
  const json = {
    tsType: `string | number | boolean | null | ${name}[] | { [key: string]: ${name} }`,
    jsType: 'string | number | boolean | null | Array<unknown> | { [key: string]: unknown }',
    about: 'any JSON value',
  };
  const same = (t: { tsType: string; about: string }) => ({ ...t, jsType: t.tsType });
  if (name.startsWith('_') && base !== '') {
    const element = one(base);
    return element ? same({ tsType: `Array<${element.tsType} | null>`, about: `an array of ${base}: ${element.about} each` }) : json;
  }
  const known = one(name);
  return known ? same(known) : json;
}

/** Type names TypeScript reserves: a scalar of such a name cannot be declared, and is typed where it is used. */
const TS_RESERVED = new Set(['any', 'unknown', 'never', 'void', 'undefined', 'null', 'object', 'string', 'number', 'boolean', 'bigint', 'symbol']);

const namedOf = (t: TypeNode): string => (t.kind === Kind.NAMED_TYPE ? t.name.value : namedOf(t.type));

/** `String` → `string`, …, `[T]` → `Array<T>`; nullable adds `| null`. */
function tsType(t: TypeNode, nullable = true): string {
  if (t.kind === Kind.NON_NULL_TYPE) return tsType(t.type, false);
  const base = t.kind === Kind.LIST_TYPE ? `Array<${tsType(t.type)}>`
    : BUILTIN_TS[t.name.value] ?? (TS_RESERVED.has(t.name.value) ? scalarTs(t.name.value).tsType : t.name.value);
  return nullable ? `${base} | null` : base;
}

function typedFields(list: { name: string; type: string }[]): TypedField[] {
  return list.map((f, i) => {
    const node = parseType(f.type);
    return { name: f.name, graphqlType: f.type, tsType: tsType(node), optional: node.kind !== Kind.NON_NULL_TYPE, last: i === list.length - 1 };
  });
}

const fieldsOf = (def: TypeDef | undefined): { name: string; type: string }[] =>
  (def?.fields ?? []).flatMap((f) => (typeof f['name'] === 'string' && typeof f['type'] === 'string' ? [{ name: f['name'], type: f['type'] }] : []));

/** The sample output value of cli.md §7.2. */
/**
 * Samples of non-null custom and PostgreSQL scalars, so that the generated stub's answer passes the engine's check
 * (a null for a non-null field is an error); any other scalar samples as "".
 */
const SCALAR_SAMPLE: Record<string, Json> = {
  timestamptz: '1970-01-01T00:00:00Z', timestamp: '1970-01-01T00:00:00', date: '1970-01-01', time: '00:00:00',
  uuid: '00000000-0000-0000-0000-000000000000', smallint: 0, integer: 0, bigint: 0, int2: 0, int4: 0, int8: 0, numeric: 0,
  float4: 0, float8: 0, boolean: false, bool: false, json: {}, jsonb: {},
};

function sample(t: TypeNode, types: Types, seen: Set<string>, nonNull = false): Json {
  if (t.kind === Kind.NON_NULL_TYPE) return sample(t.type, types, seen, true);
  if (t.kind === Kind.LIST_TYPE) return [];
  const name = t.name.value;
  const group = types.groupOf(name);
  if (group === 'builtin') return BUILTIN_SAMPLE[name] ?? null;
  if (group === 'enums') {
    const first = types.def(name)?.values?.[0]?.['value'];
    return typeof first === 'string' ? first : null;
  }
  if ((group === 'objects' || group === 'input_objects') && !seen.has(name)) {
    const inner = new Set(seen).add(name);
    return Object.fromEntries(fieldsOf(types.def(name)).map((f) => [f.name, sample(parseType(f.type), types, inner)]));
  }
  if (group === 'scalars' && nonNull) return SCALAR_SAMPLE[name] ?? '';
  return null;
}

/** The view one action's files are rendered with. */
export function codegenView(action: JsonObject, customTypes: Json | undefined, cliVersion: string): CodegenView {
  const name = String(action['name']);
  const def = isObject(action['definition']) ? action['definition'] : {};
  const args = (Array.isArray(def['arguments']) ? def['arguments'] : []).flatMap((a) =>
    isObject(a) && typeof a['name'] === 'string' && typeof a['type'] === 'string' ? [{ name: a['name'], type: a['type'] }] : []);
  const outputText = String(def['output_type']);
  const output = parseType(outputText);
  const types = new Types(customTypes);

  const reached = new Map<string, Group>();
  const visit = (typeName: string): void => {
    const group = types.groupOf(typeName);
    if (group === 'builtin' || reached.has(typeName)) return;
    reached.set(typeName, group);
    if (group === 'input_objects' || group === 'objects') for (const f of fieldsOf(types.def(typeName))) visit(namedOf(parseType(f.type)));
  };
  for (const a of args) visit(namedOf(parseType(a.type)));
  visit(namedOf(output));

  const inGroup = (g: Group): string[] => [...reached].filter(([, group]) => group === g).map(([n]) => n).sort(compareCodePoints);
  const withFields = (g: Group) => inGroup(g).map((n) => ({ name: n, fields: typedFields(fieldsOf(types.def(n))) }));
  const enums = inGroup('enums').map((n) => {
    const values = (types.def(n)?.values ?? []).map((v) => String(v['value']));
    return { name: n, values: values.map((value, i) => ({ value, last: i === values.length - 1 })), tsUnion: values.map((v) => JSON.stringify(v)).join(' | ') };
  });

  return {
    name,
    Name: name.charAt(0).toUpperCase() + name.slice(1),
    type: 'mutation',
    kind: typeof def['kind'] === 'string' ? def['kind'] : 'synchronous',
    handler: typeof def['handler'] === 'string' ? def['handler'] : '',
    arguments: typedFields(args),
    outputType: { name: namedOf(output), graphqlType: outputText, tsType: tsType(output), isList: (output.kind === Kind.NON_NULL_TYPE ? output.type : output).kind === Kind.LIST_TYPE },
    inputObjects: withFields('input_objects'),
    objects: withFields('objects'),
    enums,
    scalars: inGroup('scalars').filter((n) => !TS_RESERVED.has(n)).map((n) => ({ name: n, ...scalarTs(n) })),
    sampleOutput: JSON.stringify(sample(output, types, new Set())),
    cliVersion,
  };
}

// ---------------------------------------------------------------------------------------------------------------------
// Rendering and writing

export interface RenderedFile {
  /** Absolute. */
  path: string;
  content: string;
}

/** Every file of every action (cli.md §7.2); output paths must stay inside `outputDir`. */
export function renderCodegen(
  manifest: Manifest, actions: JsonObject[], customTypes: Json | undefined, outputDir: string, cliVersion: string,
): RenderedFile[] {
  const frameworkDir = join(CODEGEN_DIR, manifest.name);
  const templates = manifest.files.map((f) => {
    const path = resolve(frameworkDir, f.template);
    if (!inside(frameworkDir, path)) throw new Error(`template "${f.template}" of framework "${manifest.name}" is outside its directory`);
    return { text: readFileSync(path, 'utf8'), output: f.output };
  });
  const files: RenderedFile[] = [];
  for (const action of actions) {
    const view = codegenView(action, customTypes, cliVersion);
    for (const t of templates) {
      const output = renderTemplate(t.output, view);
      const path = resolve(outputDir, output);
      if (!inside(outputDir, path)) throw new Error(`output path "${output}" of framework "${manifest.name}" is outside the output directory`);
      files.push({ path, content: renderTemplate(t.text, view) });
    }
  }
  return files;
}

function inside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

/** The targets that already exist. */
export const existingTargets = (files: RenderedFile[]): string[] => files.filter((f) => existsSync(f.path)).map((f) => f.path);

/**
 * Creates the output directory and writes every file (each through `<file>.engine-tmp-<random>` and a rename); if a
 * write fails, the files already written get their previous bytes back (or are removed) and the error is rethrown.
 */
export function writeCodegenFiles(outputDir: string, files: RenderedFile[]): void {
  mkdirSync(outputDir, { recursive: true });
  const done: { path: string; previous: Buffer | null }[] = [];
  try {
    for (const f of files) {
      mkdirSync(dirname(f.path), { recursive: true });
      const previous = existsSync(f.path) ? readFileSync(f.path) : null;
      atomicWrite(f.path, f.content);
      done.push({ path: f.path, previous });
    }
  } catch (e) {
    for (const d of done.reverse()) {
      try {
        if (d.previous) atomicWrite(d.path, d.previous);
        else rmSync(d.path, { force: true });
      } catch {
        // Best effort: the original error is the one to report.
      }
    }
    throw e;
  }
}

/** Writes `<file>.engine-tmp-<random>` beside the target, then renames it over the target (cli.md §4.11). */
export function atomicWrite(path: string, content: string | Buffer, mode?: number): void {
  const tmp = join(dirname(path), `${basename(path)}.engine-tmp-${randomBytes(6).toString('hex')}`);
  try {
    writeFileSync(tmp, content, mode === undefined ? {} : { mode });
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}
