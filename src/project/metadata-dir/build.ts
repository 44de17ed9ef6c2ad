import { statSync } from 'node:fs';
import { join } from 'node:path';
import { ApiError, CliError } from '../../errors.js';
import { byteSize, ENGINE_MAX_BODY_BYTES, megabytes } from '../../limits.js';
import { canonicalDocument } from '../../metadata/document.js';
import { isObject, type JsonObject } from '../../metadata/json.js';
import { PERMISSION_KEYS } from '../../metadata/kinds/permissions.js';
import { mergeActions } from './actions-sdl.js';
import { shownPath } from '../config/environment.js';
import { Problems, type Position } from '../problems.js';
import { projectFileSize, readProjectFile, unreadable, unreadableReason } from '../project-file.js';
import { databaseFiles, dropShadowed, isLayoutV3, readLayoutV3 } from './layout-v3/read.js';
import { checkUnsupported } from '../validate/unsupported.js';
import { knownTableKeys, objectOrigins, validateMetadata, type MetadataSources } from '../validate/validate.js';
import { parseYaml, positionAt, type YamlSource } from '../yaml-source.js';

/** The files of a metadata directory (cli.md §4.1) and the content of each when empty. */
export const METADATA_FILES = {
  version: ['version.yaml', 'version: 2\n'],
  tables: ['tables.yaml', '[]\n'],
  functions: ['functions.yaml', '[]\n'],
  actionsGraphql: ['actions.graphql', ''],
  actionsYaml: ['actions.yaml', 'actions: []\ncustom_types:\n  enums: []\n  input_objects: []\n  objects: []\n  scalars: []\n'],
  allowList: ['allow_list.yaml', '[]\n'],
  remoteSchemas: ['remote_schemas.yaml', '[]\n'],
  queryCollections: ['query_collections.yaml', '[]\n'],
  cronTriggers: ['cron_triggers.yaml', '[]\n'],
  inheritedRoles: ['inherited_roles.yaml', '[]\n'],
  restEndpoints: ['rest_endpoints.yaml', '[]\n'],
  apiLimits: ['api_limits.yaml', '{}\n'],
} as const;

/**
 * Files written only when they hold something or already exist: `init` and `export` do not add them to every project
 * (inherited roles are rare, and the incumbent's projects may have the file or not).
 */
export const OPTIONAL_FILES: ReadonlySet<MetadataFileKey> = new Set<MetadataFileKey>(['inheritedRoles', 'restEndpoints', 'apiLimits']);

export type MetadataFileKey = keyof typeof METADATA_FILES;

/** The top-level names a layout reads (version 3 keeps tables and functions under `databases/`). */
export function metadataFileNames(layout: 2 | 3): string[] {
  const names = Object.entries(METADATA_FILES).filter(([key]) => layout === 2 || (key !== 'tables' && key !== 'functions')).map(([, [name]]) => name);
  return layout === 3 ? [...names, 'databases'] : names;
}

export interface BuildResult {
  /** The canonical metadata document, or null when there were errors. */
  document: JsonObject | null;
  problems: Problems;
  /** `<kind>:<name>` (cli.md §4.12) → where the object is written; located on first use (positions cost a full parse). */
  origins: Pick<Map<string, Position>, 'get'>;
  sources: Map<string, YamlSource>;
}

/** Only blank and comment lines; stops at the first other line (large files are rarely blank). */
function isBlank(text: string): boolean {
  for (const line of text.matchAll(/^.*$/gm)) {
    const t = line[0].trim();
    if (t !== '' && !t.startsWith('#')) return false;
  }
  return true;
}

/**
 * Reads one file; missing, 0-byte and comment-only files are empty (undefined). One that exists but cannot be read is
 * `unreadable-project-file`: taking it as empty would make `metadata apply` remove everything it held.
 */
function read(dir: string, name: string, cwd: string): { file: string; text: string } | undefined {
  const path = join(dir, name);
  const utf8ErrorCode = name.endsWith('.graphql') ? 'graphql-syntax-error' : 'yaml-parse-error';
  const text = readProjectFile(path, { cwd, utf8ErrorCode });
  if (text === undefined) return undefined;
  return isBlank(text.replace(/^\uFEFF/, '')) ? undefined : { file: shownPath(path, cwd), text };
}

/**
 * Refuses, before anything is read, metadata files larger in total than the engine's request limit: the engine would
 * refuse the request, and parsing them could take gigabytes. The bound is on the files' bytes, a cheap and predictable
 * stand-in for the size of the JSON request (which the client checks exactly before sending): YAML block style and
 * compact JSON are of similar size (the benchmark project's tables.yaml is 1.4 × its compact JSON), so a project near the limit
 * is refused here or there, never after gigabytes of parsing.
 */
