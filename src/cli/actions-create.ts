import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CliError } from '../errors.js';
import { VERSION } from '../version.js';
import { engineClient, projectConfig } from './context.js';
import type { GlobalFlags } from './globals.js';
import type { Output } from './output.js';
import { PACKAGE_ROOT } from '../package-root.js';

/** `engine actions create <name>` (cli.md §5.10). */

export interface CreateFlags {
  sdl?: string;
  deriveFrom?: string;
  webhook?: string;
  kind?: string;
  apply: boolean;
  withCodegen?: boolean;
}

type Located = { code: string; message: string; file?: string; line?: number; column?: number; severity?: string };

function located(p: Located, extra: Record<string, unknown> = {}): CliError {
  const at = p.file ? { file: p.file, line: p.line ?? 1, column: p.column ?? 1 } : {};
  return Object.assign(new CliError(p.code, p.message, 1, at), { extra });
}

/** Reports every problem but the first (text mode) and fails with the first (with all of them in JSON mode). */
function problemsError(out: Output, problems: Located[]): CliError {
  const [first, ...rest] = problems;
  if (out.mode === 'text') for (const p of rest) out.logger.error(`${p.file ? `${p.file}:${p.line ?? 1}:${p.column ?? 1}: ` : ''}${p.message}`);
  return located(first ?? { code: 'definition-invalid', message: 'invalid definition' },
    out.mode === 'json' && rest.length > 0 ? { problems: problems.map(({ severity: _s, ...p }) => p) } : {});
}

const interactive = (out: Output): boolean =>
  !!process.stdin.isTTY && !!process.stderr.isTTY && !process.env['CI'] && out.mode === 'text';

/** The definition from the editor (§5.10 step 3); the temp file is kept by the caller after a failure. */
function fromEditor(name: string): { file: string; text: string; path: string } {
  const seed = readFileSync(join(PACKAGE_ROOT, 'templates', 'action.graphql'), 'utf8').replaceAll('{{name}}', name);
  const path = join(tmpdir(), `engine-action-${name}-${randomBytes(4).toString('hex')}.graphql`);
  writeFileSync(path, seed);
  const editor = process.env['VISUAL'] || process.env['EDITOR'] || (process.platform === 'win32' ? 'notepad' : 'vi');
  const r = spawnSync(`${editor} "${path}"`, { shell: true, stdio: 'inherit' });
  const status = r.status ?? 1;
  if (status !== 0 || r.error) {
    rmSync(path, { force: true });
    throw new CliError('editor-failed', `editor "${editor}" exited with status ${status}; no action was created`, 1);
  }
  const text = readFileSync(path, 'utf8');
  if (text.trim() === '' || text === seed) {
    rmSync(path, { force: true });
    throw new CliError('aborted', 'aborted: the action definition was empty or unchanged', 1);
  }
  return { file: path, text, path };
}

