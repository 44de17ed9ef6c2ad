import type { Caller } from '../../auth/index.js';
import type { TableRef } from './document.js';
import type { LivePlan } from './multiplex.js';
import type { StreamSpec } from './stream.js';

/** Receives each new result body of a subscription (a live query's first at once). */
export type Sink = (body: string) => void;

/** A streaming cohort's state: its spec and the cursor its subscribers have reached. */
export interface StreamState {
  spec: StreamSpec;
  /** JSON text, as the service wrote it. */
  cursor: string;
}

/**
 * Subscribers whose results are the same: the same role, request (document, operation, variables) and the values
 * the compiled statements bind from the session — so a session variable no permission reads does not split them
 * (issue 32.2). One execution per refetch, one result hash; a result is sent only when its hash changed. A stream's
 * cohort moves (a new key) as its cursor moves.
 */
export interface Cohort {
  key: string;
  text: string;
  /** Each subscriber's caller: they may differ in session variables the statements do not read. */
  members: Map<Sink, Caller>;
  tables: TableRef[];
  hash: string | null;
  body: string | null;
  dirty: boolean;
  /** Its statements and parameters, planned once and kept until a batch finds them stale; null: run through handle. */
  plan?: LivePlan | null;
  stream?: StreamState;
}

/** One caller of the cohort (any: they all bind the same values), as which it runs. */
export const callerOf = (c: Cohort): Caller => c.members.values().next().value as Caller;

const sortedSession = (caller: Caller): [string, string][] =>
  Object.entries(caller.sessionVariables).map(([k, v]): [string, string] => [k.toLowerCase(), v]).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/** A caller's identity in full: role, backend-only, every session variable. */
export const sessionKey = (caller: Caller): string => JSON.stringify([caller.role, caller.backendOnly === true, sortedSession(caller)]);

/**
 * A cohort's key. With a plan: role, request and the bound values (session variables the statements read, and the
 * version planned at, so that cohorts of two metadata versions never merge); without one (run through the service):
 * every session variable.
 */
export function cohortKey(caller: Caller, text: string, plan: LivePlan | null | undefined, stream: boolean): string {
  const kind = stream ? 's' : 'l';
  if (!plan) return JSON.stringify([kind, sessionKey(caller), text]);
  return JSON.stringify([kind, caller.role, caller.backendOnly === true, text, plan.version, [...plan.args]]);
}
