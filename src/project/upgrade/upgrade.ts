import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { ApiError, CliError, EngineError } from '../../errors.js';
import { canonicalDocument } from '../../metadata/document.js';
import { isObject, type JsonObject } from '../../metadata/json.js';
import { atomicWrite } from '../actions/codegen.js';
import { shownPath } from '../config/environment.js';
import { METADATA_FILES, OPTIONAL_FILES, type MetadataFileKey } from '../metadata-dir/build.js';
import { checkServerMetadata, renderFiles, toYaml, writeMetadataDir } from '../metadata-dir/export.js';
import { DATABASES_DIR, DATABASES_FILE } from '../metadata-dir/layout-v3/read.js';
import { exportV3, noExisting } from '../metadata-dir/layout-v3/write.js';
import { upgradeConfigText } from './config.js';
import { renameEnvNames, renameSessionNames, type EnvRename, type SessionRename } from '../validate/incumbent-names.js';
import { describeMigrations, migrationsExist, planMigrations, type MigrationsPlan } from './steps.js';

/**
 * `engine migrate config` (cli.md §5.16): upgrades a config version 1 project to version 2 (or 3 with `--to 3`: the
 * metadata is then written in the `databases/` layout, metadata-dir/layout-v3/). Everything is planned
 * (and every YAML step parsed) before anything is touched; then backup (3), migrations (4), metadata (5), config (6)
 * and report (7), any failure of which restores the project from the backup (8).
 */

export interface UpgradeInput {
  projectDir: string;
  configFile: string;
  migrationsDir: string;
  metadataDir: string;
  /** The project's env file (`.env`), if any: its `HASURA_GRAPHQL_*` names are renamed too. */
  envFile?: string | null;
  /** For the `<v>` of dates in the backup name; default now. */
  now?: Date;
  /** The config version to reach: 2 (default), or 3 straight away (the metadata written in the `databases/` layout). */
  to?: 2 | 3;
  /** `--rename-session-variables`: `X-Hasura-…` → `X-Engine-…` in permissions (both prefixes work without it, issue 29). */
  renameSessionVariables?: boolean;
}

export interface UpgradePlan {
  input: UpgradeInput;
  backup: string;
  report: string;
  migrations: MigrationsPlan;
  /** `migrations/metadata.yaml` or `.json`; null: the engine's metadata. */
  metadataSource: string | null;
  /** Every metadata file in the migrations directory (all are removed). */
  metadataFiles: string[];
  configText: string;
  newConfigText: string;
  /** The env file and its new text, when it names `HASURA_GRAPHQL_*` variables. */
  env: { file: string; text: string; newText: string } | null;
  /** `HASURA_GRAPHQL_*` → `ENGINE_GRAPHQL_*` in config.yaml and the env file (lines of the original files). */
  envRenamed: EnvRename[];
}

export interface UpgradeWarning { code: string; message: string }

const projectPath = (projectDir: string) => (p: string): string => relative(projectDir, p).split(sep).join('/') || '.';

/** `.engine-backup/<UTC YYYYMMDDTHHMMSSZ>/`, with `-2`, `-3`… when taken. */
export function backupDirFor(projectDir: string, now: Date): string {
  const stamp = now.toISOString().replace(/\.\d+Z$/, 'Z').replace(/[-:]/g, '');
  const base = join(projectDir, '.engine-backup', stamp);
  let dir = base;
  for (let n = 2; existsSync(dir); n++) dir = `${base}-${n}`;
  return dir;
}

