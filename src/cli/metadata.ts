import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { CliError } from '../errors.js';
import type { CommandRunner } from './globals.js';
import { context } from './context.js';
import type { Output } from './output.js';

function printProblems(out: Output, problems: { severity: string; code: string; message: string; file?: string; line?: number; column?: number }[]): void {
  for (const p of problems) {
    const where = p.file ? `${p.file}:${p.line ?? 1}:${p.column ?? 1}: ` : '';
    if (p.severity === 'error') out.logger.error(`${where}${p.message}`);
    else out.warn(p.code, `${where}${p.message}`);
  }
}

/** Builds the project metadata; its warnings are shown, its errors too and then the command fails. */
export async function buildOrFail(out: Output, dir: string, configVersion?: number) {
  const { buildMetadata, layoutOf } = await import('../project/metadata-dir.js');
  const built = buildMetadata(dir, process.cwd(), configVersion === undefined ? undefined : layoutOf(configVersion));
  printProblems(out, built.problems.warnings);
  if (!built.document) {
    printProblems(out, built.problems.errors);
    throw invalid(built.problems.list);
  }
  return { ...built, document: built.document };
}

/** Fails a command whose project metadata has errors, after every problem was shown. */
function invalid(problems: { severity: string; file?: string; line?: number; column?: number }[]): CliError {
  const errors = problems.filter((p) => p.severity === 'error');
  // JSON mode lists every problem beside the error (cli.md §3.4 `problems`); text mode already printed them.
  return Object.assign(new CliError('metadata-invalid', `${errors.length} error(s) found`, 1), { extra: { problems } });
}

