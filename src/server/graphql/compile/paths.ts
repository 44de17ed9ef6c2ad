import { Kind, type ASTNode, type DocumentNode, type FragmentDefinitionNode, type OperationDefinitionNode, type SelectionSetNode, type ValueNode } from 'graphql';
import { pathIndex, pathKey } from '../../../metadata/json.js';

/**
 * The §1.5 path of every field, argument and value node of an operation: `$.selectionSet.<key>` per field level,
 * `.args.<name>`, then `.key`/`[n]` inside values. Fragments are transparent; a fragment spread in several places
 * takes the path of its first spread in document order.
 */
export function nodePaths(doc: DocumentNode, op: OperationDefinitionNode): Map<ASTNode, string> {
  const paths = new Map<ASTNode, string>();
  const fragments = fragmentMap(doc);
  const walked = new Set<string>();
  const set = (n: ASTNode, p: string) => {
    if (!paths.has(n)) paths.set(n, p);
  };
  const value = (v: ValueNode, p: string): void => {
    set(v, p);
    if (v.kind === Kind.OBJECT) {
      for (const f of v.fields) {
        set(f, pathKey(p, f.name.value));
        value(f.value, pathKey(p, f.name.value));
      }
    } else if (v.kind === Kind.LIST) v.values.forEach((x, i) => value(x, pathIndex(p, i)));
  };
  const selections = (ss: SelectionSetNode, prefix: string): void => {
    for (const sel of ss.selections) {
      if (sel.kind === Kind.FIELD) {
        const p = `${prefix}.selectionSet.${(sel.alias ?? sel.name).value}`;
        set(sel, p);
        for (const a of sel.arguments ?? []) {
          set(a, `${p}.args.${a.name.value}`);
          value(a.value, `${p}.args.${a.name.value}`);
        }
        if (sel.selectionSet) {
          // A selection set stands for its field (the scalar-leaf rule reports it).
          set(sel.selectionSet, p);
          selections(sel.selectionSet, p);
        }
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        selections(sel.selectionSet, prefix);
      } else {
        const frag = fragments.get(sel.name.value);
        if (frag && !walked.has(frag.name.value)) {
          walked.add(frag.name.value);
          selections(frag.selectionSet, prefix);
        }
      }
    }
  };
  selections(op.selectionSet, '$');
  return paths;
}

export function fragmentMap(doc: DocumentNode): Map<string, FragmentDefinitionNode> {
  const m = new Map<string, FragmentDefinitionNode>();
  for (const d of doc.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION && !m.has(d.name.value)) m.set(d.name.value, d);
  return m;
}

/** The deepest field nesting of an operation, fragments expanded (each fragment's depth computed once). */
export function selectionDepth(doc: DocumentNode, op: OperationDefinitionNode): number {
  const fragments = fragmentMap(doc);
  const memo = new Map<string, number>();
  const depth = (ss: SelectionSetNode): number => {
    let max = 0;
    for (const sel of ss.selections) {
      if (sel.kind === Kind.FIELD) max = Math.max(max, 1 + (sel.selectionSet ? depth(sel.selectionSet) : 0));
      else if (sel.kind === Kind.INLINE_FRAGMENT) max = Math.max(max, depth(sel.selectionSet));
      else {
        const name = sel.name.value;
        if (!memo.has(name)) {
          memo.set(name, 0); // a cycle counts as nothing here: validation reports it
          const frag = fragments.get(name);
          memo.set(name, frag ? depth(frag.selectionSet) : 0);
        }
        max = Math.max(max, memo.get(name) ?? 0);
      }
    }
    return max;
  };
  return depth(op.selectionSet);
}