/** Plans the upgrade; reads only. Fails with `migration-invalid` or `metadata-dir-exists` before anything changes. */
export function planUpgrade(input: UpgradeInput, warn: (w: UpgradeWarning) => void): UpgradePlan {
  const rel = projectPath(input.projectDir);
  const backup = backupDirFor(input.projectDir, input.now ?? new Date());
  const report = join(backup, 'report.yaml');
  const dir = input.metadataDir;
  if (existsSync(dir)) {
    const names = statSync(dir).isDirectory() ? readdirSync(dir) : [];
    const files = Object.values(METADATA_FILES).map(([name]) => name);
    if (!statSync(dir).isDirectory() || names.some((n) => (files as string[]).includes(n) || (input.to === 3 && n === DATABASES_DIR))) {
      throw new CliError('metadata-dir-exists', `metadata directory "${shownPath(dir)}" already contains metadata files`, 1);
    }
  }
  const migrations = planMigrations(input.migrationsDir, rel, rel(report));
  const candidates = ['metadata.yaml', 'metadata.json'].map((n) => join(input.migrationsDir, n)).filter((p) => existsSync(p));
  if (candidates.length === 2) {
    warn({ code: 'metadata-source-ambiguous', message: `both ${shownPath(candidates[0] as string)} and ${shownPath(candidates[1] as string)} exist; using ${shownPath(candidates[0] as string)}` });
  }
  const configText = readFileSync(input.configFile, 'utf8');
  const config = renameEnvNames(configText, rel(input.configFile));
  const envText = input.envFile && existsSync(input.envFile) ? readFileSync(input.envFile, 'utf8') : null;
  const env = envText !== null && input.envFile ? renameEnvNames(envText, rel(input.envFile)) : null;
  return {
    input, backup, report, migrations, metadataSource: candidates[0] ?? null, metadataFiles: candidates,
    configText, newConfigText: upgradeConfigText(config.text, input.to ?? 2),
    env: env && env.renamed.length > 0 && input.envFile ? { file: input.envFile, text: envText as string, newText: env.text } : null,
    envRenamed: [...config.renamed, ...(env?.renamed ?? [])],
  };
}

/** The numbered steps of `--dry-run` (cli.md §5.16 step 2), naming every file created, converted, moved or removed. */
export function describePlan(plan: UpgradePlan): string[] {
  const { input } = plan;
  const shown = (p: string) => shownPath(p);
  const mig = describeMigrations(plan.migrations, shown);
  const mdDir = shown(input.metadataDir);
  const source = plan.metadataSource ? shown(plan.metadataSource) : 'the engine (export_metadata)';
  return [
    `1. Back up config.yaml and ${shown(input.migrationsDir)}/ to ${shown(plan.backup)}/`,
    `2. Convert migrations in ${shown(input.migrationsDir)}/:`,
    ...(mig.length > 0 ? mig : ['nothing to convert']).map((l) => `   ${l}`),
    `3. Write the metadata directory ${mdDir}/ from ${source}:`,
    ...(Object.entries(METADATA_FILES) as [MetadataFileKey, readonly [string, string]][])
      .filter(([key]) => !OPTIONAL_FILES.has(key) && (input.to !== 3 || (key !== 'tables' && key !== 'functions'))).map(([, [name]]) => `   create ${mdDir}/${name}`),
    ...(input.to === 3 ? V3_FILES.map((f) => `   create ${mdDir}/${f}`) : []),
    ...plan.metadataFiles.map((f) => `   remove ${shown(f)}`),
    `4. Update ${shown(input.configFile)}: ${configChanges(plan.configText, input.to ?? 2).join(', ')}`,
    ...plan.envRenamed.map((r) => `   rename ${r.from} → ${r.to} (${r.file}:${r.line})`),
    ...(input.renameSessionVariables ? [`   rename the incumbent's session variables (X-Hasura-… → X-Engine-…) in permission filters, checks and presets`] : []),
    `5. Write the report ${shown(plan.report)}`,
  ];
}

/** What the version 3 layout adds (tables and functions one file each). */
const V3_FILES = [
  `${DATABASES_DIR}/${DATABASES_FILE}`, `${DATABASES_DIR}/default/tables/tables.yaml`,
  `${DATABASES_DIR}/default/tables/<schema>_<table>.yaml (one per table)`, `${DATABASES_DIR}/default/functions/ (when there are functions)`,
];

