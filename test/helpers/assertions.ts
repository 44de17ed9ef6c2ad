import { expect } from 'vitest';
import type { Reply, TestEngine } from './engine.js';

// Request builders and assertions shared by the integration tests. Each assertion takes the file's TestEngine first.

type Obj = Record<string, unknown>;

const SUCCESS = { message: 'success' };
const EXPORT = { type: 'export_metadata', args: {} };

/** A qualified table name as stored and exported. */
export const qt = (name: string, schema = 'public') => ({ schema, name });
/** An error body in the §1.4 key order. */
export const err = (path: string, error: string, code: string) => ({ path, error, code });
/**
 * Issue 27: a change refused for the objects it leaves inconsistent (§7 rows 22, 23) is `constraint-violation`, its
 * message naming the first three objects' reasons, `internal` all their records.
 */
export function inconsistentError(head: 'cannot continue due to new inconsistent metadata' | 'cannot continue due to inconsistent metadata',
  internal: readonly ({ reason: string } & Obj)[], path = '$.args'): Obj {
  const more = internal.length > 3 ? ` (and ${internal.length - 3} more)` : '';
  return { path, error: `${head}: ${internal.slice(0, 3).map((r) => r.reason).join('; ')}${more}`, code: 'constraint-violation', internal };
}
export const runSql = (sql: string, extra: Obj = {}) => ({ type: 'run_sql', args: { sql, ...extra } });
/** The §3.5 error of a drop that still has dependents. */
export const dependencyError = (labels: string) =>
  err('$.args', `cannot drop due to the following dependent objects : ${labels}`, 'dependency-error');

/**
 * Asserts the exact error (status, body, and the raw text, so key order at every level: §1.4, §3.4 "table" first
 * in definitions) and that the request changed nothing (§3.3).
 */
export async function expectError(e: TestEngine, body: unknown, status: number, expected: Obj): Promise<void> {
  const before = await e.state();
  const r = await e.query(body);
  expect({ status: r.status, body: r.body }).toEqual({ status, body: expected });
  expect(r.text).toBe(JSON.stringify(expected));
  expect(await e.state()).toEqual(before);
}

/**
 * Asserts the status, the error body and its top-level key order (§1.4), and that the request changed nothing
 * (§3.3). Looser than expectError: nested key order is not checked.
 */
export async function expectErrorKeys(e: TestEngine, body: unknown, status: number, expected: Obj, headers?: Record<string, string>): Promise<void> {
  const before = await e.state();
  const r = await e.query(body, headers);
  expect(r.status).toBe(status);
  expect(r.body).toEqual(expected);
  expect(Object.keys(r.body as object)).toEqual(Object.keys(expected));
  expect(await e.state()).toEqual(before);
}

/** Asserts a reply's status and body. */
export function expectReply(r: Reply, status: number, body: Obj): void {
  expect({ status: r.status, body: r.body }).toEqual({ status, body });
}

/** The request must fail with exactly this answer and leave everything as it was (§3.3). */
export async function fails(e: TestEngine, body: unknown, status: number, expected: Obj, headers?: Record<string, string>): Promise<Reply> {
  const before = await e.state();
  const r = await e.query(body, headers);
  expectReply(r, status, expected);
  expect(await e.state()).toEqual(before);
  return r;
}

/** export_metadata, asserted 200: its text and resource_version. */
export async function exported(e: TestEngine): Promise<{ text: string; version: string | null }> {
  const r = await e.query(EXPORT);
  expect(r.status).toBe(200);
  return { text: r.text, version: r.headers.get('x-engine-resource-version') };
}

/** export_metadata, asserted 200: its parsed body, text and resource_version. */
export async function exportedWithBody(e: TestEngine): Promise<{ body: unknown; text: string; version: string | null }> {
  const r = await e.query(EXPORT);
  expect(r.status).toBe(200);
  return { body: r.body, text: r.text, version: r.headers.get('x-engine-resource-version') };
}

/**
 * Runs a writing request and asserts it answers 200 with `expected` (default success) and bumps resource_version by
 * exactly 1 (§3.3). Returns the new resource_version.
 */
export async function write(e: TestEngine, body: unknown, expected: unknown = SUCCESS): Promise<string> {
  const before = Number((await exported(e)).version);
  const r = await e.query(body);
  expect({ status: r.status, body: r.body }).toEqual({ status: 200, body: expected });
  expect(r.headers.get('x-engine-resource-version')).toBe(String(before + 1));
  return String(before + 1);
}

/** write, and the export afterwards shows the new resource_version too. */
export async function writeAndReexport(e: TestEngine, body: unknown): Promise<void> {
  const version = await write(e, body);
  expect((await exported(e)).version).toBe(version);
}

/** Whether the relation exists in the database. */
export async function relationExists(e: TestEngine, name: string): Promise<boolean> {
  const rows = await e.db.query<{ r: string | null }>(`SELECT to_regclass('${name}')::text AS r`);
  return rows[0]?.r !== null;
}