export async function createAction(g: GlobalFlags, out: Output, given: string | undefined, f: CreateFlags): Promise<void> {
  const { validActionName, currentActions, checkDefinition, appendSdl, defaultHandler, DefinitionProblems } = await import('../project/actions/create.js');
  // Issue 37 item 4: a terminal is asked for the name; any other run must give it (a usage error, as before).
  let name: string;
  if (given !== undefined) name = given;
  else if (interactive(out)) {
    const { textPrompt } = await import('./prompts.js');
    name = (await textPrompt('Action name (the mutation field)', {
      validate: (v) => validActionName(v.trim()) || `expected a GraphQL name (letters, digits and "_", not starting with a digit)`,
    })).trim();
  } else throw new CliError('missing-argument', 'missing required argument name', 64);
  if (!validActionName(name)) throw new CliError('invalid-name', `invalid action name "${name}": expected a GraphQL name`, 64);
  if (f.sdl !== undefined && f.deriveFrom !== undefined) throw new CliError('conflicting-flags', '--sdl and --derive-from cannot be used together', 64);
  if (f.kind !== undefined && f.kind !== 'synchronous' && f.kind !== 'asynchronous') {
    throw new CliError('invalid-flag-value', `invalid value "${f.kind}" for --kind: expected "synchronous" or "asynchronous"`, 64);
  }
  const config = await projectConfig(g, out, { project: true, version2: true });

  // Step 1: with --with-codegen the framework and output directory must resolve first (§5.11 step 1).
  let codegen: { manifest: import('../project/actions/codegen.js').Manifest; outputDir: string } | null = null;
  if (f.withCodegen) {
    const hint = "run 'engine actions use-codegen --framework <framework> --output-dir <dir>'";
    const { framework, outputDir } = config.actions.codegen;
    if (!framework) throw new CliError('codegen-not-configured', 'no codegen framework configured', 1, { hint });
    if (!outputDir) throw new CliError('codegen-not-configured', 'no codegen output directory configured', 1, { hint });
    const { availableFrameworks, loadFramework } = await import('../project/actions/codegen.js');
    const manifest = loadFramework(framework);
    if (!manifest) throw new CliError('codegen-unknown-framework', `unknown codegen framework "${framework}"; available: ${availableFrameworks().join(', ')}`, 1);
    codegen = { manifest, outputDir };
  }

  // Step 2: the current actions.
  const { requireMetadataDir, METADATA_FILES } = await import('../project/metadata-dir/build.js');
  const { shownPath } = await import('../project/config/environment.js');
  const { parseYaml } = await import('../project/yaml-source.js');
  const { Problems } = await import('../project/problems.js');
  const dir = config.metadataDirectory;
  requireMetadataDir(dir);
  const sdlPath = join(dir, METADATA_FILES.actionsGraphql[0]);
  const yamlPath = join(dir, METADATA_FILES.actionsYaml[0]);
  const { readProjectFile } = await import('../project/project-file.js');
  const readOrNull = (p: string) => readProjectFile(p) ?? null;
  const build = (sdlText: string | null, yamlText: string | null) => {
    const problems = new Problems();
    const yaml = yamlText !== null && yamlText.trim() !== '' ? parseYaml(shownPath(yamlPath), yamlText, problems) : null;
    const current = currentActions(sdlText !== null ? { file: shownPath(sdlPath), text: sdlText } : null, yaml);
    return { current, errors: [...problems.errors, ...current.problems.errors], warnings: current.problems.warnings };
  };
  const sdlBefore = readOrNull(sdlPath);
  const yamlBefore = readOrNull(yamlPath);
  const before = build(sdlBefore, yamlBefore);
  if (before.errors.length > 0) throw problemsError(out, before.errors);
  const existing = before.current.actions.get(name);
  if (existing) {
    throw new CliError('action-exists', `action "${name}" already exists (${existing.file}:${existing.line}:${existing.column})`, 1);
  }

  // Step 3: the definition's source.
  const client = await engineClient(config, out, g);
  const derive = async (operation: string) => {
    const { getIntrospectionQuery, schemaFromIntrospection, deriveAction } = await import('../project/actions/derive.js');
    const schema = schemaFromIntrospection(await client.introspect(getIntrospectionQuery()));
    const derived = deriveAction(name, operation, schema);
    for (const w of derived.warnings) out.warn(w.code, w.message);
    return { file: '<derived>', text: derived.sdl };
  };
  let source: { file: string; text: string };
  let editorFile: string | null = null;
  if (f.sdl !== undefined) {
    if (f.sdl === '-') source = { file: '<stdin>', text: readFileSync(0, 'utf8') };
    else {
      const p = resolve(f.sdl);
      const text = readProjectFile(p);
      if (text === undefined) throw new CliError('file-not-found', `file "${shownPath(p)}" not found`, 1);
      source = { file: shownPath(p), text };
    }
  } else if (f.deriveFrom !== undefined) {
    source = await derive(f.deriveFrom);
  } else if (interactive(out)) {
    // Issue 19 item 8: the three ways to give a definition, then whether to generate its handler.
    const p = await import('./prompts.js');
    const how = await p.choicePrompt('How do you want to define the action?', [
      { value: 'editor', name: 'Open the editor', description: `${process.env['VISUAL'] || process.env['EDITOR'] || 'vi'} with a template` },
      { value: 'paste', name: 'Paste SDL', description: 'type Mutation { … } and its types; end with two empty lines' },
      { value: 'derive', name: 'Derive from an existing mutation', description: "a mutation of the engine's GraphQL schema" },
    ] as const);
    if (how === 'editor') {
      const e = fromEditor(name);
      editorFile = e.path;
      source = { file: shownPath(e.file), text: e.text };
    } else if (how === 'paste') {
      const text = await p.pasteText(`Paste the SDL of action "${name}" (type Mutation { ${name}(…): … } and the types it uses):`);
      if (text === '') throw new CliError('aborted', 'aborted: the action definition was empty or unchanged', 1);
      source = { file: '<pasted>', text };
    } else {
      source = await derive(await p.textPrompt('The mutation to derive from (e.g. mutation ($name: String!) { insert_user_one(object: {name: $name}) { id } })'));
    }
    if (!codegen && await p.confirmPrompt('Generate handler code for this action?')) {
      const { availableFrameworks, loadFramework } = await import('../project/actions/codegen.js');
      const framework = await p.choicePrompt('Framework', availableFrameworks().map((n) => ({ value: n, name: n })));
      const outputDir = config.actions.codegen.outputDir ?? resolve(config.projectDir ?? '.', await p.textPrompt('Output directory', { default: 'handlers' }));
      const manifest = loadFramework(framework);
      if (manifest) codegen = { manifest, outputDir };
    }
  } else {
    throw new CliError('definition-required', "no action definition: pass --sdl FILE (or --sdl - to read stdin) or --derive-from '<operation>'", 64);
  }

  const files = [shownPath(sdlPath), shownPath(yamlPath)];
  const restoredSuffix = `; ${files[0]} and ${files[1]} were restored`;
  const { addToActionsYaml, FileSet } = await import('../project/actions/files.js');
  const written = new FileSet();
  const onSignal = () => written.restore();
  try {
    // Step 4: validation.
    let def;
    try {
      def = checkDefinition(name, source, before.current);
    } catch (e) {
      if (e instanceof DefinitionProblems) throw problemsError(out, e.problems);
      throw e;
    }
    for (const w of def.warnings) out.warn(w.code, w.file ? `${w.file}:${w.line}:${w.column}: ${w.message}` : w.message);

    // Step 5: handler and kind.
    const handler = f.webhook ?? defaultHandler(config.actions.handlerWebhookBaseurl, name);
    const { templateNames } = await import('../project/validate/core.js');
    const names = templateNames(handler);
    if (names === undefined || (names.length === 0 && !/^https?:\/\/[^\s/?#]+/i.test(handler))) {
      throw new CliError('url-invalid', `invalid handler "${handler}": expected an http(s) URL or a {{ENV_VAR}} template`, 1);
    }
    const kind = f.kind ?? config.actions.kind;

    // Step 6: both files, restored if the result does not build.
    const sdlAfter = appendSdl(sdlBefore ?? '', def.appended);
    const yamlAfter = addToActionsYaml(yamlBefore, { action: { name, kind, handler }, types: def.types });
    process.prependOnceListener('SIGINT', onSignal);
    process.prependOnceListener('SIGTERM', onSignal);
    written.write(sdlPath, sdlAfter);
    written.write(yamlPath, yamlAfter);
    const after = build(sdlAfter, yamlAfter);
    if (after.errors.length > 0) {
      written.restore();
      const e = problemsError(out, after.errors);
      e.message += restoredSuffix;
      throw e;
    }
    const built = after.current.merged;
    const action = built.actions.find((a) => a['name'] === name);
    if (!action) throw new CliError('internal-error', `internal error: action "${name}" missing from the build`, 1);

    // Step 7: one bulk of set_custom_types and create_action.
    if (f.apply) {
      try {
        await applyAction(client, name, action, built.custom_types, def.types);
      } catch (e) {
        written.restore();
        if (e instanceof CliError && e.location.file === undefined) await locateEngineRejection(client, e, [source, ...(sdlBefore !== null ? [{ file: shownPath(sdlPath), text: sdlBefore }] : [])], built.custom_types);
        if (e instanceof Error) e.message += restoredSuffix;
        throw e;
      }
    }
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    if (editorFile) rmSync(editorFile, { force: true });

    // Step 8: codegen.
    let codegenFiles: string[] | null = null;
    if (codegen) {
      try {
        const { renderCodegen, existingTargets, writeCodegenFiles } = await import('../project/actions/codegen.js');
        const rendered = renderCodegen(codegen.manifest, [action], built.custom_types ?? {}, codegen.outputDir, VERSION);
        const clash = existingTargets(rendered);
        if (clash.length > 0) throw new Error(`refusing to overwrite ${clash.length} existing file(s): ${clash.map((p) => shownPath(p)).join(', ')}`);
        writeCodegenFiles(codegen.outputDir, rendered);
        codegenFiles = rendered.map((r) => shownPath(r.path));
      } catch (e) {
        throw new CliError('codegen-failed', `action "${name}" was created, but code generation failed: ${e instanceof Error ? e.message : String(e)}`, 1);
      }
      if (out.mode === 'text') for (const p of codegenFiles) out.data(p);
    }
    out.logger.info(f.apply ? `Action "${name}" created (handler: ${handler}).`
      : `Action "${name}" written to metadata; run 'engine metadata apply' to apply it.`);
    out.success({ action: { name, type: 'mutation', kind, handler }, files, applied: f.apply, codegen: codegenFiles ? { files: codegenFiles } : null });
  } catch (e) {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    if (editorFile && e instanceof CliError && e.code !== 'codegen-failed' && e.location.hint === undefined) {
      e.location.hint = `your definition was kept in ${shownPath(editorFile)}; fix it and run: engine actions create ${name} --sdl ${shownPath(editorFile)}`;
    }
    throw e;
  }
}

/** An engine rejection naming an unknown type, moved to where the SDL names it, with a "did you mean" (issue 37 item 1). */
async function locateEngineRejection(client: import('../client/engine-client.js').EngineClient, e: CliError,
  sources: { file: string; text: string }[], customTypes: JsonObject | null): Promise<void> {
  const { locateRejection } = await import('../project/actions/rejection.js');
  const names = Object.values(customTypes ?? {}).flatMap((list) => (Array.isArray(list) ? list : []))
    .flatMap((t) => (t !== null && typeof t === 'object' && typeof (t as JsonObject)['name'] === 'string' ? [(t as JsonObject)['name'] as string] : []));
  const found = await locateRejection(client, e.message, sources, names);
  if (!found) return;
  const code = / \[[a-z-]+\]$/.exec(e.message);
  if (found.hint) e.message = code ? `${e.message.slice(0, code.index)}${found.hint}${code[0]}` : `${e.message}${found.hint}`;
  Object.assign(e.location, { file: found.position.file, line: found.position.line, column: found.position.column });
}

type JsonObject = import('../metadata/json.js').JsonObject;
const GROUPS = ['input_objects', 'objects', 'scalars', 'enums'] as const;

/** Without descriptions, for "the same definition" (§5.10 step 7). */
const bare = (v: unknown): string => JSON.stringify(v, (k, x: unknown) => (k === 'description' || k === 'relationships' ? undefined : x));

/** §5.10 step 7: the engine's custom types plus the new ones, then the action, in one transaction. */
async function applyAction(client: import('../client/engine-client.js').EngineClient, name: string, action: JsonObject,
  built: JsonObject | null, newTypes: { name: string; group: string }[]): Promise<void> {
  const { isObject } = await import('../metadata/json.js');
  const exported = (await client.exportMetadata()).metadata;
  const engineTypes = isObject(exported) && isObject(exported['custom_types']) ? exported['custom_types'] : {};
  const merged: Record<string, unknown[]> = {};
  for (const grp of GROUPS) merged[grp] = Array.isArray(engineTypes[grp]) ? [...(engineTypes[grp] as unknown[])] : [];
  for (const t of newTypes) {
    const mine = (Array.isArray(built?.[t.group]) ? (built[t.group] as JsonObject[]) : []).find((x) => x['name'] === t.name);
    if (!mine) continue;
    const theirs = GROUPS.flatMap((grp) => (merged[grp] as JsonObject[]).map((x) => ({ grp, x }))).find((p) => isObject(p.x) && p.x['name'] === t.name);
    if (theirs) {
      if (theirs.grp !== t.group || bare(theirs.x) !== bare(mine)) {
        throw new CliError('definition-invalid', `type "${t.name}" already exists on the engine with a different definition`, 1);
      }
      continue;
    }
    (merged[t.group] as unknown[]).push(mine);
  }
  const customTypes = Object.fromEntries(GROUPS.filter((grp) => (merged[grp] as unknown[]).length > 0).map((grp) => [grp, merged[grp]]));
  await client.bulk([
    { type: 'set_custom_types', args: customTypes },
    { type: 'create_action', args: { name, definition: action['definition'] } },
  ]);
}
