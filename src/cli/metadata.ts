import type { Command } from 'commander';
import { CliError } from '../errors.js';
import { ALLOW_UNKNOWN_KEYS, allowUnknownKeys, type CommandRunner } from './globals.js';
import { context } from './context.js';
import type { Output } from './output.js';
import type { ApplyRejectedError } from '../project/metadata-dir/apply.js';
import type { BuildResult } from '../project/metadata-dir/build.js';
import { formatProblem, sortProblems, type Problem } from '../project/problems.js';
import { lineReader, objectLines } from '../project/source-lines.js';

/** Problems on stderr, in the one format of validate (cli.md §5.5); warnings are also counted in JSON `warnings`. */
export function printProblems(out: Output, problems: Problem[]): void {
  for (const p of problems) out.problem(p.severity, p.code, formatProblem(p));
}

const UNKNOWN_KEY_HINT = 'correct the key; pass --allow-unknown-keys only for keys of a newer incumbent (they are left out)';

/** Builds the project metadata; its warnings are shown, its errors too and then the command fails. */
export async function buildOrFail(out: Output, dir: string, configVersion?: number, allowUnknown = false) {
  const { buildMetadata, layoutOf } = await import('../project/metadata-dir/build.js');
  const built = buildMetadata(dir, process.cwd(), configVersion === undefined ? undefined : layoutOf(configVersion), { allowUnknownKeys: allowUnknown });
  printProblems(out, built.problems.warnings);
  if (!built.document) {
    printProblems(out, built.problems.errors);
    throw invalid(built.problems.list);
  }
  return { ...built, document: built.document };
}

/** Fails a command whose project metadata has errors, after every problem was shown. */
function invalid(problems: Problem[]): CliError {
  const errors = problems.filter((p) => p.severity === 'error');
  const hint = errors.some((p) => p.code === 'metadata-unknown-key') ? { hint: UNKNOWN_KEY_HINT } : {};
  // JSON mode lists every problem beside the error (cli.md §3.4 `problems`); text mode already printed them.
  return Object.assign(new CliError('metadata-invalid', `${errors.length} error(s) found`, 1, hint), { extra: { problems } });
}

/** A rejected apply, mapped back to the project's files: each offending object with its own lines (§5.3 step 8). */
export function rejected(out: Output, e: ApplyRejectedError, built: BuildResult): number {
  const objects = e.objects.map((o) => ({ kind: o.kind, name: o.name, ...(o.position ?? {}), reason: o.reason }));
  if (out.mode === 'json') {
    const first = e.objects[0]?.position;
    out.json({ ok: false, error: { code: e.code, message: e.message, ...(first ?? {}), path: e.engineError.path }, objects });
    return 1;
  }
  if (e.objects.length === 0) {
    out.logger.error(`the engine rejected the metadata: ${e.engineError.error} [${e.engineError.code}]`);
    out.logger.info(`  at ${e.engineError.path}`);
    return 1;
  }
  const lines = lineReader((file) => [...built.sources.values()].find((s) => s.file === file)?.text);
  for (const p of rejectionProblems(e)) {
    out.problem('error', p.code, formatProblem(p));
    const fileLines = p.file ? lines(p.file) : undefined;
    if (p.file && p.line && fileLines !== undefined) for (const line of objectLines(fileLines, p.objectLine ?? p.line)) out.logger.info(`    ${line}`);
  }
  return 1;
}

/** The objects of a rejection as problems: `<kind> <name>: <engine message>` with the engine's code. */
function rejectionProblems(e: ApplyRejectedError): (Problem & { objectLine?: number })[] {
  if (e.objects.length === 0) {
    return [{ severity: 'error', code: e.engineError.code, message: `the engine rejected the metadata: ${e.engineError.error} (at ${e.engineError.path})` }];
  }
  return e.objects.map((o) => {
    const m = / \[([a-z-]+)\]$/.exec(o.reason);
    return {
      severity: 'error' as const, code: m?.[1] ?? e.engineError.code, message: `${o.kind} ${o.name}: ${m ? o.reason.slice(0, m.index) : o.reason}`,
      ...(o.position ?? {}), ...(o.objectLine ? { objectLine: o.objectLine } : {}),
    };
  });
}

