import { createHash } from 'node:crypto';
import { existsSync, readFileSync, watch, type FSWatcher } from 'node:fs';
import type { EngineClient } from '../../client/engine-client.js';
import { CliError } from '../../errors.js';
import { silentLogger } from '../../logger.js';
import { readMigrations } from '../migrations/migrations.js';
import { applySeeds, seedFiles } from '../migrations/seeds.js';
import { applyMetadata, type ApplyRejectedError } from '../metadata-dir/apply.js';
import type { BuildResult } from '../metadata-dir/build.js';
import type { Problem } from '../problems.js';
import { applyPendingMigrations, type ProjectSources } from '../test/ephemeral.js';
import { findTestFiles, loadTestFiles } from '../test/discover.js';
import { runTests, type TestRun } from '../test/index.js';

/**
 * `engine dev` (issue 33 point 5) without the terminal: the project's folders are watched and each change is brought to
 * the dev engine — pending migrations applied, metadata built and applied (the engine keeps the last good metadata
 * when the files have errors or the engine rejects them), the test cases run again on an ephemeral engine. What
 * happens is told through `onEvent`; the command prints it.
 */

export type DevEvent =
  | { kind: 'migrations-applied'; versions: string[] }
  /** An applied migration's file changed: the dev database no longer matches it; `engine db reset` rebuilds it. */
  | { kind: 'migration-changed'; version: string; name: string }
  | { kind: 'metadata-invalid'; problems: Problem[] }
  | { kind: 'metadata-applied'; warnings: Problem[]; changed: boolean }
  | { kind: 'metadata-rejected'; error: ApplyRejectedError | Error; built: BuildResult }
  | { kind: 'seeds-applied'; files: number }
  /** Seed files changed: they run on a fresh database only (`engine db reset`). */
  | { kind: 'seeds-changed' }
  | { kind: 'tests'; run: TestRun }
  | { kind: 'failed'; step: 'migrations' | 'metadata' | 'seeds' | 'tests'; error: unknown };

export type DevPart = 'migrations' | 'metadata' | 'seeds' | 'tests';

export interface DevProject {
  projectDir: string;
  migrationsDirectory: string;
  metadataDirectory: string;
  seedsDirectory: string;
  testsDirectory: string;
  /** Builds the metadata from the files (problems, no throw). */
  build(): BuildResult;
  /** The dev engine's client (admin). */
  client: EngineClient;
  /** What an ephemeral engine for the tests is built from, given the metadata built. */
  sources(built: BuildResult & { document: NonNullable<BuildResult['document']> }): ProjectSources;
  /** Run the test cases after each change (default true when the tests folder exists). */
  tests?: boolean;
  onEvent(e: DevEvent): void;
  /** How long changes are gathered before they are brought over. */
  debounceMs?: number;
  /** The data directory was created by this start: the seeds run once the metadata is applied. */
  freshDatabase?: boolean;
}

const digest = (path: string | null): string => (path && existsSync(path) ? createHash('sha256').update(readFileSync(path)).digest('hex') : '');

export class DevWatcher {
  private readonly watchers: FSWatcher[] = [];
  private readonly due = new Set<DevPart>();
  private timer: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();
  /** The up.sql digests of the migrations applied, as they were when applied (or when dev started). */
  private readonly appliedDigests = new Map<string, string>();
  private lastGood: (BuildResult & { document: NonNullable<BuildResult['document']> }) | null = null;
  private lastAppliedText: string | null = null;
  /** The last run of the migrations failed: they are tried again on any change until they apply. */
  private migrationsFailed = false;
  private closed = false;

  constructor(private readonly p: DevProject) {}

  /** The first sync (migrations, metadata, seeds on a fresh database, tests), then the watch. */
  async start(): Promise<void> {
    await this.migrations();
    await this.metadata();
    if (this.p.freshDatabase) await this.seeds();
    await this.tests();
    const dirs: [string, DevPart][] = [
      [this.p.migrationsDirectory, 'migrations'], [this.p.metadataDirectory, 'metadata'], [this.p.seedsDirectory, 'seeds'], [this.p.testsDirectory, 'tests'],
    ];
    for (const [dir, part] of dirs) {
      if (!existsSync(dir)) continue;
      const w = watch(dir, { recursive: true }, () => this.changed(part));
      w.on('error', (error) => this.p.onEvent({ kind: 'failed', step: part, error }));
      this.watchers.push(w);
    }
  }

