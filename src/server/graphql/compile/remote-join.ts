import type { FieldNode } from 'graphql';
import { quoteIdent } from '../../bool-exp/compile.js';
import { JOIN_MARK, type RemoteJoinSpec, type RemoteRel } from '../../remote-schemas/relationships.js';
import type { RoleRemote } from '../../remote-schemas/role-schema.js';
import type { StatementBuilder } from './sql-builder.js';

/**
 * A remote relationship's field in a statement (issue 35.3): the SQL answers, in its place, a marker object holding
 * the row's join values; after the statement the engine replaces every marker of the operation by the remote's
 * answer, from one call per remote schema (remote-schemas/joins.ts).
 */

export type { RemoteJoinSpec };

/** The field's SQL over the row `row`: null where a join value is null (no remote call), else the marker. */
export function remoteJoinJson(b: StatementBuilder, rel: RemoteRel, remote: RoleRemote, nodes: FieldNode[], row: string, path: string): string {
  const id = b.remoteJoins.length;
  b.remoteJoins.push({ id, rel, remote, nodes, path });
  const cols = rel.lhs.map((c) => `(${row}).${quoteIdent(c)}`);
  return `CASE WHEN ${cols.map((c) => `${c} IS NULL`).join(' OR ')} THEN NULL ELSE json_build_object('${JOIN_MARK}', ${id}, 'v', json_build_array(${cols.join(', ')})) END`;
}
