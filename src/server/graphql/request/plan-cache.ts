import { createHash } from 'node:crypto';
import type { DocumentNode, OperationDefinitionNode } from 'graphql';
import type { RootPlan } from '../plan/index.js';

/** A parsed and validated operation, with the plans compiled for the variable values seen so far. */
export interface CachedOperation {
  doc: DocumentNode;
  op: OperationDefinitionNode;
  /** Compiled plans by the variables' JSON text (few per document: SQL never depends on session values). */
  plans: Map<string, RootPlan[]>;
  /** What the cache counts for the parsed document (its text is counted once per text, with the text's bucket). */
  bytes: number;
  /** What the HTTP log and metrics say of the operation, made at its first request that reports it. */
  info?: OperationInfo;
}

/** An operation as the HTTP log and metrics name it (issue 31.2/31.3): type, name, and the hash of its document. */
export interface OperationInfo {
  readonly type: string;
  readonly name: string | undefined;
  /** The sha-256 of the request's query text, hex. */
  readonly hash: string;
  /** The http-log line's fields for this operation, made by the log at its first line (a cached operation's lines repeat them). */
  logFields?: string;
}

/** The operation's info, made once per cached document (the hash of a short query costs as much as a log line). */
export function operationInfo(entry: CachedOperation, query: string): OperationInfo {
  return (entry.info ??= { type: entry.op.operation, name: entry.op.name?.value, hash: createHash('sha256').update(query).digest('hex') });
}

const MAX_PLANS_PER_DOCUMENT = 16;

/** Bounds of the plan cache (issue 28): memory, not only a count, since one document may be 50 MB. */
export interface PlanCacheLimits {
  /** Documents (text, role, operationName) held at most (graphql-api.md §7.4). */
  documents: number;
  /** Estimated bytes held at most: texts, syntax trees, plans, kept answers. */
  bytes: number;
  /** A text longer than this (characters) is never cached: it is parsed and planned at each request. */
  documentChars: number;
}

export const DEFAULT_PLAN_CACHE_LIMITS: PlanCacheLimits = { documents: 1000, bytes: 64 * 1024 * 1024, documentChars: 1024 * 1024 };

/** Estimated heap bytes of a syntax tree node without locations (measured: about 90 bytes on V8). */
const AST_NODE_BYTES = 100;
/** Estimated bytes of a plan object and of one parameter beyond the SQL text. */
const PLAN_BYTES = 300;
const PARAM_BYTES = 100;

/** A V8 string may hold two bytes per character: texts are counted so. */
export const textBytes = (s: string): number => 2 * s.length;

/**
 * The estimated heap bytes of a syntax tree parsed without locations. Its strings are slices of the text, but a
 * string value used as a property key (graphql-js looks `__type(name:)` up in the type map) is internalised, a copy
 * the tree then keeps: long strings count their size again.
 */
export function astBytes(node: unknown): number {
  let n = 0;
  let strings = 0;
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) {
      for (const x of v) walk(x);
    } else if (typeof v === 'object' && v !== null) {
      n++;
      for (const x of Object.values(v)) {
        if (typeof x === 'object' && x !== null) walk(x);
        else if (typeof x === 'string' && x.length > 64) strings += textBytes(x);
      }
    }
  };
  walk(node);
  return n * AST_NODE_BYTES + strings;
}

/** The estimated bytes of an operation's plans (SQL texts, parameters, introspection answers kept with them). */
export function planBytes(plans: RootPlan[]): number {
  let n = 0;
  for (const p of plans) {
    n += PLAN_BYTES;
    if (p.kind === 'sql') n += textBytes(p.sql) + p.params.length * PARAM_BYTES + (p.prelude ? textBytes(p.prelude.sql) : 0);
    else if (p.kind === 'json') n += textBytes(p.json);
    else if (p.kind === 'introspection' && p.answer !== undefined) n += textBytes(p.answer);
  }
  return n;
}

/** The documents of one query text: the text is the map's key, held once however many roles send it. */
interface Bucket {
  byRole: Map<string, CachedOperation>;
  bytes: number;
}

