import type { BatchOptions, BatchStatement } from './database.js';
import { BatchError } from './database.js';

/** What the embedded worker (pglite-worker.ts) starts with: its data directory. */
export interface WorkerData {
  dataDir: string;
}

/** The options of a batch that cross to the worker (the callback and the signal stay with the parent). */
export type WorkerBatchOptions = Omit<BatchOptions, 'begun' | 'signal'>;

/** A request to the worker; `tx`: inside that open transaction. Every request but `seeded` is answered by its id. */
export type Request =
  | { op: 'seeded'; id: 0; error: unknown }
  | { op: 'query'; id: number; sql: string; params: unknown[]; tx?: number }
  | { op: 'script'; id: number; sql: string; tx?: number }
  | { op: 'batch'; id: number; statements: BatchStatement[]; opts: WorkerBatchOptions }
  | { op: 'begin'; id: number; opts: WorkerBatchOptions }
  | { op: 'end'; id: number; tx: number; commit: boolean }
  | { op: 'listen'; id: number; channel: string }
  | { op: 'unlisten'; id: number; listener: number }
  | { op: 'dump'; id: number; args: string[] }
  | { op: 'close'; id: number };

/** What the worker posts: an answer, a notification, or whether it opened the database. */
export type Message =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: SerializedError }
  | { notify: string; listener: number }
  | { ready: true }
  | { ready: false; error: SerializedError };

export interface SerializedError {
  message: string;
  fields: Record<string, unknown>;
  /** A BatchError's statement index; its cause is the rest. */
  batchIndex?: number;
}

/** An error as plain data: its message and own fields (PostgreSQL's code, detail, hint, position …). */
export function serializeError(e: unknown): SerializedError {
  if (e instanceof BatchError) return { ...serializeError(e.cause), batchIndex: e.index };
  if (typeof e !== 'object' || e === null) return { message: String(e), fields: {} };
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(e)) if (v === null || ['string', 'number', 'boolean'].includes(typeof v)) fields[k] = v;
  return { message: String((e as { message?: unknown }).message ?? e), fields };
}

export function deserializeError(s: SerializedError): Error {
  const e = Object.assign(new Error(s.message), s.fields);
  return s.batchIndex === undefined ? e : new BatchError(s.batchIndex, e);
}
