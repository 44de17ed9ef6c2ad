import { performance } from 'node:perf_hooks';
import type { EngineClient } from '../../client/engine-client.js';
import type { Logger } from '../../logger.js';
import { coverage, type Coverage } from './coverage.js';
import { startEphemeralEngine, type ProjectSources } from './ephemeral.js';
import type { TestFile } from './format.js';
import { runCases, summarise, type CaseResult, type Summary } from './runner.js';
import { takeSnapshot } from './snapshot.js';

export { findTestFiles, loadTestFiles } from './discover.js';
export { startEphemeralEngine, type EphemeralEngine, type ProjectSources } from './ephemeral.js';
export { coverage, renderCoverage, type Coverage } from './coverage.js';
export { caseLine, failureDetails, junitReport, summaryLine } from './reporters.js';
export { resultJson, type CaseResult, type Summary } from './runner.js';
export { metadataRoles, roleFileName, roleSchemas, roleSdl } from './role-schema.js';

export interface TestRunOptions {
  sources: ProjectSources;
  files: TestFile[];
  /** A running engine instead of an ephemeral one; its cases may not write unless allowWrites. */
  endpoint?: { url: string; adminSecret?: string; client: EngineClient };
  allowWrites?: boolean;
  logger: Logger;
  onResult?: (r: CaseResult) => void;
}

export interface TestRun {
  results: CaseResult[];
  summary: Summary;
  coverage: Coverage;
  /** How long the ephemeral engine took to be ready (0 with an endpoint). */
  startMs: number;
}

/** `engine test` without the terminal: runs every case, on an ephemeral engine unless an endpoint is given. */
export async function runTests(opts: TestRunOptions): Promise<TestRun> {
  const started = performance.now();
  const cases = opts.files.flatMap((f) => f.cases);
  let results: CaseResult[];
  let startMs = 0;
  if (opts.endpoint) {
    const { url, adminSecret, client } = opts.endpoint;
    const sql = async (script: string) => void (await client.runSql(script));
    results = await runCases({ url, sql, writes: opts.allowWrites ? 'allow' : 'deny', ...(adminSecret ? { adminSecret } : {}) }, opts.files, opts.onResult);
  } else {
    opts.logger.info('Starting an ephemeral engine: migrations, metadata, seeds…');
    const engine = await startEphemeralEngine({ ...opts.sources, recordCalls: true });
    try {
      await takeSnapshot(engine.sql);
      startMs = performance.now() - started;
      opts.logger.debug(`engine test: engine ready after ${Math.round(startMs)} ms`);
      const observe = engine.calls ? { rows: engine.rows, calls: engine.calls } : undefined;
      results = await runCases({ url: engine.url, adminSecret: engine.adminSecret, sql: engine.sql, writes: 'restore', ...(observe ? { observe } : {}) }, opts.files, opts.onResult);
    } finally {
      await engine.close();
    }
  }
  return { results, summary: summarise(results, performance.now() - started), coverage: coverage(opts.sources.built.document, cases, results), startMs };
}