export function registerMetadata(program: Command, run: CommandRunner): void {
  const md = program.command('metadata').description('manage the engine metadata kept in the project');

  const exp = md.command('export').description("write the engine's metadata into the metadata directory").option('--prune', 'remove files of empty keys');
  run(exp, async (g, out) => {
    const prune = !!exp.opts<{ prune?: boolean }>().prune;
    const mode = g.output ?? 'text';
    if (prune && mode !== 'text') throw new CliError('conflicting-flags', `--prune and --output ${mode} cannot be used together`, 64);
    const { config, client } = await context(g, out, { project: mode === 'text', version2: mode === 'text' });
    const { engineMetadata } = await import('../project/metadata-dir/apply.js');
    const { checkServerMetadata, toYaml, renderFiles, readExistingFiles, writeMetadataDir, recoverDirectory, existingDocument } = await import('../project/metadata-dir/export.js');
    const { document } = await out.spinning('Reading metadata from the engine…', async () => {
      const raw = await client.exportMetadata();
      checkServerMetadata(raw.metadata);
      return engineMetadata(client);
    });
    if (mode === 'json') return void out.json(document);
    if (mode === 'yaml') return void out.data(toYaml(document).trimEnd());
    const { shownPath } = await import('../project/config/environment.js');
    const dir = config.metadataDirectory;
    const restored = recoverDirectory(dir);
    if (restored) out.warn('restored', restored);
    const dropped = (n: number, file: string) =>
      out.warn('comments-dropped', `${shownPath(`${dir}/${file}`)}: ${n} comment line(s) were dropped because the objects they described no longer exist`);
    let report;
    // Only what changed since the files were written is rewritten (issue 29): the files' own document is the reference.
    const before = existingDocument(dir, config.version);
    if (config.version === 3) {
      const { exportV3, readExistingV3 } = await import('../project/metadata-dir/layout-v3/write.js');
      report = exportV3(dir, document, readExistingV3(dir), prune, dropped, before);
    } else report = writeMetadataDir(dir, renderFiles(document, readExistingFiles(dir), dropped, before), prune);
    const shown = shownPath(dir);
    for (const f of report.created) out.logger.info(`  created ${shown}/${f}`);
    for (const f of report.updated) out.logger.info(`  updated ${shown}/${f}`);
    for (const f of report.removed) out.logger.info(`  removed ${shown}/${f}`);
    const changed = report.created.length + report.updated.length + report.removed.length;
    out.logger.info(changed === 0 ? `Metadata in ${shown}/ is already up to date.` : `Metadata exported to ${shown}/ (${changed} changed, ${report.unchanged.length} unchanged).`);
    out.success({ directory: shown, created: report.created, updated: report.updated, removed: report.removed, unchanged: report.unchanged });
  });

  const apply = md.command('apply').description('apply the project metadata to the engine')
    .option('--dry-run', 'show the plan only').option('--exit-code', 'with --dry-run: exit 2 when the plan is not empty')
    .option('--allow-inconsistent', 'let the engine keep inconsistent objects').option('--allow-empty', 'allow removing every object')
    .option(...ALLOW_UNKNOWN_KEYS);
  run(apply, async (g, out) => {
    const f = apply.opts<{ dryRun?: boolean; exitCode?: boolean; allowInconsistent?: boolean; allowEmpty?: boolean }>();
    if (f.exitCode && !f.dryRun) throw new CliError('conflicting-flags', '--exit-code can only be used with --dry-run', 64);
    const { config, client } = await context(g, out, { project: true, version2: true });
    const built = await buildOrFail(out, config.metadataDirectory, config.version, allowUnknownKeys(apply));
    const { applyMetadata } = await import('../project/metadata-dir/apply.js');
    const { renderDiffText, renderDiffJson } = await import('../metadata/diff.js');
    const { ApplyRejectedError } = await import('../project/metadata-dir/apply.js');
    let r;
    try {
      // The apply's one replace_metadata runs under the spinner of cli.md §5.3 step 6.
      const replace = client.replaceMetadata.bind(client);
      client.replaceMetadata = (...args) => out.spinning('Applying metadata…', () => replace(...args));
      r = await applyMetadata(client, built, { dryRun: !!f.dryRun, allowInconsistent: !!f.allowInconsistent, allowEmpty: !!f.allowEmpty });
    } catch (e) {
      if (!(e instanceof ApplyRejectedError)) throw e;
      return rejected(out, e, built);
    }
    const origin = (kind: string, name: string) => built.origins.get(`${kind}:${name}`);
    const fields = {
      dry_run: !!f.dryRun, ...(f.dryRun ? { checked: r.checked } : {}), applied: r.applied, resource_version: r.resourceVersion,
      changes: out.mode === 'json' ? renderDiffJson(r.changes, origin) : [], summary: r.summary, access_widened: r.widened,
      inconsistent_objects: r.inconsistent.map((o) => ({ kind: o.kind, name: o.name, reason: o.reason })),
    };
    const { renderWidenedText } = await import('../metadata/access.js');
    if (f.dryRun) {
      if (out.mode === 'text') out.diffData([renderDiffText(r.changes), ...renderWidenedText(r.widened)].join('\n'));
      for (const o of r.inconsistent) out.warn('metadata-inconsistent', `inconsistent ${o.kind} ${o.name}: ${o.reason}`);
      if (r.checked) out.logger.info(`The engine checked the plan: 'engine metadata apply' will apply it${r.inconsistent.length > 0 ? `, leaving ${r.inconsistent.length} object(s) inconsistent` : ''}.`);
      out.logger.info('Dry run: nothing was applied.');
      out.success(fields);
      return f.exitCode && r.changes.length > 0 ? 2 : 0;
    }
    if (!r.applied) {
      out.logger.info('Metadata is up to date; nothing to apply.');
      out.success(fields);
      return 0;
    }
    out.logger.info(`Metadata applied: ${r.summary.added} added, ${r.summary.removed} removed, ${r.summary.changed} changed.`);
    for (const line of renderWidenedText(r.widened).slice(1)) out.logger.info(line);
    for (const o of r.inconsistent) out.warn('metadata-inconsistent', `inconsistent ${o.kind} ${o.name}: ${o.reason}`);
    if (r.inconsistent.length > 0) out.warn('metadata-inconsistent', `metadata was applied, but ${r.inconsistent.length} object(s) are inconsistent; run 'engine metadata inconsistency list'`);
    out.success(fields);
    return 0;
  });

  const diff = md.command('diff').description('compare engine and project metadata (or two directories)')
    .option('--from <dir>', 'a metadata directory instead of the engine').option('--to <dir>', 'a metadata directory instead of the project')
    .option('--exit-code', 'exit 2 when anything differs').option(...ALLOW_UNKNOWN_KEYS);
  run(diff, async (g, out) => {
    const f = diff.opts<{ from?: string; to?: string; exitCode?: boolean }>();
    const { diffMetadata, renderDiffText, renderDiffJson, summarize } = await import('../metadata/diff.js');
    const { resolve } = await import('node:path');
    const needsEngine = !(f.from && f.to);
    const ctx = needsEngine || !f.to ? await context(g, out, { project: !(f.from && f.to), version2: true }) : null;
    const side = async (dir: string | undefined, fallback: 'engine' | 'project') => {
      if (dir || fallback === 'project') {
        const path = dir ? resolve(dir) : (ctx?.config.metadataDirectory as string);
        const built = await buildOrFail(out, path, dir ? undefined : ctx?.config.version, allowUnknownKeys(diff));
        const { shownPath } = await import('../project/config/environment.js');
        return { doc: built.document, label: `${shownPath(path)}/`, json: { type: 'directory', path: shownPath(path) }, origins: built.origins };
      }
      const { engineMetadata } = await import('../project/metadata-dir/apply.js');
      const endpoint = ctx?.config.endpoint ?? '';
      const read = await out.spinning('Reading metadata from the engine…', () => engineMetadata(ctx!.client));
      return { doc: read.document, label: `engine (${endpoint})`, json: { type: 'engine', endpoint }, origins: null };
    };
    const from = await side(f.from, 'engine');
    const to = await side(f.to, 'project');
    out.logger.info(`Comparing ${from.label} → ${to.label}`);
    const changes = diffMetadata(from.doc, to.doc);
    const origin = (kind: string, name: string, change: string) => (change === 'removed' ? from.origins : to.origins)?.get(`${kind}:${name}`);
    if (out.mode === 'text') out.diffData(renderDiffText(changes));
    // Locating objects costs a full parse of the files: only JSON output shows locations.
    if (out.mode === 'json') out.success({ from: from.json, to: to.json, changes: renderDiffJson(changes, origin), summary: summarize(changes) });
    return f.exitCode && changes.length > 0 ? 2 : 0;
  });

  const validate = md.command('validate').description('check the project metadata offline (with --server: also on the engine)')
    .option('--server', "also let the engine check the metadata against its database (a dry-run replace; nothing changes)")
    .option(...ALLOW_UNKNOWN_KEYS);
  run(validate, async (g, out) => {
    const server = !!validate.opts<{ server?: boolean }>().server;
    const { loadConfig } = await import('../project/config/config.js');
    // Config warnings are problems of validate (listed on stdout), not printed on their own as other commands do.
    const config = loadConfig({
      project: g.project, envfile: g.envfile, requireProject: true, requireVersion2: true, offline: !server,
      ...(server ? { endpoint: g.endpoint, adminSecret: g.adminSecret, timeout: g.timeout, logLevel: g.logLevel } : {}),
    });
    const { buildMetadata, layoutOf } = await import('../project/metadata-dir/build.js');
    const built = buildMetadata(config.metadataDirectory, process.cwd(), layoutOf(config.version), { allowUnknownKeys: allowUnknownKeys(validate) });
    const problems: Problem[] = [...(config.warnings.map((w) => ({ ...w, severity: 'warning' as const }))), ...built.problems.list];
    // The engine is asked only about metadata that builds: offline errors come first and are cheaper to fix.
    if (server && built.document) {
      const { checkOnEngine, ApplyRejectedError } = await import('../project/metadata-dir/apply.js');
      const { engineClient } = await import('./context.js');
      const client = await engineClient(config, out, g);
      try {
        const inconsistent = await out.spinning('Checking the metadata on the engine…', () => checkOnEngine(client, built, null, false));
        for (const o of inconsistent) problems.push({ severity: 'error', code: 'metadata-inconsistent', message: `${o.kind} ${o.name}: ${o.reason}` });
      } catch (e) {
        if (!(e instanceof ApplyRejectedError)) throw e;
        problems.push(...rejectionProblems(e).map(({ objectLine: _line, ...p }) => p));
      }
    }
    const sorted = sortProblems(problems);
    const errors = sorted.filter((p) => p.severity === 'error').length;
    const warnings = sorted.length - errors;
    const hint = sorted.some((p) => p.severity === 'error' && p.code === 'metadata-unknown-key') ? UNKNOWN_KEY_HINT : undefined;
    if (out.mode === 'text') {
      for (const p of sorted) out.problemData(formatProblem(p));
      out.logger.info(sorted.length === 0 ? `No problems found${server ? ' (checked on the engine too)' : ''}.` : `Found ${errors} error(s) and ${warnings} warning(s).`);
      if (hint) out.logger.info(`hint: ${hint}`);
      return errors > 0 ? 1 : 0;
    }
    const first = sorted.find((p) => p.severity === 'error');
    out.json({
      ok: errors === 0, problems: sorted, summary: { errors, warnings },
      ...(first ? { error: { code: 'metadata-invalid', message: `${errors} error(s) found`, file: first.file, line: first.line, column: first.column, ...(hint ? { hint } : {}) } } : {}),
    });
    return errors > 0 ? 1 : 0;
  });

  const build = md.command('build').description('print the metadata built from the project').option(...ALLOW_UNKNOWN_KEYS);
  run(build, async (g, out) => {
    const { loadConfig } = await import('../project/config/config.js');
    const config = loadConfig({ project: g.project, envfile: g.envfile, requireProject: true, requireVersion2: true, offline: true });
    const built = await buildOrFail(out, config.metadataDirectory, config.version, allowUnknownKeys(build));
    if (g.output === 'yaml') {
      const { toYaml } = await import('../project/metadata-dir/export.js');
      return void out.data(toYaml(built.document).trimEnd());
    }
    out.json(built.document);
  });

  registerEngineOps(md, run);
}