/**
 * The plan cache of graphql-api.md §7.4: per (schema cache, role, query text, operationName), least recently used
 * evicted beyond `limits.documents` documents or `limits.bytes` estimated bytes. Keyed by the schema cache itself
 * rather than resource_version, because reload_metadata rebuilds the cache without changing the version: any new
 * cache clears the plans. Entries are grouped by text (the text is kept once, as the key, and the syntax trees are
 * parsed without locations, which would keep every token); an entry is accounted for when planned and again when
 * the service keeps something with it (`grow`).
 */
export class PlanCache {
  private version: object | null = null;
  private readonly texts = new Map<string, Bucket>();
  private documents = 0;
  private total = 0;
  /** Where each entry is, to account for what grows after it was stored. */
  private readonly owners = new WeakMap<CachedOperation, { text: string; bucket: Bucket }>();
  /** The bytes counted for each set of plans, to give them back when it is dropped. */
  private readonly planSizes = new WeakMap<RootPlan[], number>();

  constructor(readonly limits: PlanCacheLimits = DEFAULT_PLAN_CACHE_LIMITS) {}

  private roleKey(role: string, operationName: string | null): string {
    return operationName === null ? role : `${role}\u0000${operationName}`;
  }

  private sync(version: object): void {
    if (version === this.version) return;
    this.texts.clear();
    this.documents = 0;
    this.total = 0;
    this.version = version;
  }

  /** Whether a text may be cached at all (a longer one is prepared at each request). */
  accepts(query: string): boolean {
    return query.length <= this.limits.documentChars;
  }

  get(version: object, role: string, query: string, operationName: string | null): CachedOperation | undefined {
    this.sync(version);
    const b = this.texts.get(query);
    const e = b?.byRole.get(this.roleKey(role, operationName));
    if (b && e) {
      // Re-inserted: Map iteration order is the recency order.
      this.texts.delete(query);
      this.texts.set(query, b);
    }
    return e;
  }

  set(version: object, role: string, query: string, operationName: string | null, e: CachedOperation): void {
    this.sync(version);
    if (!this.accepts(query)) return;
    let b = this.texts.get(query);
    if (b) {
      this.texts.delete(query);
    } else {
      b = { byRole: new Map(), bytes: textBytes(query) };
      this.total += b.bytes;
    }
    this.texts.set(query, b);
    const k = this.roleKey(role, operationName);
    const old = b.byRole.get(k);
    if (old) this.resize(b, -old.bytes);
    else this.documents++;
    b.byRole.set(k, e);
    this.owners.set(e, { text: query, bucket: b });
    this.resize(b, e.bytes);
    this.evict();
  }

  /** Keeps plans compiled for one shape of the variables with the entry (at most 16 per document). */
  remember(e: CachedOperation, variablesKey: string, plans: RootPlan[]): void {
    if (e.plans.size >= MAX_PLANS_PER_DOCUMENT) {
      const oldest = e.plans.keys().next().value as string;
      const dropped = e.plans.get(oldest) as RootPlan[];
      e.plans.delete(oldest);
      this.grow(e, -(this.planSizes.get(dropped) ?? 0));
    }
    e.plans.set(variablesKey, plans);
    const size = planBytes(plans);
    this.planSizes.set(plans, size);
    this.grow(e, size);
  }

  /** Counts `bytes` more (or fewer) for an entry and the plans it holds; evicts when over the bound. */
  grow(e: CachedOperation, bytes: number, plans?: RootPlan[]): void {
    e.bytes += bytes;
    if (plans) this.planSizes.set(plans, (this.planSizes.get(plans) ?? 0) + bytes);
    const o = this.owners.get(e);
    if (!o || this.texts.get(o.text) !== o.bucket || o.bucket.byRole.size === 0) return;
    this.resize(o.bucket, bytes);
    this.evict();
  }

  private resize(b: Bucket, bytes: number): void {
    b.bytes += bytes;
    this.total += bytes;
  }

  /** Least recently used texts go first; the most recent stays even when it alone is over the bound. */
  private evict(): void {
    while ((this.documents > this.limits.documents || this.total > this.limits.bytes) && this.texts.size > 1) {
      const [text, b] = this.texts.entries().next().value as [string, Bucket];
      this.texts.delete(text);
      this.documents -= b.byRole.size;
      this.total -= b.bytes;
      b.byRole.clear();
    }
  }

  /** Documents held. */
  get size(): number {
    return this.documents;
  }

  /** Estimated bytes held. */
  get bytes(): number {
    return this.total;
  }
}
