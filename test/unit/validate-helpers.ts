import { Problems, type Problem } from '../../src/project/problems.js';
import { validateMetadata, type MetadataSources } from '../../src/project/validate.js';
import { parseYaml } from '../../src/project/yaml-source.js';

/** The file each source is read from, as messages show it. */
export const FILES: Record<keyof MetadataSources, string> = {
  version: 'metadata/version.yaml',
  tables: 'metadata/tables.yaml',
  functions: 'metadata/functions.yaml',
  allowList: 'metadata/allow_list.yaml',
  remoteSchemas: 'metadata/remote_schemas.yaml',
  queryCollections: 'metadata/query_collections.yaml',
  cronTriggers: 'metadata/cron_triggers.yaml',
};

export type Texts = Partial<Record<keyof MetadataSources, string>>;

export function sources(texts: Texts, problems = new Problems()): MetadataSources {
  const src: MetadataSources = {};
  for (const [key, text] of Object.entries(texts) as [keyof MetadataSources, string][]) {
    const parsed = parseYaml(FILES[key], text, problems);
    if (parsed) src[key] = parsed;
  }
  return src;
}

/** Every problem of the files, in the order of cli.md §5.5. */
export function validate(texts: Texts): Problem[] {
  const problems = new Problems();
  validateMetadata(sources(texts, problems), problems);
  return problems.sorted();
}

/** A problem as the tests spell it: `<code> <file-suffix>:<line>:<col> <message>`. */
export const show = (p: Problem): string => `${p.severity} ${p.code} ${(p.file ?? '').replace('metadata/', '')}:${p.line}:${p.column} ${p.message}`;

export const shown = (texts: Texts): string[] => validate(texts).map(show);