/** Asks on stderr, exactly as written (cli.md §5.7); end of input or Ctrl-C is an empty answer. */
async function ask(prompt: string): Promise<string> {
  const { createInterface } = await import('node:readline');
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  return new Promise<string>((resolve) => {
    let answer = '';
    rl.on('SIGINT', () => {
      process.stderr.write('\n');
      rl.close();
    });
    rl.on('close', () => resolve(answer));
    rl.question(prompt, (a) => {
      answer = a;
      rl.close();
    });
  });
}

function registerEngineOps(md: Command, run: CommandRunner): void {
  const clear = md.command('clear').description('remove all metadata from the engine').option('-y, --yes', 'do not ask for confirmation');
  run(clear, async (g, out) => {
    const { config, client } = await context(g, out, { project: false });
    if (!clear.opts<{ yes?: boolean }>().yes) {
      if (!out.interactive) throw new CliError('confirmation-required', 'refusing to clear metadata without confirmation; pass --yes', 64);
      const answer = await ask(`This removes all metadata from the engine at ${config.endpoint}. Continue? [y/N] `);
      if (!/^(y|yes)$/i.test(answer.trim())) throw new CliError('aborted', 'Aborted; nothing was changed.', 1);
    }
    await client.clearMetadata();
    out.logger.info('Metadata cleared.');
    out.success({});
  });

  const reload = md.command('reload').description('reload the metadata against the database');
  run(reload, async (g, out) => {
    const { client } = await context(g, out, { project: false });
    const { showInconsistency } = await import('../project/validate/inconsistency.js');
    await client.reloadMetadata();
    const report = await client.getInconsistentMetadata();
    const list = report.inconsistent_objects.map(showInconsistency);
    out.logger.info('Metadata reloaded.');
    if (list.length === 0) out.logger.info('Metadata is consistent.');
    else out.warn('metadata-inconsistent', `metadata is inconsistent: ${list.length} object(s); run 'engine metadata inconsistency list'`);
    out.success({ is_consistent: list.length === 0, inconsistent_objects: list });
  });

  const ic = md.command('inconsistency').aliases(['inconsistencies', 'ic']).description('list, check or drop inconsistent objects');
  const list = ic.command('list').alias('ls').description('list inconsistent objects');
  run(list, async (g, out) => {
    const { client } = await context(g, out, { project: false });
    const { showInconsistency, inconsistencyTable } = await import('../project/validate/inconsistency.js');
    const objects = (await client.getInconsistentMetadata()).inconsistent_objects.map(showInconsistency);
    if (objects.length === 0) out.logger.info('Metadata is consistent.');
    else if (out.mode === 'text') out.data(inconsistencyTable(objects));
    out.success({ is_consistent: objects.length === 0, inconsistent_objects: objects });
  });
  const status = ic.command('status').description('exit 1 when the metadata is inconsistent');
  run(status, async (g, out) => {
    const { client } = await context(g, out, { project: false });
    const { showInconsistency } = await import('../project/validate/inconsistency.js');
    const objects = (await client.getInconsistentMetadata()).inconsistent_objects.map(showInconsistency);
    if (objects.length > 0) {
      throw Object.assign(new CliError('metadata-inconsistent', `metadata is inconsistent: ${objects.length} object(s)`, 1, {
        hint: "run 'engine metadata inconsistency list' to see them",
      }), { extra: { inconsistent_objects: objects } });
    }
    out.logger.info('Metadata is consistent.');
    out.success({ is_consistent: true, inconsistent_objects: [] });
  });
  const drop = ic.command('drop').description('drop every inconsistent object');
  run(drop, async (g, out) => {
    const { client } = await context(g, out, { project: false });
    const { showInconsistency } = await import('../project/validate/inconsistency.js');
    const objects = (await client.getInconsistentMetadata()).inconsistent_objects.map(showInconsistency);
    if (objects.length === 0) {
      out.logger.info('Metadata is consistent; nothing to drop.');
      return void out.success({ dropped: [] });
    }
    await client.dropInconsistentMetadata();
    out.logger.info(`Dropped ${objects.length} inconsistent object(s).`);
    out.success({ dropped: objects });
  });
}