/** A rejected apply, mapped back to the project's files: each offending object with its own lines (§5.3 step 8). */
export function rejected(out: Output, e: import('../project/apply.js').ApplyRejectedError, built: import('../project/metadata-dir.js').BuildResult): number {
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
  // Each file split into lines once: an engine that rejects thousands of objects names them all.
  const linesOf = new Map<string, string[] | undefined>();
  const fileLines = (file: string): string[] | undefined => {
    if (!linesOf.has(file)) {
      const text = [...built.sources.values()].find((s) => s.file === file)?.text ?? readText(file);
      linesOf.set(file, text?.split(/\r?\n/));
    }
    return linesOf.get(file);
  };
  for (const o of e.objects) {
    const p = o.position;
    out.logger.error(`${p ? `${p.file}:${p.line}:${p.column}: ` : ''}${o.kind} ${o.name}: ${o.reason}`);
    const lines = p ? fileLines(p.file) : undefined;
    if (p && lines !== undefined) for (const line of objectLines(lines, p.line)) out.logger.info(`    ${line}`);
  }
  return 1;
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** The lines of the object starting at `line` (of a file's `lines`): it and the following lines indented deeper (at most 20). */
export function objectLines(lines: string[], line: number): string[] {
  const first = lines[line - 1] ?? '';
  const indent = first.length - first.trimStart().length;
  const out = [first];
  for (let i = line; i < lines.length; i++) {
    const l = lines[i] as string;
    if (l.trim() !== '' && l.length - l.trimStart().length <= indent) break;
    out.push(l);
  }
  while (out.length > 1 && (out[out.length - 1] as string).trim() === '') out.pop();
  return out.length > 20 ? [...out.slice(0, 20), `… (${out.length - 20} more lines)`] : out;
}

export function registerMetadata(program: Command, run: CommandRunner): void {
  const md = program.command('metadata').description('manage the engine metadata kept in the project');

  const exp = md.command('export').description("write the engine's metadata into the metadata directory").option('--prune', 'remove files of empty keys');
  run(exp, async (g, out) => {
    const prune = !!exp.opts<{ prune?: boolean }>().prune;
    const mode = g.output ?? 'text';
    if (prune && mode !== 'text') throw new CliError('conflicting-flags', `--prune and --output ${mode} cannot be used together`, 64);
    const { config, client } = await context(g, out, { project: mode === 'text', version2: mode === 'text' });
    const { engineMetadata } = await import('../project/apply.js');
    const { checkServerMetadata, toYaml, renderFiles, readExistingFiles, writeMetadataDir, recoverDirectory } = await import('../project/metadata-export.js');
    const { document } = await out.spinning('Reading metadata from the engine…', async () => {
      const raw = await client.exportMetadata();
      checkServerMetadata(raw.metadata);
      return engineMetadata(client);
    });
    if (mode === 'json') return void out.json(document);
    if (mode === 'yaml') return void out.data(toYaml(document).trimEnd());
    const { shownPath } = await import('../project/environment.js');
    const dir = config.metadataDirectory;
    const restored = recoverDirectory(dir);
    if (restored) out.warn('restored', restored);
    const dropped = (n: number, file: string) =>
      out.warn('comments-dropped', `${shownPath(`${dir}/${file}`)}: ${n} comment line(s) were dropped because the objects they described no longer exist`);
    let report;
    if (config.version === 3) {
      const { exportV3, readExistingV3 } = await import('../project/layout-v3/write.js');
      report = exportV3(dir, document, readExistingV3(dir), prune, dropped);
    } else report = writeMetadataDir(dir, renderFiles(document, readExistingFiles(dir), dropped), prune);
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
    .option('--allow-inconsistent', 'let the engine keep inconsistent objects').option('--allow-empty', 'allow removing every object');
  run(apply, async (g, out) => {
    const f = apply.opts<{ dryRun?: boolean; exitCode?: boolean; allowInconsistent?: boolean; allowEmpty?: boolean }>();
    if (f.exitCode && !f.dryRun) throw new CliError('conflicting-flags', '--exit-code can only be used with --dry-run', 64);
    const { config, client } = await context(g, out, { project: true, version2: true });
    const built = await buildOrFail(out, config.metadataDirectory, config.version);
    const { applyMetadata } = await import('../project/apply.js');
    const { renderDiffText, renderDiffJson } = await import('../metadata/diff.js');
    const { ApplyRejectedError } = await import('../project/apply.js');
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
    const fields = { dry_run: !!f.dryRun, applied: r.applied, resource_version: r.resourceVersion, changes: out.mode === 'json' ? renderDiffJson(r.changes, origin) : [], summary: r.summary, inconsistent_objects: r.inconsistent.map((o) => ({ kind: o.kind, name: o.name, reason: o.reason })) };
    if (f.dryRun) {
      if (out.mode === 'text') out.data(renderDiffText(r.changes));
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
    for (const o of r.inconsistent) out.warn('metadata-inconsistent', `inconsistent ${o.kind} ${o.name}: ${o.reason}`);
    if (r.inconsistent.length > 0) out.warn('metadata-inconsistent', `metadata was applied, but ${r.inconsistent.length} object(s) are inconsistent; run 'engine metadata inconsistency list'`);
    out.success(fields);
    return 0;
  });

  const diff = md.command('diff').description('compare engine and project metadata (or two directories)')
    .option('--from <dir>', 'a metadata directory instead of the engine').option('--to <dir>', 'a metadata directory instead of the project')
    .option('--exit-code', 'exit 2 when anything differs');
  run(diff, async (g, out) => {
    const f = diff.opts<{ from?: string; to?: string; exitCode?: boolean }>();
    const { diffMetadata, renderDiffText, renderDiffJson, summarize } = await import('../metadata/diff.js');
    const { resolve } = await import('node:path');
    const needsEngine = !(f.from && f.to);
    const ctx = needsEngine || !f.to ? await context(g, out, { project: !(f.from && f.to), version2: true }) : null;
    const side = async (dir: string | undefined, fallback: 'engine' | 'project') => {
      if (dir || fallback === 'project') {
        const path = dir ? resolve(dir) : (ctx?.config.metadataDirectory as string);
        const built = await buildOrFail(out, path, dir ? undefined : ctx?.config.version);
        const { shownPath } = await import('../project/environment.js');
        return { doc: built.document, label: `${shownPath(path)}/`, json: { type: 'directory', path: shownPath(path) }, origins: built.origins };
      }
      const { engineMetadata } = await import('../project/apply.js');
      const endpoint = ctx?.config.endpoint ?? '';
      const read = await out.spinning('Reading metadata from the engine…', () => engineMetadata(ctx!.client));
      return { doc: read.document, label: `engine (${endpoint})`, json: { type: 'engine', endpoint }, origins: null };
    };
    const from = await side(f.from, 'engine');
    const to = await side(f.to, 'project');
    out.logger.info(`Comparing ${from.label} → ${to.label}`);
    const changes = diffMetadata(from.doc, to.doc);
    const origin = (kind: string, name: string, change: string) => (change === 'removed' ? from.origins : to.origins)?.get(`${kind}:${name}`);
    if (out.mode === 'text') out.data(renderDiffText(changes));
    // Locating objects costs a full parse of the files: only JSON output shows locations.
    if (out.mode === 'json') out.success({ from: from.json, to: to.json, changes: renderDiffJson(changes, origin), summary: summarize(changes) });
    return f.exitCode && changes.length > 0 ? 2 : 0;
  });

  const validate = md.command('validate').description('check the project metadata offline');
  run(validate, async (g, out) => {
    const { loadConfig } = await import('../project/config.js');
    const config = loadConfig({ project: g.project, envfile: g.envfile, requireProject: true, requireVersion2: true, offline: true });
    const { buildMetadata, layoutOf } = await import('../project/metadata-dir.js');
    const built = buildMetadata(config.metadataDirectory, process.cwd(), layoutOf(config.version));
    const problems = [...config.warnings.map((w) => ({ ...w, severity: 'warning' as const })), ...built.problems.sorted()];
    const errors = problems.filter((p) => p.severity === 'error').length;
    const warnings = problems.length - errors;
    if (out.mode === 'text') {
      for (const p of problems) out.data(`${p.file ?? ''}:${p.line ?? 1}:${p.column ?? 1}: ${p.severity}: ${p.message} [${p.code}]`);
      out.logger.info(problems.length === 0 ? 'No problems found.' : `Found ${errors} error(s) and ${warnings} warning(s).`);
      return errors > 0 ? 1 : 0;
    }
    const first = problems.find((p) => p.severity === 'error');
    out.json({
      ok: errors === 0, problems, summary: { errors, warnings },
      ...(first ? { error: { code: 'metadata-invalid', message: `${errors} error(s) found`, file: first.file, line: first.line, column: first.column } } : {}),
    });
    return errors > 0 ? 1 : 0;
  });

  const build = md.command('build').description('print the metadata built from the project');
  run(build, async (g, out) => {
    const { loadConfig } = await import('../project/config.js');
    const config = loadConfig({ project: g.project, envfile: g.envfile, requireProject: true, requireVersion2: true, offline: true });
    const built = await buildOrFail(out, config.metadataDirectory, config.version);
    if (g.output === 'yaml') {
      const { toYaml } = await import('../project/metadata-export.js');
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
    const { showInconsistency } = await import('../project/inconsistency.js');
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
    const { showInconsistency, inconsistencyTable } = await import('../project/inconsistency.js');
    const objects = (await client.getInconsistentMetadata()).inconsistent_objects.map(showInconsistency);
    if (objects.length === 0) out.logger.info('Metadata is consistent.');
    else if (out.mode === 'text') out.data(inconsistencyTable(objects));
    out.success({ is_consistent: objects.length === 0, inconsistent_objects: objects });
  });
  const status = ic.command('status').description('exit 1 when the metadata is inconsistent');
  run(status, async (g, out) => {
    const { client } = await context(g, out, { project: false });
    const { showInconsistency } = await import('../project/inconsistency.js');
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
    const { showInconsistency } = await import('../project/inconsistency.js');
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