/** The keys step 6 sets, for the dry run. */
function configChanges(text: string, to: 2 | 3): string[] {
  const js = (parseDocument(text).toJS() ?? {}) as Record<string, unknown>;
  const out = [`version: ${to}`];
  if (!('metadata_directory' in js)) out.push('metadata_directory: metadata');
  const a = isObject(js['actions']) ? js['actions'] : {};
  if (!('kind' in a)) out.push('actions.kind: synchronous');
  if (!('handler_webhook_baseurl' in a)) out.push('actions.handler_webhook_baseurl: http://localhost:3000');
  return out;
}

/** A project's metadata file as a version 2 document (cli.md §5.16 step 5, engine-api.md §6.2). */
export function metadataFromFile(path: string): JsonObject {
  const shown = shownPath(path);
  const text = readFileSync(path, 'utf8').replace(/^\uFEFF/, '');
  let value: unknown;
  if (path.endsWith('.json')) {
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw new CliError('metadata-invalid', `${shown}: ${e instanceof Error ? e.message : String(e)}`, 1);
    }
  } else {
    const lines = new LineCounter();
    const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false, schema: 'core' });
    const err = doc.errors[0];
    if (err) {
      const p = lines.linePos(err.pos[0]);
      throw new CliError('metadata-invalid', err.message.split('\n')[0] ?? err.message, 1, { file: shown, line: p.line, column: p.col });
    }
    value = doc.toJS({ maxAliasCount: 1000 });
  }
  if (value === null || value === undefined) value = {};
  if (isObject(value) && value['version'] === 1) {
    const { version: _v, ...rest } = value;
    value = rest;
  }
  try {
    return canonicalDocument(value);
  } catch (e) {
    if (e instanceof ApiError) throw new CliError('metadata-invalid', `${shown}: ${e.path}: ${e.message}`, 1);
    throw e;
  }
}

/** The engine's metadata as a version 2 document (cli.md §4.8 step 1). */
export function metadataFromEngine(raw: unknown): JsonObject {
  return canonicalDocument(checkServerMetadata(raw));
}

/** Makes `target` hold exactly the files of `source` (bytes), writing only what differs. */
export function syncTree(source: string, target: string): void {
  mkdirSync(target, { recursive: true });
  const want = new Set(readdirSync(source));
  for (const e of readdirSync(target)) if (!want.has(e)) rmSync(join(target, e), { recursive: true, force: true });
  for (const e of want) {
    const s = join(source, e);
    const t = join(target, e);
    const tStat = statSync(t, { throwIfNoEntry: false });
    if (statSync(s).isDirectory()) {
      if (tStat && !tStat.isDirectory()) rmSync(t, { force: true });
      syncTree(s, t);
    } else {
      if (tStat?.isDirectory()) rmSync(t, { recursive: true, force: true });
      if (!tStat?.isFile() || !readFileSync(s).equals(readFileSync(t))) copyFileSync(s, t);
    }
  }
}

export const reasonOf = (e: unknown): string => {
  if (e instanceof EngineError) {
    const l = e.location;
    return l.file ? `${l.file}${l.line ? `:${l.line}:${l.column ?? 1}` : ''}: ${e.message}` : e.message;
  }
  return e instanceof Error ? e.message : String(e);
};

export interface UpgradeResult {
  backup: string;
  report: string;
  converted: MigrationsPlan['converted'];
  notConverted: MigrationsPlan['notConverted'];
  leftBehind: string[];
  moved: { from: string; to: string }[];
  removed: string[];
  renamed: { session_variables: SessionRename[]; environment: EnvRename[] };
}

export interface UpgradeHooks {
  /** Step 3 done: the backup exists. */
  backedUp(backup: string): void;
  /** The engine's metadata (only called when the project has no metadata file). */
  engineMetadata(): Promise<unknown>;
}

