import type { DocumentNode, OperationDefinitionNode } from 'graphql';
import type { RootPlan } from './plan.js';

/** A parsed and validated operation, with the plans compiled for the variable values seen so far. */
export interface CachedOperation {
  doc: DocumentNode;
  op: OperationDefinitionNode;
  /** Compiled plans by the variables' JSON text (few per document: SQL never depends on session values). */
  plans: Map<string, RootPlan[]>;
}

const MAX_PLANS_PER_DOCUMENT = 16;

/**
 * The plan cache of graphql-api.md §7.4: per (schema cache, role, query text, operationName), at most `capacity`
 * documents, least recently used evicted. Keyed by the schema cache itself rather than resource_version, because
 * reload_metadata rebuilds the cache without changing the version: any new cache clears the plans.
 */
export class PlanCache {
  private version: object | null = null;
  private readonly entries = new Map<string, CachedOperation>();

  constructor(readonly capacity = 1000) {}

  private key(role: string, query: string, operationName: string | null): string {
    return JSON.stringify([role, operationName, query]);
  }

  get(version: object, role: string, query: string, operationName: string | null): CachedOperation | undefined {
    if (version !== this.version) {
      this.entries.clear();
      this.version = version;
      return undefined;
    }
    const k = this.key(role, query, operationName);
    const e = this.entries.get(k);
    if (e) {
      // Re-inserted: Map iteration order is the recency order.
      this.entries.delete(k);
      this.entries.set(k, e);
    }
    return e;
  }

  set(version: object, role: string, query: string, operationName: string | null, e: CachedOperation): void {
    if (version !== this.version) {
      this.entries.clear();
      this.version = version;
    }
    this.entries.set(this.key(role, query, operationName), e);
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  static remember(e: CachedOperation, variablesKey: string, plans: RootPlan[]): void {
    if (e.plans.size >= MAX_PLANS_PER_DOCUMENT) e.plans.delete(e.plans.keys().next().value as string);
    e.plans.set(variablesKey, plans);
  }

  get size(): number {
    return this.entries.size;
  }
}
