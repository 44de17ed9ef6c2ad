import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CliError } from '../errors.js';
import { METADATA_FILES } from './metadata-dir.js';

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
    ...Object.values(METADATA_FILES).map(([name, empty]): [string, string] => [`metadata/${name}`, empty]),
  ]);
  if (opts.adminSecret) files.set('.env', `ENGINE_GRAPHQL_ADMIN_SECRET=${opts.adminSecret}\n`);
  const created: string[] = [];
  try {
    mkdirSync(join(dir, 'metadata'), { recursive: true });
    mkdirSync(join(dir, 'migrations'), { recursive: true });
    for (const [rel, content] of files) {
      writeFileSync(join(dir, rel), content, rel === '.env' ? { mode: 0o600 } : {});
      created.push(rel);
    }
  } catch (e) {
    if (existed) {
      for (const entry of ['config.yaml', '.gitignore', '.env', 'metadata', 'migrations']) rmSync(join(dir, entry), { recursive: true, force: true });
    } else rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  return { directory: dir, files: [...created, 'migrations/'].sort() };
}
