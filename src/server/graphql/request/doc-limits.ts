import {
  Kind, print, visit, type DocumentNode, type FieldNode, type FragmentDefinitionNode, type OperationDefinitionNode,
  type SelectionNode, type SelectionSetNode,
} from 'graphql';
import type { ApiError } from '../../../errors.js';
import { validationFailed } from '../errors.js';
import { fragmentMap } from '../compile/index.js';

/**
 * Limits on what one operation may ask for (issue 28), checked before graphql-js validates it: validation and
 * compilation cost grows with the fields after fragment expansion, which a small document can multiply.
 */
export interface DocumentLimits {
  /** Fields of the operation, fragments expanded (`--node-limit`). */
  nodes: number;
  /** Fields with an alias, fragments expanded (`--alias-limit`). */
  aliases: number;
}

export const DEFAULT_DOCUMENT_LIMITS: DocumentLimits = { nodes: 10_000, aliases: 1_000 };

/** PostgreSQL's limit on a SELECT list: an object is one row of that many columns (compile/select.ts jsonObject). */
export const MAX_TARGET_COLUMNS = 1664;

interface Counts {
  nodes: number;
  aliases: number;
}

/**
 * Counts the operation's fields and aliases with fragments expanded; each fragment is counted once and its counts
 * reused (a fragment spread twice counts twice, but the walk does not repeat it), so a fragment bomb costs its size.
 */
function countFields(op: OperationDefinitionNode, fragments: Map<string, FragmentDefinitionNode>): Counts {
  const memo = new Map<string, Counts>();
  const walk = (ss: SelectionSetNode): Counts => {
    const c = { nodes: 0, aliases: 0 };
    for (const sel of ss.selections) {
      let inner: Counts;
      if (sel.kind === Kind.FIELD) {
        c.nodes++;
        if (sel.alias) c.aliases++;
        if (!sel.selectionSet) continue;
        inner = walk(sel.selectionSet);
      } else if (sel.kind === Kind.INLINE_FRAGMENT) inner = walk(sel.selectionSet);
      else {
        const name = sel.name.value;
        let known = memo.get(name);
        if (!known) {
          memo.set(name, { nodes: 0, aliases: 0 }); // a cycle counts as nothing here: validation reports it
          const frag = fragments.get(name);
          known = frag ? walk(frag.selectionSet) : { nodes: 0, aliases: 0 };
          memo.set(name, known);
        }
        inner = known;
      }
      c.nodes += inner.nodes;
      c.aliases += inner.aliases;
    }
    return c;
  };
  return walk(op.selectionSet);
}

/**
 * The first object (in document order) whose merged selection has more response keys than PostgreSQL allows columns:
 * its §1.5 path. The root is not an object of SQL (each root field is its own statement). Visits each field of the
 * expanded operation once: call it only within the node limit.
 */
function tooWide(op: OperationDefinitionNode, fragments: Map<string, FragmentDefinitionNode>): string | null {
  const collect = (sets: readonly SelectionSetNode[]): Map<string, FieldNode[]> => {
    const out = new Map<string, FieldNode[]>();
    const add = (ss: SelectionSetNode, seen: Set<string>): void => {
      for (const sel of ss.selections) {
        if (sel.kind === Kind.FIELD) {
          const key = (sel.alias ?? sel.name).value;
          const list = out.get(key);
          if (list) list.push(sel);
          else out.set(key, [sel]);
        } else if (sel.kind === Kind.INLINE_FRAGMENT) add(sel.selectionSet, seen);
        else if (!seen.has(sel.name.value)) {
          const frag = fragments.get(sel.name.value);
          if (frag) add(frag.selectionSet, new Set([...seen, sel.name.value]));
        }
      }
    };
    for (const ss of sets) add(ss, new Set());
    return out;
  };
  const walk = (fields: Map<string, FieldNode[]>, path: string, root: boolean): string | null => {
    if (!root && fields.size > MAX_TARGET_COLUMNS) return path;
    for (const [key, nodes] of fields) {
      const sets = nodes.flatMap((n) => (n.selectionSet ? [n.selectionSet] : []));
      if (sets.length === 0) continue;
      const found = walk(collect(sets), `${path}.selectionSet.${key}`, false);
      if (found) return found;
    }
    return null;
  };
  return walk(collect([op.selectionSet]), '$', true);
}

/** The node, alias and width limits, in that order; null when the operation keeps within them. */
export function checkDocumentLimits(doc: DocumentNode, op: OperationDefinitionNode, limits: DocumentLimits): ApiError | null {
  const fragments = fragmentMap(doc);
  const counts = countFields(op, fragments);
  if (counts.nodes > limits.nodes) return validationFailed('$', `the query has more than ${limits.nodes} fields (node limit)`);
  if (counts.aliases > limits.aliases) return validationFailed('$', `the query has more than ${limits.aliases} aliases (alias limit)`);
  const wide = tooWide(op, fragments);
  if (wide) return validationFailed(wide, `more than ${MAX_TARGET_COLUMNS} fields selected in one object (PostgreSQL's limit of target columns)`);
  return null;
}

/**
 * The document without exact repetitions of a field in one selection set (`{ t { title title … } }`): a repeated
 * field merges into the first (GraphQL spec §6.3.2), so it changes neither the answer nor the validation errors, but
 * graphql-js compares the fields of one response key pairwise and gives up ("Validation aborted.") past a budget
 * that a thousand repetitions exceed. Fields are compared by their printed form, directives and sub-selections
 * included; only response keys given more than once are printed.
 */
export function withoutRepeatedFields(doc: DocumentNode): DocumentNode {
  return visit(doc, {
    SelectionSet(ss) {
      const byKey = new Map<string, number>();
      for (const s of ss.selections) {
        if (s.kind === Kind.FIELD) {
          const k = (s.alias ?? s.name).value;
          byKey.set(k, (byKey.get(k) ?? 0) + 1);
        }
      }
      if (![...byKey.values()].some((n) => n > 1)) return undefined;
      const printed = new Set<string>();
      const kept: SelectionNode[] = [];
      for (const s of ss.selections) {
        if (s.kind === Kind.FIELD && (byKey.get((s.alias ?? s.name).value) ?? 0) > 1) {
          const p = print(s);
          if (printed.has(p)) continue;
          printed.add(p);
        }
        kept.push(s);
      }
      return kept.length === ss.selections.length ? undefined : { ...ss, selections: kept };
    },
  });
}
