import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { CliError } from '../../errors.js';
import { atomicWrite } from '../actions/codegen.js';
import { shownPath } from '../config/environment.js';
import { buildMetadata } from '../metadata-dir/build.js';
import { plannedFiles, writeTree, type ExportReport } from '../metadata-dir/export.js';
import type { Problem } from '../problems.js';
import { readProjectFile } from '../project-file.js';
import { upgradeConfigText } from './config.js';
import { backupDirFor, reasonOf, syncTree } from './upgrade.js';
import { DATABASES_DIR } from '../metadata-dir/layout-v3/read.js';
import { existingFromV2, renderV3 } from '../metadata-dir/layout-v3/write.js';

/**
 * `engine config upgrade --to 3` on a version 2 project: the metadata directory rewritten in the `databases/` layout
 * (one file per table, comments carried over) and `version: 3` in config.yaml and version.yaml. Like the version 1
 * upgrade: everything is planned before anything is touched, config.yaml and the metadata directory are backed up
 * first, and any failure restores them from the backup.
 */

export interface UpgradeV3Input {
  projectDir: string;
  configFile: string;
  metadataDir: string;
  now?: Date;
}

export interface UpgradeV3Plan {
  input: UpgradeV3Input;
  backup: string;
  newConfigText: string;
  /** Relative path → content, or null to remove. */
  files: Map<string, string>;
  removed: string[];
  /** Warnings of the version 2 build (e.g. unknown keys, which the conversion leaves out). */
  warnings: Problem[];
  /** Comment lines that had nothing left to belong to, per file. */
  droppedComments: { file: string; lines: number }[];
}

/** Plans the conversion; reads only. The version 2 metadata must build without errors. */
export function planUpgradeV3(input: UpgradeV3Input): UpgradeV3Plan {
  const dir = input.metadataDir;
  if (existsSync(join(dir, DATABASES_DIR))) {
    throw new CliError('metadata-dir-exists', `${shownPath(join(dir, DATABASES_DIR))}/ already exists; nothing was changed`, 1, {
      hint: 'move it away, or set "version: 3" in config.yaml if the project is in that layout already',
    });
  }
  const built = buildMetadata(dir, process.cwd(), 2);
  const first = built.problems.sorted().find((p) => p.severity === 'error');
  if (!built.document || first) {
    throw Object.assign(new CliError('metadata-invalid', `the metadata has ${built.problems.errors.length} error(s); fix them before upgrading; nothing was changed`, 1, {
      ...(first?.file ? { file: first.file, line: first.line, column: first.column } : {}),
      hint: "run 'engine metadata validate' to see them",
    }), { extra: { problems: built.problems.sorted() } });
  }
  const droppedComments: { file: string; lines: number }[] = [];
  const r = renderV3(built.document, existingFromV2(dir, built.document), (lines, file) => droppedComments.push({ file, lines }));
  const next = new Map([...plannedFiles(dir, r.top, false), ...r.nested]);
  const files = new Map<string, string>();
  const removed: string[] = [];
  for (const [name, content] of next) {
    if (content !== null) files.set(name, content);
    else if (existsSync(join(dir, name))) removed.push(name);
  }
  return {
    input, backup: backupDirFor(input.projectDir, input.now ?? new Date()), files, removed, droppedComments,
    newConfigText: upgradeConfigText(readFileSync(input.configFile, 'utf8'), 3, true), warnings: built.problems.warnings,
  };
}

/** The steps of `--dry-run`, naming every file. */
export function describeUpgradeV3(plan: UpgradeV3Plan): string[] {
  const md = shownPath(plan.input.metadataDir);
  const changes = [...plan.files].sort(([a], [b]) => (a < b ? -1 : 1)).flatMap(([name, content]) => {
    const old = readProjectFile(join(plan.input.metadataDir, name));
    return old === content ? [] : [`   ${old === undefined ? 'create' : 'update'} ${md}/${name}`];
  });
  return [
    `1. Back up ${shownPath(plan.input.configFile)} and ${md}/ to ${shownPath(plan.backup)}/`,
    `2. Rewrite ${md}/ in the config version 3 layout (one file per table):`,
    ...changes,
    ...plan.removed.map((f) => `   remove ${md}/${f}`),
    `3. Update ${shownPath(plan.input.configFile)}: version: 3`,
  ];
}

export interface UpgradeV3Result {
  backup: string;
  report: ExportReport;
}

/** Backs up, rewrites, and restores everything from the backup on any failure. */
export function runUpgradeV3(plan: UpgradeV3Plan, backedUp: (backup: string) => void): UpgradeV3Result {
  const { input, backup } = plan;
  const mdBackup = join(backup, basename(input.metadataDir));
  mkdirSync(backup, { recursive: true });
  try {
    copyFileSync(input.configFile, join(backup, 'config.yaml'));
    cpSync(input.metadataDir, mdBackup, { recursive: true });
  } catch (e) {
    rmSync(backup, { recursive: true, force: true });
    throw new CliError('upgrade-failed', `upgrade failed: cannot back up the project: ${reasonOf(e)}`, 1);
  }
  backedUp(backup);
  try {
    const next = new Map<string, string | null>([...plan.files, ...plan.removed.map((f) => [f, null] as const)]);
    const report = writeTree(input.metadataDir, next);
    atomicWrite(input.configFile, plan.newConfigText, statSync(input.configFile).mode & 0o777);
    return { backup, report };
  } catch (e) {
    const reason = reasonOf(e);
    try {
      syncTree(mdBackup, input.metadataDir);
      const saved = readFileSync(join(backup, 'config.yaml'));
      if (!readFileSync(input.configFile).equals(saved)) atomicWrite(input.configFile, saved, statSync(input.configFile).mode & 0o777);
    } catch (r) {
      throw new CliError('upgrade-failed', `upgrade failed: ${reason}; restoring the project also failed (${reasonOf(r)}): copy it back from ${shownPath(backup)}/`, 1);
    }
    throw new CliError('upgrade-failed', `upgrade failed: ${reason}; the project was restored from ${shownPath(backup)}/`, 1);
  }
}
