import { Kind, parse, visit, type ASTNode } from 'graphql';
import type { EngineClient } from '../../client/engine-client.js';
import { nearest } from '../../text.js';
import type { Position } from '../problems.js';

/**
 * Issue 37 item 1: the engine's refusal of a new action that names a type it does not know (`the type "Booleen" of
 * argument "ok" …`) is shown where the SDL names it, with the nearest type the action could have meant.
 */

const BUILTIN = ['Boolean', 'Float', 'ID', 'Int', 'String'];

// Fixed text: the scalar types actions may name, as the engine reads them (src/server/db-catalog.ts).
const SCALARS_SQL = `SELECT DISTINCT t.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
  WHERE n.nspname IN ('pg_catalog', 'public') AND t.typtype IN ('b', 'e', 'd', 'r') AND t.typcategory <> 'A'`;

/** The type an engine message is about, and the field or argument naming it (for arguments and type fields). */
function subject(reason: string): { type: string; field?: string } | null {
  const m = /the type "([^"]+)" (?:of argument|for field|of field) "([^"]+)"/.exec(reason) ?? /the type "([^"]+)"/.exec(reason);
  if (!m) return null;
  return m[2] !== undefined ? { type: m[1] as string, field: m[2] } : { type: m[1] as string };
}

/** Where a source names `type`: inside the field or argument `field` when given, else its first use. */
function findUse(source: { file: string; text: string }, type: string, field?: string): Position | null {
  let doc;
  try {
    doc = parse(source.text.replace(/^\uFEFF/, ''));
  } catch {
    return null;
  }
  let first: Position | null = null;
  let inField: Position | null = null;
  visit(doc, {
    NamedType(node, _k, _p, _path, ancestors) {
      if (node.name.value !== type || !node.loc) return;
      const at = { file: source.file, line: node.loc.startToken.line, column: node.loc.startToken.column };
      first ??= at;
      const owner = [...ancestors].reverse().find((a): a is ASTNode => !Array.isArray(a) && (a as ASTNode).kind !== undefined
        && ((a as ASTNode).kind === Kind.INPUT_VALUE_DEFINITION || (a as ASTNode).kind === Kind.FIELD_DEFINITION)) as { name?: { value: string } } | undefined;
      if (field !== undefined && owner?.name?.value === field) inField ??= at;
    },
  });
  return inField ?? first;
}

export interface LocatedRejection {
  position: Position;
  /** ` (did you mean "x"?)`, or ''. */
  hint: string;
}

/**
 * The position in `sources` (the new definition first) of the type an engine rejection names, with a "did you mean"
 * among the built-in scalars, `customTypes` and the database's scalars (read once, best effort); null when the
 * message names no type or no source uses it.
 */
export async function locateRejection(client: EngineClient, reason: string, sources: { file: string; text: string }[],
  customTypes: string[]): Promise<LocatedRejection | null> {
  const s = subject(reason);
  if (!s) return null;
  const position = sources.map((src) => findUse(src, s.type, s.field)).find((p) => p !== null);
  if (!position) return null;
  let scalars: string[] = [];
  try {
    const r = await client.runSql(SCALARS_SQL, { readOnly: true });
    if (r.result_type === 'TuplesOk') scalars = r.result.slice(1).map((row) => String(row[0]));
  } catch {
    // Without the database's scalars the suggestion comes from the others.
  }
  const best = nearest(s.type, [...BUILTIN, ...customTypes, ...scalars].filter((c) => c !== s.type), 3);
  return { position, hint: best === undefined ? '' : ` (did you mean "${best}"?)` };
}
