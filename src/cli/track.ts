import type { Command } from 'commander';
import { ALLOW_UNKNOWN_KEYS, allowUnknownKeys, type CommandRunner } from './globals.js';
import { context } from './context.js';
import { buildOrFail, rejected } from './metadata.js';

/** `metadata track [name...] [--schema S …] [--all]` (issue 19 item 4); the naming rules are src/project/metadata-dir/track.ts's. */
export function registerTrack(md: Command, run: CommandRunner): void {
  const track = md.command('track').argument('[names...]', 'tables, views or functions to track (schema.name, or name in public)')
    .description('track tables, views and functions with the relationships their foreign keys imply, then apply')
    .option('--schema <schema>', 'schema to look in (repeatable; default public)', (v: string, p: string[]) => [...p, v], [] as string[])
    .option('--all', 'every table, view and trackable function of the schemas')
    .option('--dry-run', 'show what would be tracked; change nothing').option(...ALLOW_UNKNOWN_KEYS);
  run(track, async (g, out) => {
    const f = track.opts<{ schema: string[]; all?: boolean; dryRun?: boolean }>();
    const names = track.args as string[];
    const { missingFlag } = await import('./prompts.js');
    if (!f.all && names.length === 0) throw missingFlag('--all', 'or name the tables, views and functions to track');
    const { config, client } = await context(g, out, { project: true, version2: true });
    const built = await buildOrFail(out, config.metadataDirectory, config.version, allowUnknownKeys(track));
    const { readCatalog } = await import('../project/metadata-dir/track-catalog.js');
    const { planTracking } = await import('../project/metadata-dir/track.js');
    const { canonicalDocument } = await import('../metadata/document.js');
    const catalog = await out.spinning('Reading the database catalog…', () => readCatalog(client));
    const plan = planTracking(built.document, catalog, { schemas: f.schema, all: !!f.all, names });
    for (const s of plan.skipped) out.warn('function-not-trackable', `function ${s.name} was not tracked: ${s.reason}`);
    for (const r of plan.relationships) {
      if (r.wanted) out.warn('relationship-renamed', `${r.type} relationship ${r.table}.${r.name} (foreign key ${r.constraint}): "${r.wanted}" is already used on ${r.table} or by another foreign key`);
    }
    const report = {
      tables: plan.tables, functions: plan.functions,
      relationships: plan.relationships.map((r) => ({ table: r.table, name: r.name, type: r.type, constraint: r.constraint, ...(r.wanted ? { wanted: r.wanted } : {}) })),
    };
    if (out.mode === 'text') {
      const lines = [...plan.tables.map((t) => `+ table ${t}`), ...plan.functions.map((fn) => `+ function ${fn}`),
        ...plan.relationships.map((r) => `+ ${r.type}_relationship ${r.table}.${r.name}`)];
      if (lines.length > 0) out.data(lines.join('\n'));
    }
    const total = plan.tables.length + plan.functions.length + plan.relationships.length;
    const summary = `${plan.tables.length} table(s) and view(s), ${plan.functions.length} function(s), ${plan.relationships.length} relationship(s)`;
    if (total === 0) {
      out.logger.info('Nothing to track.');
      out.success({ dry_run: !!f.dryRun, applied: false, ...report });
      return 0;
    }
    if (f.dryRun) {
      out.logger.info(`Dry run: would track ${summary}; nothing was changed.`);
      out.success({ dry_run: true, applied: false, ...report });
      return 0;
    }
    const document = canonicalDocument(plan.document);
    const { applyMetadata, ApplyRejectedError } = await import('../project/metadata-dir/apply.js');
    try {
      await out.spinning('Applying metadata…', () => applyMetadata(client, { ...built, document }, { dryRun: false, allowInconsistent: false, allowEmpty: false }));
    } catch (e) {
      if (e instanceof ApplyRejectedError && out.mode === 'text') return rejected(out, e, { ...built, document });
      throw e;
    }
    // Files are written only once the engine took the metadata: a refused track leaves the project as it was.
    const { renderFiles, readExistingFiles, writeMetadataDir } = await import('../project/metadata-dir/export.js');
    const { shownPath } = await import('../project/config/environment.js');
    const dir = config.metadataDirectory;
    const dropped = (n: number, file: string) =>
      out.warn('comments-dropped', `${shownPath(`${dir}/${file}`)}: ${n} comment line(s) were dropped because the objects they described no longer exist`);
    let written;
    if (config.version === 3) {
      const { exportV3, readExistingV3 } = await import('../project/metadata-dir/layout-v3/write.js');
      written = exportV3(dir, document, readExistingV3(dir), false, dropped);
    } else written = writeMetadataDir(dir, renderFiles(document, readExistingFiles(dir), dropped), false);
    for (const file of [...written.created, ...written.updated]) out.logger.info(`  updated ${shownPath(dir)}/${file}`);
    out.logger.info(`Tracked ${summary}; applied and written to ${shownPath(dir)}/.`);
    out.success({ dry_run: false, applied: true, ...report });
    return 0;
  });
}
