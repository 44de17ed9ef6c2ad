import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { shownPath } from '../../config/environment.js';
import type { Position, Problems } from '../../problems.js';
import { readProjectFile } from '../../project-file.js';
import { parseYaml, positionAt, type YamlSource } from '../../yaml-source.js';

/**
 * `!include` of the config version 3 layout (the incumbent's): a string `"!include <path>"` anywhere in a YAML file
 * stands for the value of the file it names, relative to the including file. The files stay separate YamlSources, so
 * every position is that of the file a value is written in; the assembled value is exposed as a YamlSource whose
 * `through` maps a path to its file (yaml-source.ts).
 */

const INCLUDE = /^!include\s+(\S(?:.*\S)?)\s*$/;

type Path = (string | number)[];

/** The target of an include string, or undefined when the string is no include. */
export function includeTarget(v: unknown): string | undefined {
  return typeof v === 'string' ? INCLUDE.exec(v)?.[1] : undefined;
}

/** One file read with its includes: the value with every include replaced, and the included files by include point. */
export interface IncludeTree {
  /** Absolute. */
  path: string;
  src: YamlSource;
  value: unknown;
  /** `JSON.stringify(path)` of an include point in `src.value` → the included file. */
  includes: Map<string, IncludeTree>;
}

export interface IncludeContext {
  /** Includes may not leave it. */
  metadataDir: string;
  cwd: string;
  problems: Problems;
  /** Every file read (absolute paths): the ones left unread are reported as ignored. */
  read: Set<string>;
  /** Every source parsed, for the commands that show an object's lines. */
  sources: Map<string, YamlSource>;
  /** Where an include failed: the problems the missing value causes there are not reported again. */
  failed: Position[];
}

const cache = new WeakMap<IncludeContext, Map<string, IncludeTree | null>>();

/** Reads a file and, recursively, what it includes; null when it does not exist, or does not parse (reported). */
export function loadFile(path: string, ctx: IncludeContext, chain: string[] = []): IncludeTree | null {
  const done = cache.get(ctx) ?? new Map<string, IncludeTree | null>();
  cache.set(ctx, done);
  if (done.has(path)) return done.get(path) ?? null;
  const raw = readProjectFile(path, { cwd: ctx.cwd, utf8ErrorCode: 'yaml-parse-error' });
  if (raw === undefined) return null;
  ctx.read.add(path);
  const file = shownPath(path, ctx.cwd);
  const src = parseYaml(file, raw, ctx.problems);
  if (src === null) {
    done.set(path, null);
    return null;
  }
  if (src.value !== undefined) ctx.sources.set(file, src);
  const tree: IncludeTree = { path, src, value: undefined, includes: new Map() };
  tree.value = expand(src.value, [], tree, path, ctx, [...chain, path]);
  done.set(path, tree);
  return tree;
}

function expand(v: unknown, path: Path, tree: IncludeTree, file: string, ctx: IncludeContext, chain: string[]): unknown {
  const target = includeTarget(v);
  if (target !== undefined) return include(target, path, tree, file, ctx, chain);
  if (Array.isArray(v)) return v.map((x, i) => expand(x, [...path, i], tree, file, ctx, chain));
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, expand(x, [...path, k], tree, file, ctx, chain)]));
  }
  return v;
}

function include(target: string, path: Path, tree: IncludeTree, file: string, ctx: IncludeContext, chain: string[]): unknown {
  const at = positionAt(tree.src, path);
  const fail = (code: string, message: string, hint: string): undefined => {
    ctx.problems.error(code, `${message}; ${hint}`, at);
    ctx.failed.push(at);
    return undefined;
  };
  const abs = resolve(dirname(file), target);
  const rel = relative(ctx.metadataDir, abs);
  if (isAbsolute(target) || rel === '' || rel.startsWith(`..${sep}`) || rel === '..' || isAbsolute(rel)) {
    return fail('include-outside-metadata', `!include "${target}" points outside the metadata directory ${shownPath(ctx.metadataDir, ctx.cwd)}/`,
      'include only files inside the metadata directory');
  }
  const shown = shownPath(abs, ctx.cwd);
  const loop = chain.indexOf(abs);
  if (loop >= 0) {
    const cycle = [...chain.slice(loop), abs].map((p) => shownPath(p, ctx.cwd)).join(' → ');
    return fail('include-cycle', `!include "${target}" makes a cycle: ${cycle}`, 'a file may not include itself, directly or through others');
  }
  const sub = loadFile(abs, ctx, chain);
  if (sub === null) {
    if (ctx.read.has(abs)) return undefined;
    return fail('include-not-found', `!include "${target}": ${shown} does not exist`, 'create the file, or fix the path (relative to the including file)');
  }
  tree.includes.set(JSON.stringify(path), sub);
  return sub.value;
}

/** The file a path of the tree's value is written in, and the path inside it. */
export function locate(tree: IncludeTree, path: Path, key: boolean): { src: YamlSource; path: Path } {
  for (let k = 0; k < path.length || (k === path.length && !key); k++) {
    const sub = tree.includes.get(JSON.stringify(path.slice(0, k)));
    if (sub) return locate(sub, path.slice(k), key);
    if (k === path.length) break;
  }
  return { src: tree.src, path };
}

const valueAt = (v: unknown, path: Path): unknown =>
  path.reduce<unknown>((x, k) => (x !== null && typeof x === 'object' ? (x as Record<string | number, unknown>)[k] : undefined), v);

/** The assembled value at `prefix` of a tree as a source of its own (validation walks it like a file). */
export function viewOf(tree: IncludeTree, prefix: Path): YamlSource {
  const base = locate(tree, prefix, false).src;
  return {
    file: base.file,
    text: base.text,
    get doc() {
      return base.doc;
    },
    get lines() {
      return base.lines;
    },
    value: valueAt(tree.value, prefix),
    through: (path, key) => locate(tree, [...prefix, ...path], key),
  };
}
