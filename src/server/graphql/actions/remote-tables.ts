import type { Database } from '../../../db/database.js';
import type { Json } from '../../../metadata/json.js';
import type { TableJoin } from '../../remote-schemas/to-table.js';
import { databaseError } from '../errors.js';
import { bindStatement, SelectionCompiler, StatementBuilder, type GValue, type SelectionContext } from '../compile/index.js';
import { fieldInfo, type FieldInfo, type RoleView } from '../schema/index.js';
import type { JoinRunner } from './relationships.js';
import { parseKeepingDigits } from '../../remote-schemas/literals.js';

/**
 * A remote schema's relationships to tables (`to_source`, issue 35.3), answered after the remote: every field's
 * remote objects go in as one jsonb parameter each, joined to the table on `field_mapping` (the value cast to the
 * column's type) under the role's select permission, as an action's relationships are; all the operation's fields of
 * one remote answer in one statement.
 */

export interface RemoteTablesCall {
  db: Database;
  role: RoleView;
  sel: SelectionContext;
  session: Record<string, string>;
  /** The tables' own remote relationships (a remote → table → remote chain), joined as a statement's. */
  joins?: JoinRunner;
}

export async function joinRemoteTables(x: RemoteTablesCall, joins: TableJoin[]): Promise<void> {
  const b = new StatementBuilder(x.role.cache);
  const c = new SelectionCompiler(b, x.role, x.sel);
  const row = '"o"."v"';
  const columns = joins.map((j, k) => {
    const i = fieldInfo(j.field) as Extract<FieldInfo, { kind: 'action_rel' }>;
    const param = b.param(j.objects as unknown as GValue, 'jsonb');
    const expr = i.array ? c.rowsJson(j.field, i.view, i.source, j.nodes, row, j.path) : c.objectRow(j.field, i.view, i.source, j.nodes, row, j.path);
    return `(SELECT coalesce(json_agg(${expr} ORDER BY "o"."n"), '[]'::json) FROM jsonb_array_elements(${param}) WITH ORDINALITY AS "o"("v", "n"))::text AS "j${k}"`;
  });
  const sql = `SELECT ${columns.join(', ')}`;
  const args = bindStatement(b.params, x.session, x.sel.variables);
  const rows = await x.db.transaction(async (tx) => {
    try {
      return await tx.query<Record<string, string>>(sql, args);
    } catch (e) {
      throw databaseError(e, joins[0]?.path.replace(/^\$\.selectionSet\./, '') ?? '', sql, args) ?? e;
    }
  }, { readOnlySnapshot: true, utc: true });
  const texts = new Map(joins.map((_, k) => [`j${k}`, rows[0]?.[`j${k}`] ?? '[]']));
  if (b.remoteJoins.length > 0 && x.joins) await x.joins([...texts.keys()].map((key) => ({ key, joins: b.remoteJoins })), texts);
  joins.forEach((j, k) => {
    // The rows' numbers keep their digits: the remote's answer they go into is written out keeping them.
    const values = parseKeepingDigits(texts.get(`j${k}`) ?? '[]') as Json[];
    j.targets.forEach((t, n) => {
      t.obj[t.key] = values[n] ?? null;
    });
  });
}
