import { performance } from 'node:perf_hooks';
import { Kind, parse, type OperationDefinitionNode } from 'graphql';
import { CliError } from '../../errors.js';
import type { Json } from '../../metadata/json.js';
import type { CallRecorder } from './calls.js';
import type { EphemeralEngine } from './ephemeral.js';
import { check, type Mismatch, type Response, type Seen } from './expect.js';
import type { TestCase, TestFile } from './format.js';
import { restoreSnapshot, seedSql } from './snapshot.js';

/** Where cases run: the ephemeral engine (writes undone after each case) or a running one (`--endpoint`). */
export interface Target {
  url: string;
  adminSecret?: string;
  /** Runs test data SQL (seeds, restores) in one transaction. */
  sql: (script: string) => Promise<void>;
  /** restore: writes are undone from the snapshot; allow: writes stay (`--allow-writes`); deny: writing cases are skipped. */
  writes: 'restore' | 'allow' | 'deny';
  /** The ephemeral engine's database and call recorder: events and action calls can be checked. */
  observe?: { rows: EphemeralEngine['rows']; calls: CallRecorder };
}

/** How long a case waits for the action calls it expects that have not come yet (an async action's worker). */
const ASYNC_CALLS_MS = 10_000;

/** The case checks events or action calls, or mocks a handler: only the ephemeral engine can show or answer them. */
const observes = (c: TestCase): boolean => c.expect.events !== undefined || c.expect.actionCalls !== undefined || c.actionResponses !== undefined;

const EVENTS_MARK = "SELECT coalesce(max(created_at), '-infinity')::text AS mark FROM engine_catalog.event_log";
const EVENTS_SINCE = 'SELECT trigger_name, payload FROM engine_catalog.event_log WHERE created_at > $1::timestamptz ORDER BY created_at, trigger_name';

