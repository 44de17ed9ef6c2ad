import {
  Kind, parse, print, TokenKind,
  type DefinitionNode, type DocumentNode, type FieldDefinitionNode, type InputValueDefinitionNode, type Token,
} from 'graphql';
import { mergeActions, parseSdl, where, type Group, type MergeResult } from '../metadata-dir/actions-sdl.js';
import { Problems, type Position } from '../problems.js';
import type { YamlSource } from '../yaml-source.js';

/**
 * The offline half of `engine actions create` (cli.md §5.10 steps 2 and 4): the current actions, the checks of a new
 * definition against them, and the text to append to actions.graphql.
 */

export const ACTION_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;
export const validActionName = (name: string): boolean => ACTION_NAME.test(name) && !name.startsWith('__');

/** The current actions of the project (§4.6), with the parsed actions.graphql when there is one. */
export interface CurrentActions {
  merged: MergeResult;
  problems: Problems;
  /** Type name → its definition in actions.graphql. */
  types: Map<string, TypeDef>;
  /** Names of the actions of either file, with where they are. */
  actions: Map<string, Position>;
}

interface TypeDef { node: TypeDefinition; group: Group; pos: Position }
type TypeDefinition = Extract<DefinitionNode, { kind: Kind.OBJECT_TYPE_DEFINITION | Kind.INPUT_OBJECT_TYPE_DEFINITION | Kind.ENUM_TYPE_DEFINITION | Kind.SCALAR_TYPE_DEFINITION }>;

const GROUP_OF: Partial<Record<Kind, Group>> = {
  [Kind.OBJECT_TYPE_DEFINITION]: 'objects', [Kind.INPUT_OBJECT_TYPE_DEFINITION]: 'input_objects',
  [Kind.ENUM_TYPE_DEFINITION]: 'enums', [Kind.SCALAR_TYPE_DEFINITION]: 'scalars',
};

const isMutation = (d: DefinitionNode): d is Extract<DefinitionNode, { kind: Kind.OBJECT_TYPE_DEFINITION | Kind.OBJECT_TYPE_EXTENSION }> =>
  (d.kind === Kind.OBJECT_TYPE_DEFINITION || d.kind === Kind.OBJECT_TYPE_EXTENSION) && d.name.value === 'Mutation';

const isTypeDef = (d: DefinitionNode): d is TypeDefinition => GROUP_OF[d.kind] !== undefined && !isMutation(d);

/** Where a definition starts after its description (its keyword), as messages locate it. */
function headPos(file: string, n: { loc?: { startToken: Token } | undefined; description?: { loc?: { endToken: Token } | undefined } | undefined }): Position {
  let t: Token | null = n.description?.loc?.endToken.next ?? n.loc?.startToken ?? null;
  while (t && t.kind === TokenKind.COMMENT) t = t.next;
  return { file, line: t?.line ?? 1, column: t?.column ?? 1 };
}

function parseQuiet(text: string): DocumentNode | null {
  try {
    return parse(text);
  } catch {
    return null;
  }
}

/** Builds the current actions (§5.10 step 2) from the two files' texts. */
export function currentActions(sdl: { file: string; text: string } | null, yaml: YamlSource | null): CurrentActions {
  const problems = new Problems();
  const merged = mergeActions(sdl, yaml, problems);
  const types = new Map<string, TypeDef>();
  const actions = new Map<string, Position>();
  const doc = sdl ? parseQuiet(sdl.text.replace(/^\uFEFF/, '')) : null;
  for (const d of doc?.definitions ?? []) {
    if (isTypeDef(d) && !types.has(d.name.value)) types.set(d.name.value, { node: d, group: GROUP_OF[d.kind] as Group, pos: headPos(sdl?.file ?? '', d) });
  }
  for (const [key, pos] of merged.origins) if (key.startsWith('action:')) actions.set(key.slice('action:'.length), pos);
  const value = yaml?.value as { actions?: unknown } | undefined;
  if (value && Array.isArray(value.actions)) {
    for (const a of value.actions as unknown[]) {
      const n = (a as { name?: unknown } | null)?.name;
      if (typeof n === 'string' && !actions.has(n)) actions.set(n, { file: yaml?.file ?? '', line: 1, column: 1 });
    }
  }
  return { merged, problems, types, actions };
}

/** A type's identity for the "redefined identically" rule: kind, fields, types, arguments, values; no descriptions. */
function signature(node: TypeDefinition): string {
  const value = (v: InputValueDefinitionNode) => ({ name: v.name.value, type: print(v.type) });
  const field = (f: FieldDefinitionNode | InputValueDefinitionNode) =>
    ({ ...value(f as InputValueDefinitionNode), args: 'arguments' in f ? (f.arguments ?? []).map(value) : [] });
  switch (node.kind) {
    case Kind.SCALAR_TYPE_DEFINITION: return JSON.stringify({ kind: node.kind });
    case Kind.ENUM_TYPE_DEFINITION:
      return JSON.stringify({ kind: node.kind, values: (node.values ?? []).map((v) => ({ v: v.name.value, d: (v.directives ?? []).map((x) => print(x)) })) });
    default: return JSON.stringify({ kind: node.kind, fields: (node.fields ?? []).map(field) });
  }
}

