import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { CliError } from '../../errors.js';
import { METADATA_FILES, OPTIONAL_FILES, type MetadataFileKey } from '../metadata-dir/build.js';
import { FILE_SHAPES } from '../validate/shapes.js';
import { PACKAGE_ROOT } from '../../package-root.js';

export interface InitOptions {
  dir: string;
  endpoint: string;
  adminSecret?: string;
}

export interface InitResult {
  directory: string;
  files: string[];
}

const configYaml = (endpoint: string): string => `version: 2
endpoint: ${endpoint}
metadata_directory: metadata
migrations_directory: migrations
actions:
  kind: synchronous
  handler_webhook_baseurl: http://localhost:3000
`;

/** schemas/ of the package that is running. */
export const SCHEMAS_DIR = join(PACKAGE_ROOT, 'schemas') + sep;

/** The project's own copy of the schemas, written by init when the project does not install engine itself. */
export const PROJECT_SCHEMAS = 'schemas';

/**
 * Where the files of a new project at `dir` find their JSON Schemas, the same for every teammate who clones it (issues
 * 19 and 37): the schemas of an engine installed in the project (`node_modules/engine`, in the project or a parent up
 * to the git repository's root, so inside what a clone holds and `npm install` restores), else a copy in the project
 * (`schemas/`, committed with it). Never the install of whoever ran init, nor one outside the repository.
 */
export function projectSchemasDir(dir: string): { dir: string; copy: boolean } {
  const start = resolve(dir);
  const copy = { dir: join(start, PROJECT_SCHEMAS), copy: true };
  // Without a repository above, only the project directory itself is known to travel with the project.
  let top = start;
  for (let d = start; ; d = dirname(d)) {
    if (existsSync(join(d, '.git'))) {
      top = d;
      break;
    }
    if (dirname(d) === d) break;
  }
  for (let d = start; ; d = dirname(d)) {
    const installed = join(d, 'node_modules', 'engine', 'schemas');
    if (existsSync(join(installed, 'tables.schema.json'))) return { dir: installed, copy: false };
    if (d === top || dirname(d) === d) return copy;
  }
}

/**
 * The yaml-language-server modeline naming the JSON Schema of a project file (`rel` from the project directory), or
 * '' for a file without one. The path is relative to the file, so that it holds wherever the project is cloned. The
 * blank line after it makes it the file's header (cli.md §4.10), which export and the commands that rewrite a file keep.
 */
export function schemaLine(dir: string, rel: string, schemasDir = SCHEMAS_DIR): string {
  const name = rel.replace(/^metadata\//, '').replace(/\.yaml$/, '');
  if (!rel.endsWith('.yaml') || !Object.hasOwn(FILE_SHAPES, name)) return '';
  const path = relative(dirname(join(dir, rel)), join(schemasDir, `${name}.schema.json`)).split(sep).join('/');
  return `# yaml-language-server: $schema=${path}\n\n`;
}

/** `engine init` (cli.md §5.1): a new project; on failure everything it created is removed. */
export function initProject(opts: InitOptions): InitResult {
  const dir = resolve(opts.dir);
  const existed = existsSync(dir);
  if (existed && (!statSync(dir).isDirectory() || readdirSync(dir).some((e) => e !== '.git'))) {
    throw new CliError('directory-not-empty', `directory "${opts.dir}" is not empty`, 1, {
      hint: "choose a new directory, e.g. 'engine init my-project'",
    });
  }
  const files = new Map<string, string>([
    ['config.yaml', configYaml(opts.endpoint)],
    ['.gitignore', '.env\n.engine/\n'],
    ...(Object.entries(METADATA_FILES) as [MetadataFileKey, readonly [string, string]][])
      .filter(([key]) => !OPTIONAL_FILES.has(key)).map(([, [name, empty]]): [string, string] => [`metadata/${name}`, empty]),
  ]);
  if (opts.adminSecret) files.set('.env', `ENGINE_GRAPHQL_ADMIN_SECRET=${opts.adminSecret}\n`);
  const created: string[] = [];
  const schemas = projectSchemasDir(dir);
  try {
    mkdirSync(join(dir, 'metadata'), { recursive: true });
    mkdirSync(join(dir, 'migrations'), { recursive: true });
    if (schemas.copy) {
      mkdirSync(schemas.dir, { recursive: true });
      for (const name of readdirSync(SCHEMAS_DIR).filter((n) => n.endsWith('.schema.json')).sort()) {
        copyFileSync(join(SCHEMAS_DIR, name), join(schemas.dir, name));
        created.push(`${PROJECT_SCHEMAS}/${name}`);
      }
    }
    for (const [rel, content] of files) {
      writeFileSync(join(dir, rel), schemaLine(dir, rel, schemas.dir) + content, rel === '.env' ? { mode: 0o600 } : {});
      created.push(rel);
    }
  } catch (e) {
    if (existed) {
      for (const entry of ['config.yaml', '.gitignore', '.env', 'metadata', 'migrations', PROJECT_SCHEMAS]) rmSync(join(dir, entry), { recursive: true, force: true });
    } else rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  return { directory: dir, files: [...created, 'migrations/'].sort() };
}
