/**
 * Offline validation of a metadata directory (cli.md §4.13): every problem of every file, with the codes, messages and
 * positions of cli.md §6. Syntax is the YAML parser's (yaml-source.ts); actions.graphql and actions.yaml are validated
 * by their own module. The message conventions are described in validate-core.ts.
 */
import type { Problems } from './problems.js';
import { Ctx, checkKeys, isObj, rootList, type Path } from './validate-core.js';
import { checkDuplicates } from './validate-objects.js';
import {
  checkAllowListEntry, checkCronTrigger, checkFunction, checkQueryCollection, checkRemoteSchema, collectionNames,
} from './validate-others.js';
import { checkTable, TABLE_KEYS } from './validate-tables.js';
import type { YamlSource } from './yaml-source.js';

export { objectOrigins } from './validate-objects.js';
export { cronProblems } from './validate-others.js';

/** The parsed YAML files of a metadata directory; a missing or empty file is undefined or has value undefined/null. */
export interface MetadataSources {
  version?: YamlSource;
  tables?: YamlSource;
  functions?: YamlSource;
  allowList?: YamlSource;
  remoteSchemas?: YamlSource;
  queryCollections?: YamlSource;
  cronTriggers?: YamlSource;
}

/** The keys of a table entry: the build leaves any other key out (they were warned about as `metadata-unknown-key`). */
export function knownTableKeys(): string[] {
  return [...TABLE_KEYS];
}

export function validateMetadata(src: MetadataSources, problems: Problems): void {
  if (src.version) checkVersion(new Ctx(src.version, problems, 'version'));
  const each = (file: YamlSource | undefined, rootKey: string, check: (c: Ctx, v: unknown, path: Path, i: number) => void) => {
    if (!file) return;
    const c = new Ctx(file, problems, rootKey);
    rootList(c).forEach((v, i) => check(c, v, [i], i));
  };
  each(src.tables, 'tables', checkTable);
  each(src.functions, 'functions', checkFunction);
  each(src.remoteSchemas, 'remote_schemas', checkRemoteSchema);
  each(src.queryCollections, 'query_collections', checkQueryCollection);
  const collections = collectionNames(src.queryCollections?.value);
  each(src.allowList, 'allowlist', (c, v, path, i) => checkAllowListEntry(c, v, path, i, collections));
  each(src.cronTriggers, 'cron_triggers', checkCronTrigger);
  checkDuplicates(src, problems);
}

/** version.yaml: `version: 2`; an empty file means version 2 (cli.md §4.1). */
function checkVersion(c: Ctx): void {
  const v = c.src.value;
  if (v === undefined || v === null) return;
  if (!isObj(v)) {
    c.invalid('a mapping', v, []);
    return;
  }
  checkKeys(c, v, [], 'version.yaml', ['version'], ['version']);
  const version = v['version'];
  if (version === undefined || version === null || version === 2) return;
  const shown = typeof version === 'number' ? String(version) : JSON.stringify(version);
  c.error('metadata-version-unsupported', `unsupported metadata version ${shown}: expected 2`, ['version']);
}