  /** Resolves once every change seen so far has been brought over (tests use it). */
  settled(): Promise<void> {
    return this.chain;
  }

  close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    for (const w of this.watchers) w.close();
    return this.chain;
  }

  private changed(part: DevPart): void {
    if (this.closed) return;
    this.due.add(part);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), this.p.debounceMs ?? 150);
  }

  private flush(): void {
    const parts = new Set(this.due);
    this.due.clear();
    this.chain = this.chain.then(async () => {
      if (this.closed) return;
      const retry = this.migrationsFailed;
      if (parts.has('migrations') || retry) await this.migrations();
      // A migration may make inconsistent metadata consistent: the metadata goes again after it.
      if (parts.has('metadata') || parts.has('migrations') || retry) {
        const was = this.lastAppliedText;
        const applied = await this.metadata();
        // A migration the applied metadata held back (a column a permission uses, dropped) may pass now that other
        // metadata is applied; the metadata then goes again on the new tables.
        if (applied && this.lastAppliedText !== was && this.migrationsFailed && (await this.migrations())) await this.metadata();
      }
      if (parts.has('seeds')) this.p.onEvent({ kind: 'seeds-changed' });
      await this.tests();
    });
  }

  /** Applies pending migrations; reports applied ones whose up.sql changed since. True when any was applied. */
  private async migrations(): Promise<boolean> {
    const dir = this.p.migrationsDirectory;
    try {
      const local = readMigrations(dir).migrations;
      for (const m of local) {
        const key = m.version.toString();
        const was = this.appliedDigests.get(key);
        const now = digest(m.up);
        if (was !== undefined && was !== now) {
          this.p.onEvent({ kind: 'migration-changed', version: key, name: m.name });
          this.appliedDigests.set(key, now);
        }
      }
      const r = await applyPendingMigrations(this.p.client, dir);
      this.migrationsFailed = false;
      if (r.applied.length > 0) this.p.onEvent({ kind: 'migrations-applied', versions: r.applied.map(String) });
      for (const m of local) if (!this.appliedDigests.has(m.version.toString())) this.appliedDigests.set(m.version.toString(), digest(m.up));
      return r.applied.length > 0;
    } catch (error) {
      this.migrationsFailed = true;
      this.p.onEvent({ kind: 'failed', step: 'migrations', error });
      return false;
    }
  }

  /** Builds and applies the metadata; true when the engine has it now. */
  private async metadata(): Promise<boolean> {
    let built: BuildResult;
    try {
      built = this.p.build();
    } catch (error) {
      this.p.onEvent({ kind: 'failed', step: 'metadata', error });
      return false;
    }
    if (!built.document) {
      this.p.onEvent({ kind: 'metadata-invalid', problems: built.problems.errors });
      return false;
    }
    const good = { ...built, document: built.document };
    const text = JSON.stringify(built.document);
    try {
      const r = await applyMetadata(this.p.client, good, { dryRun: false, allowInconsistent: false, allowEmpty: true });
      if (r.inconsistent.length > 0) {
        throw new CliError('metadata-inconsistent', `the metadata is inconsistent on the dev database: ${r.inconsistent.length} object(s)`, 1);
      }
      this.lastGood = good;
      this.p.onEvent({ kind: 'metadata-applied', warnings: built.problems.warnings, changed: text !== this.lastAppliedText });
      this.lastAppliedText = text;
      return true;
    } catch (error) {
      this.p.onEvent({ kind: 'metadata-rejected', error: error instanceof Error ? error : new Error(String(error)), built });
      return false;
    }
  }

  private async seeds(): Promise<void> {
    try {
      const files = seedFiles(this.p.seedsDirectory);
      if (files.length === 0) return;
      await applySeeds(this.p.client, files, () => {});
      this.p.onEvent({ kind: 'seeds-applied', files: files.length });
    } catch (error) {
      this.p.onEvent({ kind: 'failed', step: 'seeds', error });
    }
  }

  private async tests(): Promise<void> {
    if (this.p.tests === false || !existsSync(this.p.testsDirectory) || !this.lastGood) return;
    try {
      const files = loadTestFiles(findTestFiles(this.p.projectDir, [this.p.testsDirectory]));
      if (files.length === 0) return;
      const run = await runTests({ sources: this.p.sources(this.lastGood), files, logger: silentLogger });
      this.p.onEvent({ kind: 'tests', run });
    } catch (error) {
      this.p.onEvent({ kind: 'failed', step: 'tests', error });
    }
  }
}
