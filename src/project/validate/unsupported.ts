import { readdirSync, statSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { ApiError } from '../../errors.js';
import { isObject } from '../../metadata/json.js';
import { parseRemoteRelDefinition } from '../../metadata/kinds/remote-relationships.js';
import type { Problems } from '../problems.js';
import { readProjectFile, shownPath, statProjectPath, unreadable, unreadableReason } from '../project-file.js';
import type { MetadataSources } from './sources.js';
import { positionAt, type YamlSource } from '../yaml-source.js';

/**
 * Issue 12 item 5: what the engine does not support yet is an error at its file:line:col before any request is sent,
 * naming the feature, and no file of the metadata directory is passed over in silence. `metadata validate`, `build`,
 * `diff` and `apply` all build through this check.
 */

/** Files of the incumbent's metadata directory (versions 2 and 3) that hold features engine does not have yet. */
const UNSUPPORTED_FILES: Record<string, string> = {
  'network.yaml': 'network settings (TLS allow list)',
  'graphql_schema_introspection.yaml': 'disabling GraphQL introspection per role',
  'opentelemetry.yaml': 'OpenTelemetry export',
  'metrics_config.yaml': 'metrics configuration',
  'backend_configs.yaml': 'backend configurations',
  'source_customization.yaml': 'source customization',
};

const HINT = 'remove it from the metadata directory, or keep it on a branch until engine supports it';

export function checkUnsupported(dir: string, src: MetadataSources, problems: Problems, known: readonly string[], cwd: string, layout: 2 | 3 = 2): void {
  remoteRelationships(src.tables, problems);
  files(dir, problems, new Set(known), cwd, layout);
}

function notSupported(problems: Problems, feature: string, at: { file: string; line: number; column: number }): void {
  problems.error('feature-not-supported', `engine does not support ${feature} yet; ${HINT}`, at);
}

/**
 * Remote relationships to a remote schema are read as the engine reads them (issue 35.3), each problem at its
 * definition; one to a table of another source (`to_source`) is a feature engine does not have.
 */
function remoteRelationships(file: YamlSource | undefined, problems: Problems): void {
  if (!file || !Array.isArray(file.value)) return;
  file.value.forEach((t, i) => {
    const rr = isObject(t) ? t['remote_relationships'] : undefined;
    if (!Array.isArray(rr)) return;
    rr.forEach((r, j) => {
      if (!isObject(r) || r['definition'] === undefined) return;
      try {
        parseRemoteRelDefinition(r['definition'], '$');
      } catch (e) {
        if (!(e instanceof ApiError)) throw e;
        const pos = positionAt(file, [i, 'remote_relationships', j, 'definition'], true);
        if (e.code === 'not-supported') notSupported(problems, 'remote relationships to a table of another source (to_source)', pos);
        else problems.error('metadata-invalid', `remote relationship "${String(r['name'])}": ${e.message}${e.path === '$' ? '' : ` (at definition${e.path.slice(1)})`}`, pos);
      }
    });
  });
}

/** A file holding only `[]`, `{}`, nothing, or comments carries no feature: ignoring it drops nothing. */
function carriesNothing(text: string): boolean {
  const meaningful = text.replace(/^\uFEFF/, '').split('\n').map((l) => l.replace(/#.*$/, '').trim()).filter((l) => l !== '');
  return meaningful.length === 0 || (meaningful.length === 1 && ['[]', '{}', 'null', '~'].includes(meaningful[0] as string));
}

function files(dir: string, problems: Problems, known: Set<string>, cwd: string, layout: 2 | 3): void {
  for (const name of readdirSync(dir).sort()) {
    // Version 3 reads `databases/` as a directory only: anything else by that name is ignored, and said so.
    const v3Databases = layout === 3 && name === 'databases' && !(statProjectPath(join(dir, name), cwd)?.isDirectory() ?? false);
    if ((known.has(name) && !v3Databases) || name.startsWith('.')) continue;
    const path = join(dir, name);
    const at = { file: shownPath(path, cwd), line: 1, column: 1 };
    let stat: Stats | undefined;
    try {
      stat = statSync(path, { throwIfNoEntry: false });
    } catch (e) {
      throw unreadable(path, unreadableReason(e), cwd);
    }
    if (name === 'databases' && stat?.isDirectory() && layout === 2) {
      // Read as version 2, the version 3 tables would be dropped: the project says the wrong version.
      problems.error('config-version-mismatch', `${at.file}/ is the config version 3 layout, but the project is at config version 2; its tables and functions would be ignored; set "version: 3" in config.yaml and in version.yaml`, { ...at, file: `${at.file}/` });
      continue;
    }
    const feature = UNSUPPORTED_FILES[name];
    if (feature !== undefined && stat?.isFile()) {
      if (!carriesNothing(readProjectFile(path, { cwd }) ?? '')) notSupported(problems, feature, at);
      continue;
    }
    problems.warn('metadata-file-ignored', `${name} is not a metadata file engine reads; it is ignored`, at);
  }
}