/** What the case's operation set off: the events created after `mark`, the action calls recorded (awaited up to a deadline). */
async function observed(o: NonNullable<Target['observe']>, c: TestCase, mark: string | null): Promise<Seen> {
  const seen: Seen = {};
  if (mark !== null) {
    const rows = await o.rows<{ trigger_name: string; payload: Json }>(EVENTS_SINCE, [mark]);
    seen.events = rows.map((r) => ({ name: r.trigger_name, payload: r.payload }));
  }
  if (c.expect.actionCalls) {
    const deadline = performance.now() + ASYNC_CALLS_MS;
    while (o.calls.calls.length < c.expect.actionCalls.length && performance.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    seen.actionCalls = o.calls.calls.map((x) => ({ name: x.action, payload: x.body }));
  }
  return seen;
}

export type CaseStatus = 'passed' | 'failed' | 'skipped';

export interface CaseResult {
  file: string;
  line: number;
  name: string;
  role: string;
  status: CaseStatus;
  ms: number;
  mismatches: Mismatch[];
  /** Why a case was skipped, or what failed before its operation ran (a seed). */
  reason?: string;
  /** The operation's kind and root fields, for the coverage matrix. */
  operation: { kind: 'query' | 'mutation' | 'subscription'; fields: string[] } | null;
}

/** The operation a case runs, or null when its text does not parse (the engine then answers with the error). */
export function operationOf(c: Pick<TestCase, 'query' | 'operationName'>): CaseResult['operation'] {
  let ops: OperationDefinitionNode[];
  try {
    ops = parse(c.query).definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  } catch {
    return null;
  }
  const op = c.operationName === undefined ? (ops.length === 1 ? ops[0] : undefined) : ops.find((o) => o.name?.value === c.operationName);
  if (!op) return null;
  const fields = op.selectionSet.selections.flatMap((s) => (s.kind === Kind.FIELD && !s.name.value.startsWith('__') ? [s.name.value] : []));
  return { kind: op.operation, fields };
}

function headers(target: Target, c: TestCase): Record<string, string> {
  const h: Record<string, string> = { 'content-type': 'application/json', ...c.session, 'x-engine-role': c.role };
  if (target.adminSecret) h['x-engine-admin-secret'] = target.adminSecret;
  return h;
}

async function graphql(target: Target, c: TestCase, body: unknown): Promise<Response> {
  const res = await fetch(`${target.url}/v1/graphql`, { method: 'POST', headers: headers(target, c), body: JSON.stringify(body) });
  const text = await res.text();
  try {
    return JSON.parse(text) as Response;
  } catch {
    throw new CliError('unexpected-response', `the engine at ${target.url} answered HTTP ${res.status} that is not JSON: ${text.slice(0, 200)}`, 1);
  }
}

const TYPE_FIELDS = 'query ($name: String!) { __type(name: $name) { fields { name } } }';

/** The `Type.field` names of the list that the role's schema has. */
async function presentFields(target: Target, c: TestCase, names: string[]): Promise<string[]> {
  const present: string[] = [];
  const byType = new Map<string, Promise<Response>>();
  for (const name of names) {
    const [type, field] = name.split('.') as [string, string];
    if (!byType.has(type)) byType.set(type, graphql(target, c, { query: TYPE_FIELDS, variables: { name: type } }));
    const res = await byType.get(type);
    const fields = ((res?.data as { __type?: { fields?: { name: string }[] | null } | null } | undefined)?.__type?.fields) ?? [];
    if (fields.some((f) => f.name === field)) present.push(name);
  }
  return present;
}

/** Runs the cases of the files in order; `onResult` sees each result as it comes (for progress output). */
export async function runCases(target: Target, files: TestFile[], onResult: (r: CaseResult) => void = () => {}): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  // What the data is now: the snapshot ('base'), the snapshot plus a file's seed, or unknown after a write.
  let state: string | null = 'base';
  for (const f of files) {
    for (const c of f.cases) {
      const started = performance.now();
      const operation = operationOf(c);
      const writes = c.seed !== undefined || f.seed !== undefined || operation?.kind === 'mutation';
      const base = { file: c.file, line: c.line, name: c.name, role: c.role, operation };
      const done = (r: Omit<CaseResult, keyof typeof base | 'ms'>): void => {
        const result = { ...base, ...r, ms: performance.now() - started };
        results.push(result);
        onResult(result);
      };
      if (observes(c) && !target.observe) {
        done({ status: 'skipped', mismatches: [], reason: 'the case checks events or action calls (or mocks a handler): only the ephemeral engine runs it' });
        continue;
      }
      if (writes && target.writes === 'deny') {
        done({ status: 'skipped', mismatches: [], reason: 'the case writes (a seed or a mutation): --allow-writes runs it on the endpoint' });
        continue;
      }
      try {
        if (target.writes === 'restore') {
          const wanted = f.seed ? `file:${f.file}` : 'base';
          if (state !== wanted) {
            if (state !== 'base') await restoreSnapshot(target.sql);
            if (f.seed) await target.sql(seedSql(f.seed));
            state = wanted;
          }
        } else if (f.seed) await target.sql(seedSql(f.seed));
        if (c.seed) {
          if (target.writes === 'restore') state = null;
          await target.sql(seedSql(c.seed));
        }
        if (operation?.kind === 'mutation' && target.writes === 'restore') state = null;
      } catch (e) {
        state = null;
        done({ status: 'failed', mismatches: [], reason: `seed failed: ${e instanceof Error ? e.message : String(e)}` });
        continue;
      }
      try {
        target.observe?.calls.reset(c.actionResponses ?? {});
        const mark = target.observe && c.expect.events ? ((await target.observe.rows<{ mark: string }>(EVENTS_MARK))[0]?.mark ?? '-infinity') : null;
        const res = await graphql(target, c, { query: c.query, ...(c.variables ? { variables: c.variables } : {}), ...(c.operationName ? { operationName: c.operationName } : {}) });
        const present = c.expect.fieldsAbsent ? await presentFields(target, c, c.expect.fieldsAbsent) : [];
        const seen = target.observe ? await observed(target.observe, c, mark) : {};
        const mismatches = check(c.expect, res, present, seen);
        done({ status: mismatches.length === 0 ? 'passed' : 'failed', mismatches });
      } catch (e) {
        done({ status: 'failed', mismatches: [], reason: e instanceof Error ? e.message : String(e) });
      }
    }
  }
  return results;
}

export interface Summary {
  passed: number;
  failed: number;
  skipped: number;
  total: number;
  ms: number;
}

export function summarise(results: CaseResult[], ms: number): Summary {
  const count = (s: CaseStatus) => results.filter((r) => r.status === s).length;
  return { passed: count('passed'), failed: count('failed'), skipped: count('skipped'), total: results.length, ms };
}

/** A result as the JSON reporter writes it. */
export function resultJson(r: CaseResult): Json {
  return {
    file: r.file, line: r.line, name: r.name, role: r.role, status: r.status, ms: Math.round(r.ms),
    ...(r.reason ? { reason: r.reason } : {}),
    ...(r.mismatches.length > 0 ? { mismatches: r.mismatches.map((m) => ({ message: m.message, expected: m.expected, actual: m.actual })) } : {}),
  };
}
