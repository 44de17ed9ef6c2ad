import type { IntrospectionQuery } from 'graphql';
import type { JsonObject } from '../../metadata/json.js';
import type { RemoteSchema } from '../../metadata/kinds/remote-schemas.js';
import type { Metadata } from '../../metadata/types.js';
import type { Env } from '../outbound/index.js';
import { callRemote } from './call.js';
import { customizedSchema, INTROSPECTION_QUERY, isIntrospection } from './customize.js';
import type { RemoteIntrospection } from './types.js';

/**
 * The remote schemas' introspections, by name and definition. Resolving the metadata is synchronous (schema-cache.ts),
 * the introspection is a network call: the engine introspects before it resolves (start, reload, add, update,
 * replace), and the resolve reads the results here. A remote that could not be introspected is an inconsistent
 * object until a reload introspects it again (issue 35 point 4).
 */

export type Introspected = { ok: true; remote: RemoteIntrospection; raw: JsonObject } | { ok: false; message: string };

const results = new Map<string, Introspected>();

const keyOf = (r: RemoteSchema): string => `${r.name}\u0000${JSON.stringify(r.definition)}`;

export function introspected(r: RemoteSchema): Introspected | undefined {
  return results.get(keyOf(r));
}

/** Introspects one remote now; the result replaces any earlier one of the same definition. */
export async function introspectRemote(r: RemoteSchema, env: Env = process.env): Promise<Introspected> {
  const answer = await callRemote(r.name, r.definition, JSON.stringify({ query: INTROSPECTION_QUERY }), env);
  let out: Introspected;
  if (!answer.ok) out = { ok: false, message: answer.message };
  else {
    const data = answer.body['data'];
    const errors = answer.body['errors'];
    if (!isIntrospection(data ?? undefined)) {
      const first = Array.isArray(errors) ? (errors[0] as JsonObject | undefined)?.['message'] : undefined;
      out = { ok: false, message: `introspecting remote schema "${r.name}" failed: ${typeof first === 'string' ? first : 'the answer holds no "__schema"'}` };
    } else {
      try {
        const remote = customizedSchema(r.name, data as unknown as IntrospectionQuery, r.definition['customization'] as JsonObject | undefined);
        out = { ok: true, remote, raw: data as JsonObject };
      } catch (e) {
        out = { ok: false, message: `the schema of remote schema "${r.name}" is not valid: ${e instanceof Error ? e.message : String(e)}` };
      }
    }
  }
  results.set(keyOf(r), out);
  return out;
}

/** Introspects the remotes not introspected yet (all of them with `force`), in parallel. */
export async function introspectRemotes(md: Metadata, force = false, env: Env = process.env): Promise<void> {
  const todo = [...md.remote_schemas.values()].filter((r) => force || !results.has(keyOf(r)));
  await Promise.all(todo.map((r) => introspectRemote(r, env)));
}