export function checkMetadataSize(dir: string, cwd = process.cwd(), more: readonly string[] = []): void {
  const paths = [...Object.values(METADATA_FILES).map(([name]) => join(dir, name)), ...more];
  const sizes = paths.map((path) => ({ path, size: projectFileSize(path, cwd) ?? 0 }));
  const total = sizes.reduce((s, f) => s + f.size, 0);
  if (total <= ENGINE_MAX_BODY_BYTES) return;
  const largest = sizes.reduce((a, b) => (b.size > a.size ? b : a));
  const what = largest.size > ENGINE_MAX_BODY_BYTES ? `the file is ${byteSize(largest.size)}` : `the metadata files total ${byteSize(total)}, this one ${byteSize(largest.size)}`;
  throw new CliError('metadata-too-large', `${what}: more than the engine's request limit of ${megabytes(ENGINE_MAX_BODY_BYTES)}; nothing was read`, 1, {
    file: shownPath(largest.path, cwd),
    hint: `the engine accepts at most ${megabytes(ENGINE_MAX_BODY_BYTES)} in one request; remove unused objects or split the project`,
  });
}

export function requireMetadataDir(dir: string, cwd = process.cwd()): void {
  let isDir: boolean;
  try {
    isDir = statSync(dir, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch (e) {
    // A link loop or a directory that cannot be searched is there, just unreadable.
    throw unreadable(dir, unreadableReason(e), cwd);
  }
  if (!isDir) {
    throw new CliError('metadata-dir-not-found', `metadata directory "${shownPath(dir, cwd)}" does not exist`, 1, {
      hint: "run 'engine metadata export' or 'engine init'",
    });
  }
}

export interface BuildOptions {
  /**
   * Unknown keys of metadata files are warnings instead of errors (`--allow-unknown-keys`), for a project written by a
   * newer incumbent; they are left out of the build either way.
   */
  allowUnknownKeys?: boolean;
}

/**
 * A misspelt key is an unknown one: left out of the build, `chek:` would apply an update permission without its check
 * and `update_permision:` would remove every update permission (issue 27 item 5). So, unless allowed, every unknown
 * key of a metadata file stops the build; config.yaml's stay warnings (loaded elsewhere).
 */
function unknownKeysAreErrors(problems: Problems): void {
  for (const p of problems.list) if (p.code === UNKNOWN_KEY) p.severity = 'error';
}

export const UNKNOWN_KEY = 'metadata-unknown-key';

/** Unknown keys of a permission (allowed by --allow-unknown-keys) are left out like a table's, not refused by the engine. */
function knownPermissionKeys(key: string, v: unknown): unknown {
  if (!/^(insert|select|update|delete)_permissions$/.test(key) || !Array.isArray(v)) return v;
  return v.map((entry) => {
    if (!isObject(entry) || !isObject(entry['permission'])) return entry;
    return { ...entry, permission: Object.fromEntries(Object.entries(entry['permission']).filter(([k]) => PERMISSION_KEYS.includes(k))) };
  });
}

/** The metadata layout of a config version: 3 is the incumbent's `databases/` layout, 1 and 2 the flat one. */
export type Layout = 2 | 3;

export const layoutOf = (configVersion: number): Layout => (configVersion === 3 ? 3 : 2);

/**
 * Builds the metadata document from a directory (cli.md §4.5): every file parsed and validated with all problems
 * collected, the actions merged, the whole brought into canonical form (engine-api.md §6). The layout is the
 * project's (its config version); a directory given without a project says it in its version.yaml.
 */
export function buildMetadata(dir: string, cwd = process.cwd(), layout?: Layout, opts: BuildOptions = {}): BuildResult {
  requireMetadataDir(dir, cwd);
  const v3 = (layout ?? (isLayoutV3(dir, cwd) ? 3 : 2)) === 3;
  checkMetadataSize(dir, cwd, v3 ? databaseFiles(dir, cwd) : []);
  const problems = new Problems();
  const sources = new Map<string, YamlSource>();
  // A file that does not parse is reported once: findings that depend on its content (references into it) are not.
  const unparsed = new Set<keyof MetadataSources>();
  const parseErrors = () => problems.errors.filter((p) => p.code === 'yaml-parse-error').length;
  const yaml = (key: Exclude<MetadataFileKey, 'actionsGraphql'>): YamlSource | undefined => {
    const f = read(dir, METADATA_FILES[key][0], cwd);
    const before = parseErrors();
    const src = f ? parseYaml(f.file, f.text, problems) : null;
    if (src) sources.set(key, src);
    if (parseErrors() > before && key !== 'actionsYaml') unparsed.add(key);
    return src ?? undefined;
  };
  // Version 3: version.yaml says 3 and is checked with the databases (validation would expect 2).
  const before = parseErrors();
  const own = v3 ? readLayoutV3(dir, cwd, problems, sources) : { version: yaml('version'), tables: yaml('tables'), functions: yaml('functions') };
  if (v3 && parseErrors() > before) unparsed.add('tables').add('functions');
  const src: MetadataSources = {
    version: v3 ? undefined : own.version, tables: own.tables, functions: own.functions, allowList: yaml('allowList'),
    remoteSchemas: yaml('remoteSchemas'), queryCollections: yaml('queryCollections'), cronTriggers: yaml('cronTriggers'), inheritedRoles: yaml('inheritedRoles'),
    restEndpoints: yaml('restEndpoints'), apiLimits: yaml('apiLimits'),
  };
  const actionsYaml = yaml('actionsYaml');
  validateMetadata(src, problems, unparsed);
  dropShadowed(problems);
  checkUnsupported(dir, src, problems, metadataFileNames(v3 ? 3 : 2), cwd, v3 ? 3 : 2);
  const tableNames = new Set((Array.isArray(src.tables?.value) ? (src.tables?.value as unknown[]) : []).flatMap((t) => {
    const q = isObject(t) ? t['table'] : undefined;
    if (typeof q === 'string') return [`public.${q}`];
    return isObject(q) && typeof q['name'] === 'string' ? [`${typeof q['schema'] === 'string' ? q['schema'] : 'public'}.${q['name']}`] : [];
  }));
  const merged = mergeActions(read(dir, METADATA_FILES.actionsGraphql[0], cwd) ?? null, actionsYaml ?? null, problems, unparsed.has('tables') ? undefined : tableNames);
  let located: Map<string, Position> | null = null;
  const origins = { get: (key: string) => (located ??= new Map([...objectOrigins(src), ...merged.origins])).get(key) };
  if (!opts.allowUnknownKeys) unknownKeysAreErrors(problems);
  if (problems.errors.length > 0) return { document: null, problems, origins, sources };

  const known = new Set(knownTableKeys());
  const tables = Array.isArray(src.tables?.value) ? (src.tables?.value as unknown[]) : [];
  const raw: JsonObject = {
    version: 2,
    // Unknown table keys (allowed by --allow-unknown-keys) are left out of the build (cli.md §4.13).
    tables: tables.map((t) => (isObject(t) ? Object.fromEntries(Object.entries(t).filter(([k]) => known.has(k)).map(([k, v]) => [k, knownPermissionKeys(k, v)])) : t)) as JsonObject[],
    functions: (src.functions?.value ?? []) as JsonObject[],
    remote_schemas: (src.remoteSchemas?.value ?? []) as JsonObject[],
    query_collections: (src.queryCollections?.value ?? []) as JsonObject[],
    allowlist: (src.allowList?.value ?? []) as JsonObject[],
    actions: merged.actions,
    custom_types: merged.custom_types ?? {},
    cron_triggers: (src.cronTriggers?.value ?? []) as JsonObject[],
    rest_endpoints: (src.restEndpoints?.value ?? []) as JsonObject[],
    inherited_roles: (src.inheritedRoles?.value ?? []) as JsonObject[],
    // An empty api_limits.yaml (`{}`) sets no limits: the document has no `api_limits` then.
    ...(isObject(src.apiLimits?.value) && Object.keys(src.apiLimits.value).length > 0 ? { api_limits: src.apiLimits.value } : {}),
  };
  try {
    return { document: canonicalDocument(raw), problems, origins, sources };
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    // Validation should have caught it; the engine's own parser has the last word, located in the right file.
    problems.error('metadata-invalid', e.message, locate(e.path, src, actionsYaml));
    return { document: null, problems, origins, sources };
  }
}

const FILE_OF_KEY: Record<string, keyof MetadataSources> = {
  tables: 'tables', functions: 'functions', remote_schemas: 'remoteSchemas', query_collections: 'queryCollections',
  allowlist: 'allowList', cron_triggers: 'cronTriggers', inherited_roles: 'inheritedRoles',
  rest_endpoints: 'restEndpoints', api_limits: 'apiLimits',
};

/** Maps an engine-style path (`$.tables[3].select_permissions[0]…`) to a file position. */
export function locate(path: string, src: MetadataSources, actionsYaml?: YamlSource): Position | undefined {
  const parts = [...path.matchAll(/\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]/g)]
    .map((m) => (m[2] !== undefined ? Number(m[2]) : (m[1] ?? m[3] ?? '')));
  const [top, ...rest] = parts;
  const key = typeof top === 'string' ? FILE_OF_KEY[top] : undefined;
  const file = key ? src[key] : top === 'actions' || top === 'custom_types' ? actionsYaml : undefined;
  if (!file) return undefined;
  return positionAt(file, key ? rest : parts);
}
