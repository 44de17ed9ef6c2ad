import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { isMap, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import { CliError } from '../../errors.js';
import { isObject, type Json } from '../../metadata/json.js';
import { readProjectFile, statProjectPath } from '../project-file.js';

/**
 * The migrations part of `engine migrate config` (cli.md §5.16 step 4), as a plan computed before anything is
 * touched: `up.yaml`/`down.yaml` steps converted to SQL (`run_sql`) or reported (everything else), flat
 * `<v>_<name>.<up|down>.<sql|yaml>` files moved into `<v>_<name>/`, and metadata-only versions given an `up.sql`.
 */

export interface StepRef {
  /** Project-relative path of the YAML file (report and messages). */
  file: string;
  /** 1-based. */
  step: number;
}

export interface ConvertedStep extends StepRef {
  /** `cascade: true` was given; SQL cannot express it (reported). */
  cascade?: true;
}

export interface NotConvertedStep extends StepRef {
  type: string;
  args: Json;
}

/** One change, in plan order (a version's moves, writes, removals); `note` only describes (dry run). */
export type MigrationAction =
  | { kind: 'move'; from: string; to: string }
  | { kind: 'write'; path: string; content: string; notes: string[]; created: boolean }
  | { kind: 'note'; notes: string[] }
  | { kind: 'remove'; path: string };

export interface MigrationsPlan {
  actions: MigrationAction[];
  converted: ConvertedStep[];
  notConverted: NotConvertedStep[];
  /** Project-relative paths of files in the migrations directory that are not migrations engine runs (`.up.py` …). */
  leftBehind: string[];
}

const VERSION_DIR = /^(\d+)_(.+)$/;
const FLAT_FILE = /^(\d+_.+)\.(up|down)\.(sql|yaml|yml)$/;
const YAML_NAMES = { up: ['up.yaml', 'up.yml'], down: ['down.yaml', 'down.yml'] } as const;
const KNOWN_IN_VERSION = new Set(['up.sql', 'down.sql', ...YAML_NAMES.up, ...YAML_NAMES.down]);
const METADATA_SOURCES = new Set(['metadata.yaml', 'metadata.json']);

type Direction = 'up' | 'down';

// A link loop or broken link is `unreadable-project-file`, never skipped as absent.
const isDir = (p: string) => statProjectPath(p)?.isDirectory() ?? false;
const isFile = (p: string) => statProjectPath(p)?.isFile() ?? false;
const read = (p: string): string => readProjectFile(p) ?? '';
const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** One `{type, args}` step of a version-1 YAML migration file. */
interface YamlStep {
  type: string;
  args: Json;
}

/**
 * Parses an `up.yaml`/`down.yaml` (a list of `{type, args}`); errors are `migration-invalid` at `file:line:col`.
 * An empty file has no steps.
 */
export function parseSteps(text: string, shown: string): YamlStep[] {
  const lines = new LineCounter();
  const doc = parseDocument(text.replace(/^\uFEFF/, ''), { lineCounter: lines, uniqueKeys: true, prettyErrors: false, schema: 'core' });
  const fail = (offset: number, message: string): CliError => {
    const p = lines.linePos(offset);
    return new CliError('migration-invalid', message, 1, { file: shown, line: p.line, column: p.col });
  };
  const err = doc.errors[0];
  if (err) throw fail(err.pos[0], err.code === 'MULTIPLE_DOCS' ? 'expected a single YAML document' : err.message.split('\n')[0] ?? err.message);
  const root = doc.contents as Node | null;
  const value = doc.toJS({ maxAliasCount: 1000 }) as unknown;
  if (value === null || value === undefined) return [];
  if (!isSeq(root) || !Array.isArray(value)) throw fail(root?.range?.[0] ?? 0, 'expected a list of {type, args} steps');
  return value.map((item: unknown, i) => {
    const node = root.items[i] as Node | undefined;
    const at = node?.range?.[0] ?? 0;
    if (!isObject(item) || !isMap(node)) throw fail(at, `step ${i + 1}: expected a mapping with "type" and "args"`);
    const type = item['type'];
    if (typeof type !== 'string' || type === '') throw fail(at, `step ${i + 1}: expected "type" to be a non-empty string`);
    const args = (item['args'] ?? null) as Json;
    if (type === 'run_sql' && (!isObject(args) || typeof args['sql'] !== 'string')) {
      throw fail(at, `step ${i + 1}: run_sql needs "args.sql" (a string)`);
    }
    return { type, args };
  });
}

/** The SQL chunk of a `run_sql` step (cli.md §5.16 step 4). */
export function sqlChunk(direction: Direction, step: number, sql: string): string {
  const trimmed = sql.trim();
  return `-- converted from ${direction}.yaml, step ${step}\n${trimmed.endsWith(';') ? trimmed : `${trimmed};`}\n`;
}

/**
 * SQL that the appended chunks can follow: its last statement ended by `;` (added when missing, unless the text ends
 * in a `--` comment line) and a final line break.
 */
function terminated(sql: string): string {
  const body = sql.trimEnd();
  const lastLine = body.slice(body.lastIndexOf('\n') + 1).trim();
  const end = body.endsWith(';') || lastLine.startsWith('--') ? '' : ';';
  return end === '' ? `${sql}${sql.endsWith('\n') ? '' : '\n'}` : `${body};${sql.slice(body.length).includes('\n') ? sql.slice(body.length) : '\n'}`;
}

/** What one version directory will hold, gathered from the directory and the flat files naming it. */
interface Version {
  name: string;
  dir: string;
  dirExists: boolean;
  sql: Record<Direction, { path: string; content: string; from?: string } | null>;
  yaml: Record<Direction, string[]>;
}

function versionOf(versions: Map<string, Version>, migrationsDir: string, name: string): Version {
  let v = versions.get(name);
  if (!v) {
    const dir = join(migrationsDir, name);
    v = { name, dir, dirExists: isDir(dir), sql: { up: null, down: null }, yaml: { up: [], down: [] } };
    versions.set(name, v);
  }
  return v;
}

/**
 * Plans step 4. `rel` gives the project-relative path of a file (for the report); `report` is the report's
 * project-relative path (named in metadata-only `up.sql` files).
 */
export function planMigrations(migrationsDir: string, rel: (p: string) => string, report: string): MigrationsPlan {
  const plan: MigrationsPlan = { actions: [], converted: [], notConverted: [], leftBehind: [] };
  if (!isDir(migrationsDir)) return plan;
  const versions = new Map<string, Version>();
  const invalid = (path: string, message: string) => new CliError('migration-invalid', `${rel(path)}: ${message}`, 1);
  for (const entry of readdirSync(migrationsDir).sort(byCodePoint)) {
    const path = join(migrationsDir, entry);
    if (entry.startsWith('.')) continue;
    const flat = FLAT_FILE.exec(entry);
    if (flat && isFile(path)) {
      const v = versionOf(versions, migrationsDir, flat[1] as string);
      const direction = flat[2] as Direction;
      if (flat[3] === 'sql') {
        const target = join(v.dir, `${direction}.sql`);
        if (isFile(target) || v.sql[direction]) throw invalid(path, `${rel(target)} also exists; merge them by hand`);
        v.sql[direction] = { path: target, content: read(path), from: path };
      } else v.yaml[direction].push(path);
      continue;
    }
    if (VERSION_DIR.test(entry) && isDir(path)) {
      const v = versionOf(versions, migrationsDir, entry);
      for (const inner of readdirSync(path).sort(byCodePoint)) {
        if (!inner.startsWith('.') && !KNOWN_IN_VERSION.has(inner)) plan.leftBehind.push(rel(join(path, inner)));
      }
      for (const direction of ['up', 'down'] as const) {
        const file = join(path, `${direction}.sql`);
        if (isFile(file)) {
          if (v.sql[direction]) throw invalid(v.sql[direction].from ?? file, `${rel(file)} also exists; merge them by hand`);
          v.sql[direction] = { path: file, content: read(file) };
        }
        for (const y of YAML_NAMES[direction]) if (isFile(join(path, y))) v.yaml[direction].push(join(path, y));
      }
      continue;
    }
    // The project's metadata files are converted by step 5; anything else stays as it was, and is said to.
    if (!METADATA_SOURCES.has(entry)) plan.leftBehind.push(rel(path));
  }
  for (const v of [...versions.values()].sort((a, b) => byCodePoint(a.name, b.name))) planVersion(v, plan, rel, report);
  return plan;
}

function planVersion(v: Version, plan: MigrationsPlan, rel: (p: string) => string, report: string): void {
  const touched = v.yaml.up.length + v.yaml.down.length > 0 || v.sql.up?.from !== undefined || v.sql.down?.from !== undefined;
  if (!touched) return;
  const removes: string[] = [];
  let hasSql = false;
  for (const direction of ['up', 'down'] as const) {
    const existing = v.sql[direction];
    const target = existing?.path ?? join(v.dir, `${direction}.sql`);
    if (existing?.from) plan.actions.push({ kind: 'move', from: existing.from, to: existing.path });
    if (existing) hasSql = true;
    const chunks: string[] = [];
    const notes: string[] = [];
    for (const file of v.yaml[direction]) {
      const shown = rel(file);
      const steps = parseSteps(read(file), shown);
      let converted = 0;
      steps.forEach((s, i) => {
        const args = s.args as Record<string, Json>;
        if (s.type === 'run_sql') {
          chunks.push(sqlChunk(direction, i + 1, args['sql'] as string));
          plan.converted.push({ file: shown, step: i + 1, ...(args['cascade'] === true ? { cascade: true as const } : {}) });
          converted++;
        } else plan.notConverted.push({ file: shown, step: i + 1, type: s.type, args: s.args });
      });
      notes.push(`convert ${shown} → ${rel(target)} (${converted} step(s) converted, ${steps.length - converted} not converted)`);
      removes.push(file);
    }
    if (chunks.length > 0) {
      const base = existing?.content ?? null;
      const joined = chunks.join('');
      const content = direction === 'down'
        ? `${joined}${base ?? ''}`
        : base === null || base.trim() === '' ? joined : `${terminated(base)}${joined}`;
      plan.actions.push({ kind: 'write', path: target, content, notes, created: existing === null });
      hasSql = true;
    } else if (notes.length > 0) plan.actions.push({ kind: 'note', notes });
  }
  if (!hasSql) {
    const path = join(v.dir, 'up.sql');
    plan.actions.push({
      kind: 'write', path, content: `-- metadata-only migration; its steps are listed in ${report}\n`,
      notes: [`create ${rel(path)} (metadata-only migration)`], created: true,
    });
  }
  for (const r of removes) plan.actions.push({ kind: 'remove', path: r });
}

/** The lines of the dry-run listing for step 4 (cli.md §5.16 step 2). */
export function describeMigrations(plan: MigrationsPlan, rel: (p: string) => string): string[] {
  const out: string[] = [];
  for (const a of plan.actions) {
    if (a.kind === 'move') out.push(`move ${rel(a.from)} → ${rel(a.to)}`);
    else if (a.kind === 'write' || a.kind === 'note') out.push(...a.notes);
    else out.push(`remove ${rel(a.path)}`);
  }
  for (const s of plan.notConverted) out.push(`not converted: ${s.file} step ${s.step} (${s.type})`);
  for (const s of plan.converted) if (s.cascade) out.push(`cascade not kept: ${s.file} step ${s.step} (run_sql with cascade: true)`);
  for (const f of plan.leftBehind) out.push(`leave ${f} (not a migration engine runs)`);
  return out;
}

/** The warnings of an upgrade, printed by the real run and, identically, by its dry run. */
export function upgradeWarnings(plan: MigrationsPlan, report: string, metadataDir: string): { code: string; message: string }[] {
  return [
    ...plan.notConverted.map((s) => ({
      code: 'step-not-converted',
      message: `${s.file} step ${s.step} (${s.type}) was not converted to SQL; check that ${metadataDir}/ contains its effect (see ${report})`,
    })),
    ...plan.converted.filter((s) => s.cascade).map((s) => ({
      code: 'step-cascade-ignored', message: `${s.file} step ${s.step} (run_sql) has cascade: true, which SQL cannot express (see ${report})`,
    })),
    ...plan.leftBehind.map((f) => ({
      code: 'file-left-behind', message: `${f} is not a migration engine runs; it was left as it is (see ${report})`,
    })),
  ];
}

/** Whether the migrations directory exists (step 3 backs it up only then). */
export const migrationsExist = (dir: string): boolean => isDir(dir);
