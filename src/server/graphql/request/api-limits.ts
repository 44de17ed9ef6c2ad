import { Kind, type FragmentDefinitionNode, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import type { ApiError } from '../../../errors.js';
import { limitFor, type ApiLimits } from '../../../metadata/kinds/api-limits.js';
import { gqlError, validationFailed } from '../errors.js';
import { fragmentMap } from '../compile/index.js';
import type { CachedOperation } from './plan-cache.js';

/**
 * The incumbent's API limits (issue 31 item 6) that depend on the operation: its depth and its nodes, as the
 * incumbent counts them — a node is a field with a selection set, and the depth is how many of them nest
 * (`{ viewer { name } }` has depth 1). Fragments are expanded. Introspection is exempt, as the incumbent's.
 */
interface OperationSize {
  depth: number;
  nodes: number;
  introspection: boolean;
}

/** Measured once per prepared document, which the plan cache keeps per (role, text): later requests only compare. */
const sizes = new WeakMap<CachedOperation, OperationSize>();

function measure(entry: CachedOperation): OperationSize {
  const fragments = fragmentMap(entry.doc);
  const memo = new Map<string, { depth: number; nodes: number }>();
  const walk = (ss: SelectionSetNode): { depth: number; nodes: number } => {
    let depth = 0;
    let nodes = 0;
    const take = (c: { depth: number; nodes: number }, own: boolean): void => {
      depth = Math.max(depth, c.depth + (own ? 1 : 0));
      nodes += c.nodes + (own ? 1 : 0);
    };
    for (const sel of ss.selections) {
      if (sel.kind === Kind.FIELD) {
        if (sel.selectionSet) take(walk(sel.selectionSet), true);
      } else if (sel.kind === Kind.INLINE_FRAGMENT) take(walk(sel.selectionSet), false);
      else {
        const name = sel.name.value;
        let known = memo.get(name);
        if (!known) {
          memo.set(name, { depth: 0, nodes: 0 }); // a cycle: validation has refused it already
          const frag: FragmentDefinitionNode | undefined = fragments.get(name);
          known = frag ? walk(frag.selectionSet) : { depth: 0, nodes: 0 };
          memo.set(name, known);
        }
        take(known, false);
      }
    }
    return { depth, nodes };
  };
  return { ...walk(entry.op.selectionSet), introspection: isIntrospection(entry.op) };
}

function isIntrospection(op: OperationDefinitionNode): boolean {
  return op.operation === 'query' && op.selectionSet.selections.every((s) => s.kind === Kind.FIELD && s.name.value.startsWith('__'));
}

/** The depth and node limits for the caller's role; null when the operation keeps within them. */
export function checkOperationLimits(limits: ApiLimits | undefined, role: string, entry: CachedOperation): ApiError | null {
  if (!limits || limits.disabled) return null;
  const depthLimit = limitFor(limits.depth_limit, role);
  const nodeLimit = limitFor(limits.node_limit, role);
  if (depthLimit === undefined && nodeLimit === undefined) return null;
  let size = sizes.get(entry);
  if (!size) {
    size = measure(entry);
    sizes.set(entry, size);
  }
  if (size.introspection) return null;
  if (depthLimit !== undefined && size.depth > depthLimit) {
    return validationFailed('$', `the operation has depth ${size.depth}, over the depth limit of ${depthLimit}`);
  }
  if (nodeLimit !== undefined && size.nodes > nodeLimit) {
    return validationFailed('$', `the operation has ${size.nodes} nodes, over the node limit of ${nodeLimit}`);
  }
  return null;
}

/** A batched request (a JSON array) of more operations than the role's batch limit is refused whole. */
export function checkBatchLimit(limits: ApiLimits | undefined, role: string, operations: number): ApiError | null {
  if (!limits || limits.disabled) return null;
  const max = limitFor(limits.batch_limit, role);
  if (max === undefined || operations <= max) return null;
  return gqlError('batch-limit-exceeded', '$', `the batch has ${operations} operations, over the batch limit of ${max}`);
}

/** The request's time limit: the role's `time_limit` (seconds) when it is shorter than the engine's own. */
export function timeLimitMs(limits: ApiLimits | undefined, role: string, engineMs: number): number {
  if (!limits || limits.disabled) return engineMs;
  const s = limitFor(limits.time_limit, role);
  if (s === undefined) return engineMs;
  const ms = s * 1000;
  return engineMs > 0 ? Math.min(engineMs, ms) : ms;
}
