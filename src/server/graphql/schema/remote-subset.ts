import { Kind, parse, type DocumentNode } from 'graphql';
import type { RemoteIntrospection } from '../../remote-schemas/types.js';

/**
 * A role's part of a remote schema (`add_remote_schema_permissions`): the root fields its SDL document lists. The
 * SDL names the remote's types after customisation, as the role sees them.
 */
export interface RemoteSubset {
  query: Set<string>;
  mutation: Set<string>;
}

const parsed = new Map<string, DocumentNode>();

export function remoteSubset(remote: RemoteIntrospection, sdl: string): RemoteSubset {
  let doc = parsed.get(sdl);
  if (!doc) {
    doc = parse(sdl);
    parsed.set(sdl, doc);
  }
  const out: RemoteSubset = { query: new Set(), mutation: new Set() };
  const roots = new Map<string, keyof RemoteSubset>([
    [remote.schema.getQueryType()?.name ?? 'Query', 'query'], [remote.schema.getMutationType()?.name ?? 'Mutation', 'mutation'],
  ]);
  for (const d of doc.definitions) {
    if (d.kind === Kind.SCHEMA_DEFINITION) {
      for (const o of d.operationTypes) if (o.operation !== 'subscription') roots.set(o.type.name.value, o.operation);
    }
  }
  for (const d of doc.definitions) {
    if (d.kind !== Kind.OBJECT_TYPE_DEFINITION && d.kind !== Kind.OBJECT_TYPE_EXTENSION) continue;
    const which = roots.get(d.name.value);
    if (which) for (const f of d.fields ?? []) out[which].add(f.name.value);
  }
  return out;
}
