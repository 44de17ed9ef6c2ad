import {
  getNullableType, type GraphQLArgumentConfig, type GraphQLFieldConfigMap, type GraphQLInputType, type GraphQLOutputType, type GraphQLType,
} from 'graphql';
import { remoteFieldAt } from '../../remote-schemas/relationships.js';
import { info } from './field-info.js';
import { rootType, type RoleRemote } from '../../remote-schemas/role-schema.js';
import type { RoleView, TableView } from './visibility.js';

/**
 * A table's remote relationships as fields of its type (issue 35.3): the remote field's type (nullable: a row whose
 * join columns are null has none) and its arguments but those the join fixes; an argument the join gives part of
 * (an input object) stays, and the client's part is merged with the join's. A role sees the field when it sees
 * every join column and the remote field in its part of the remote schema.
 */
export function remoteRelFields(role: RoleView, v: TableView, f: GraphQLFieldConfigMap<unknown, unknown>, remoteFor: (name: string) => RoleRemote | null, unify: <T extends GraphQLType>(t: T) => T = (t) => t): void {
  const rels = role.cache.remoteRels?.get(v.key);
  if (!rels) return;
  for (const rel of rels) {
    if (f[rel.name] || !rel.lhs.every((c) => v.columns.some((x) => x.name === c))) continue;
    const rr = remoteFor(rel.remote);
    const field = rr ? remoteFieldAt(rootType(rr, 'query'), rel.path) : 'hidden';
    if (!rr || typeof field === 'string') continue;
    const fixed = rel.path[rel.path.length - 1]?.args ?? {};
    const args: Record<string, GraphQLArgumentConfig> = {};
    for (const a of field.args) {
      const j = fixed[a.name];
      if (j !== undefined && (typeof j !== 'object' || j === null || Array.isArray(j))) continue;
      const type = j === undefined ? a.type : getNullableType(a.type) as GraphQLInputType;
      args[a.name] = { type: unify(type), ...(a.defaultValue !== undefined ? { defaultValue: a.defaultValue } : {}), ...(a.description ? { description: a.description } : {}) };
    }
    f[rel.name] = {
      type: unify(getNullableType(field.type) as GraphQLOutputType), args, ...(field.description ? { description: field.description } : {}),
      extensions: info({ kind: 'remote_rel', rel, remote: rr }),
    };
  }
}