/** Steps 3–8. */
export async function runUpgrade(plan: UpgradePlan, hooks: UpgradeHooks): Promise<UpgradeResult> {
  const { input, backup } = plan;
  const rel = projectPath(input.projectDir);
  const migBackup = join(backup, basename(input.migrationsDir));
  const hadMigrations = migrationsExist(input.migrationsDir);
  // 3. Backup.
  mkdirSync(backup, { recursive: true });
  try {
    copyFileSync(input.configFile, join(backup, 'config.yaml'));
    if (plan.env) copyFileSync(plan.env.file, join(backup, basename(plan.env.file)));
    if (hadMigrations) cpSync(input.migrationsDir, migBackup, { recursive: true });
  } catch (e) {
    rmSync(backup, { recursive: true, force: true });
    throw new CliError('upgrade-failed', `upgrade failed: cannot back up the project: ${reasonOf(e)}`, 1);
  }
  hooks.backedUp(backup);
  const metadataDirExisted = existsSync(input.metadataDir);
  const result: UpgradeResult = {
    backup, report: plan.report, converted: plan.migrations.converted, notConverted: plan.migrations.notConverted,
    leftBehind: plan.migrations.leftBehind, moved: [], removed: [], renamed: { session_variables: [], environment: plan.envRenamed },
  };
  try {
    // 4. Migrations.
    for (const a of plan.migrations.actions) {
      if (a.kind === 'move') {
        mkdirSync(dirname(a.to), { recursive: true });
        renameSync(a.from, a.to);
        result.moved.push({ from: rel(a.from), to: rel(a.to) });
      } else if (a.kind === 'write') {
        mkdirSync(dirname(a.path), { recursive: true });
        atomicWrite(a.path, a.content);
      } else if (a.kind === 'remove') {
        rmSync(a.path);
        result.removed.push(rel(a.path));
      }
    }
    // 5. Metadata.
    const source = plan.metadataSource ? metadataFromFile(plan.metadataSource) : metadataFromEngine(await hooks.engineMetadata());
    const { doc, renamed } = input.renameSessionVariables ? renameSessionNames(source) : { doc: source, renamed: [] };
    result.renamed.session_variables = renamed;
    if (input.to === 3) exportV3(input.metadataDir, doc, noExisting(), false);
    else writeMetadataDir(input.metadataDir, renderFiles(doc), false);
    for (const f of plan.metadataFiles) {
      rmSync(f);
      result.removed.push(rel(f));
    }
    // 6. Config.
    atomicWrite(input.configFile, plan.newConfigText, statSync(input.configFile).mode & 0o777);
    if (plan.env) atomicWrite(plan.env.file, plan.env.newText, statSync(plan.env.file).mode & 0o777);
    // 7. Report.
    const report = {
      converted: result.converted,
      not_converted: result.notConverted,
      moved: result.moved,
      removed: result.removed,
      left_behind: result.leftBehind,
      renamed: result.renamed,
    };
    atomicWrite(plan.report, toYaml(report));
    return result;
  } catch (e) {
    const reason = reasonOf(e);
    try {
      restore(plan, migBackup, hadMigrations, metadataDirExisted);
    } catch (r) {
      throw new CliError('upgrade-failed', `upgrade failed: ${reason}; restoring the project also failed (${reasonOf(r)}): copy it back from ${shownPath(backup)}/`, 1);
    }
    throw new CliError('upgrade-failed', `upgrade failed: ${reason}; the project was restored from ${shownPath(backup)}/`, 1);
  }
}

/** Step 8: config.yaml and the migrations directory as backed up; the metadata files this run wrote removed. */
function restore(plan: UpgradePlan, migBackup: string, hadMigrations: boolean, metadataDirExisted: boolean): void {
  const { input } = plan;
  const saved = readFileSync(join(plan.backup, 'config.yaml'));
  if (!readFileSync(input.configFile).equals(saved)) atomicWrite(input.configFile, saved, statSync(input.configFile).mode & 0o777);
  if (plan.env && readFileSync(plan.env.file, 'utf8') !== plan.env.text) atomicWrite(plan.env.file, plan.env.text, statSync(plan.env.file).mode & 0o777);
  if (hadMigrations) syncTree(migBackup, input.migrationsDir);
  else rmSync(input.migrationsDir, { recursive: true, force: true });
  if (!metadataDirExisted) rmSync(input.metadataDir, { recursive: true, force: true });
  else for (const name of [...Object.values(METADATA_FILES).map(([n]) => n), DATABASES_DIR]) rmSync(join(input.metadataDir, name), { recursive: true, force: true });
  rmSync(plan.report, { force: true });
}