/** The source text of a definition with the comment lines directly above it. */
function sourceWithComments(text: string, d: DefinitionNode): string {
  const start = d.loc?.startToken as Token;
  let first = start;
  for (let t = start.prev; t && t.kind === TokenKind.COMMENT; t = t.prev) {
    let before = t.prev;
    while (before && before.kind === TokenKind.COMMENT) before = before.prev;
    // A comment on the line of the previous definition's last token belongs to that one.
    if (before && before.kind !== TokenKind.SOF && before.line === t.line) break;
    first = t;
  }
  return text.slice(first.start, d.loc?.end ?? text.length);
}

export interface NewDefinition {
  /** The text to append to actions.graphql (its definitions, without identical redefinitions). */
  appended: string;
  /** The new custom types, for actions.yaml. */
  types: { name: string; group: Group }[];
  /** Warnings about the new SDL (e.g. `action-description-ignored`). */
  warnings: Problems['list'];
}

/** A failed check of a new definition: every problem, in the SDL source. */
export class DefinitionProblems extends Error {
  constructor(readonly problems: Problems['list']) {
    super(problems[0]?.message ?? 'invalid definition');
  }
}

/**
 * §5.10 step 4: the new SDL must hold §4.3-valid definitions adding exactly one Mutation field named `name`; the
 * types it uses must be in actions.graphql or in it; existing types redefined identically are dropped.
 */
export function checkDefinition(name: string, source: { file: string; text: string }, current: CurrentActions): NewDefinition {
  const problems = new Problems();
  const text = source.text.replace(/^\uFEFF/, '');
  const doc = parseSdl(source.file, text, problems);
  if (!doc) throw new DefinitionProblems(problems.list);
  const kept: DefinitionNode[] = [];
  const newTypes: { name: string; group: Group }[] = [];
  const fields: { name: string; pos: Position }[] = [];
  for (const d of doc.definitions) {
    if (isMutation(d)) {
      for (const f of d.fields ?? []) fields.push({ name: f.name.value, pos: headPos(source.file, f) });
      kept.push(d);
      continue;
    }
    if (isTypeDef(d)) {
      const existing = current.types.get(d.name.value);
      if (existing) {
        if (signature(existing.node) !== signature(d)) {
          problems.error('definition-invalid', `type "${d.name.value}" is already defined differently at ${where(existing.pos)}`, headPos(source.file, d));
        }
        continue;
      }
      if (!newTypes.some((t) => t.name === d.name.value)) newTypes.push({ name: d.name.value, group: GROUP_OF[d.kind] as Group });
    }
    kept.push(d);
  }

  // §4.3 on the new definitions, the existing types (not redefined) appended after them so that positions stay put.
  const context = [...current.types.values()].filter((t) => !doc.definitions.some((d) => isTypeDef(d) && d.name.value === t.node.name.value))
    .map((t) => print(t.node)).join('\n\n');
  const lineCount = text.split('\n').length;
  const sdlProblems = new Problems();
  mergeActions({ file: source.file, text: context ? `${text}\n\n${context}\n` : text }, null, sdlProblems);
  for (const p of sdlProblems.list) {
    if (p.code === 'action-not-in-yaml') continue;
    if (p.file === source.file && (p.line ?? 0) > lineCount) continue;
    if (p.severity === 'error') problems.error(p.code, p.message, p as Position);
    else problems.warn(p.code, p.message, p as Position);
  }

  const taken = fields.filter((f) => current.actions.has(f.name));
  for (const f of taken) {
    problems.error('definition-invalid', `action "${f.name}" already exists; the definition must contain only the new action`, f.pos);
  }
  const added = fields.filter((f) => !current.actions.has(f.name));
  const at = added[0]?.pos ?? fields[0]?.pos ?? { file: source.file, line: 1, column: 1 };
  if (taken.length === 0 && added.length !== 1) {
    problems.error('definition-invalid', `the definition must add exactly one field to type Mutation; found ${added.length}`, at);
  } else if (added.length === 1 && added[0]?.name !== name) {
    problems.error('definition-invalid', `the definition defines action "${added[0]?.name ?? ''}", but the command was given "${name}"`, at);
  }
  if (problems.errors.length > 0) throw new DefinitionProblems(problems.sorted().filter((p) => p.severity === 'error'));
  return {
    appended: kept.map((d) => sourceWithComments(text, d)).join('\n\n'),
    types: newTypes,
    warnings: problems.warnings,
  };
}

/** actions.graphql with the new definitions appended after a blank line; existing bytes stay as they are. */
export function appendSdl(existing: string, appended: string): string {
  if (existing.trim() === '') return `${existing}${appended}\n`;
  const base = existing.endsWith('\n') ? existing : `${existing}\n`;
  return `${base}${base.endsWith('\n\n') ? '' : '\n'}${appended}\n`;
}

/** The handler of a new action (§5.10 step 5): `--webhook`, else the base URL without trailing `/` + `/<name>`. */
export function defaultHandler(baseUrl: string, name: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/${name}`;
}
