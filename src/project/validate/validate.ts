/**
 * Offline validation of a metadata directory (cli.md §4.13): every problem of every file, with the codes, messages and
 * positions of cli.md §6. Syntax is the YAML parser's (yaml-source.ts); each file's value is walked along its shape
 * definition (shapes.ts, walk.ts); duplicates are checked over the whole directory (objects.ts).
 * actions.graphql and actions.yaml are validated by their own module. The message conventions are in core.ts.
 */
import type { Problems } from '../problems.js';
import { FILE_SHAPES } from './shapes.js';
import { TABLE } from './shapes-tables.js';
import { Ctx } from './core.js';
import { STATIC_HOOKS } from './hooks.js';
import { checkDuplicates } from './objects.js';
import { collectionNames } from './others.js';
import { Walker, type Hooks } from './walk.js';
import type { MetadataSources } from './sources.js';
import type { YamlSource } from '../yaml-source.js';

export { objectOrigins } from './objects.js';
export { cronProblems } from './others.js';
export type { MetadataSources } from './sources.js';

/** The keys of a table entry: the build leaves any other key out (reported as `metadata-unknown-key`, an error unless allowed). */
export function knownTableKeys(): string[] {
  return Object.keys(TABLE.keys);
}

/** `unparsed`: files that exist but did not parse; references into them are not checked (issue 37 item 2). */
export function validateMetadata(src: MetadataSources, problems: Problems, unparsed: ReadonlySet<keyof MetadataSources> = new Set()): void {
  const walk = (file: YamlSource | undefined, rootKey: string, shape: keyof typeof FILE_SHAPES, hooks: Hooks = STATIC_HOOKS) => {
    if (file) new Walker(new Ctx(file, problems, rootKey), hooks).root(FILE_SHAPES[shape].shape, file.value);
  };
  walk(src.version, 'version', 'version');
  walk(src.tables, 'tables', 'tables');
  walk(src.functions, 'functions', 'functions');
  walk(src.remoteSchemas, 'remote_schemas', 'remote_schemas');
  walk(src.queryCollections, 'query_collections', 'query_collections');
  const collections = collectionNames(src.queryCollections?.value);
  walk(src.allowList, 'allowlist', 'allow_list', {
    ...STATIC_HOOKS,
    collectionRef: (w, v, path) => {
      if (!collections.has(v as string) && !unparsed.has('queryCollections')) w.c.error('reference-invalid', `allow list entry refers to unknown query collection "${v as string}"`, path);
    },
  });
  walk(src.cronTriggers, 'cron_triggers', 'cron_triggers');
  walk(src.inheritedRoles, 'inherited_roles', 'inherited_roles');
  walk(src.restEndpoints, 'rest_endpoints', 'rest_endpoints');
  checkDuplicates(src, problems);
}
