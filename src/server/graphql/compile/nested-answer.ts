import { getNamedType, type FieldNode, type GraphQLField, type GraphQLObjectType } from 'graphql';
import { quoteIdent, quoteTable } from '../../bool-exp/compile.js';
import type { Json } from '../../../metadata/json.js';
import { CHECK_FAILED_STATE } from '../../catalog.js';
import type { MutationTable, RoleView } from '../schema/index.js';
import { jsonObject, SelectionCompiler } from './select.js';
import type { SelectionContext } from './selection.js';
import type { StatementBuilder } from './sql-builder.js';
import { isPlainObject, type GValue } from './values.js';

/**
 * Statement 2 of a nested insert (see nested-insert.ts): every level's permission checks over the rows statement 1
 * wrote, read back by the ctids it kept in transaction-local settings, then the response over the root level's rows.
 */

/** The transaction-local setting holding one level's kept values (`t` ctids, `o` ordinals, `i` inserted flags). */
export const SETTING = (kind: string, id: number): string => `'engine.ni${kind}${id}'`;

/**
 * Whether a level's rows are kept by ctid. A view (or a foreign table) has none: its rows are kept whole, as
 * RETURNING gave them (an auto-updatable view's row is what its base table wrote), and read back from that value.
 */
export const keptByCtid = (mt: MutationTable): boolean => mt.rt.db.kind === 'r' || mt.rt.db.kind === 'p';

/** What statement 2 needs of a level. */
export interface AnswerLevel {
  id: number;
  mt: MutationTable;
  parent: AnswerLevel | null;
  onConflict: GValue | undefined;
  checked: boolean;
}

export interface AnswerContext {
  b: StatementBuilder;
  role: RoleView;
  sel: SelectionContext;
}

/**
 * A level's written rows, read back in input order, with their checks: insert (`ic`) and update (`uc`). The rows
 * are fetched by their ctids (a TID scan), not by a join that would read the whole table.
 */
function readBack(ctx: AnswerContext, l: AnswerLevel): string {
  const x = ctx.b.alias();
  const u = ctx.b.alias();
  const t = quoteTable(l.mt.rt.entry.table);
  const arr = (k: string, type: string) => `current_setting(${SETTING(k, l.id)})::${type}[]`;
  const check = (exp: Json | undefined): string => (ctx.role.admin || exp === undefined || exp === null ? 'true' : `coalesce((${ctx.b.boolExpOn(exp, l.mt.rt, x)}), false)`);
  const uc = isPlainObject(l.onConflict) ? check(l.mt.update?.check) : 'true';
  if (!keptByCtid(l.mt)) {
    // unnest of several arrays would spread a row into its columns: the rows are taken by subscript, from an array
    // parsed once (an uncorrelated subquery), each unnested alone so that the alias is a row of the view's type.
    return `SELECT ${x} AS "r", ${u}."o", ${u}."ins", ${check(l.mt.insert?.check)} AS "ic", ${uc} AS "uc" FROM unnest(${arr('o', 'integer')}, ${arr('i', 'boolean')}) WITH ORDINALITY AS ${u}("o", "ins", "n") CROSS JOIN LATERAL unnest(ARRAY[((SELECT ${arr('t', t)}))[${u}."n"]]) AS ${x}`;
  }
  return `SELECT ${x} AS "r", ${u}."o", ${u}."ins", ${check(l.mt.insert?.check)} AS "ic", ${uc} AS "uc" FROM unnest(${arr('t', 'tid')}, ${arr('o', 'integer')}, ${arr('i', 'boolean')}) AS ${u}("t", "o", "ins") JOIN ${t} AS ${x} ON ${x}.ctid = ${u}."t" AND ${x}.ctid = ANY (${arr('t', 'tid')})`;
}

/** Statement 2: every level's checks, then the response over the root level's rows. */
export function checksAndResponse(ctx: AnswerContext, levels: readonly AnswerLevel[], field: GraphQLField<unknown, unknown>, root: AnswerLevel, one: boolean, nodes: FieldNode[], path: string): string {
  const b = ctx.b;
  const fails: string[] = [];
  const ctes: string[] = [];
  for (const l of levels) {
    if (l.parent !== null && !l.checked) continue;
    const k = quoteIdent(`k${l.id}`);
    ctes.push(`${k} AS (${readBack(ctx, l)})`);
    // A row written but not found by its ctid (a trigger changed it): its check cannot be evaluated, so fail.
    if (keptByCtid(l.mt)) fails.push(`(SELECT 'nested:${l.id}:0:moved' WHERE (SELECT count(*) FROM ${k}) <> cardinality(current_setting(${SETTING('t', l.id)})::tid[]))`);
    if (!l.checked) continue;
    fails.push(`(SELECT 'nested:${l.id}:' || min("o") || ':insert' FROM ${k} WHERE "ins" AND NOT "ic" HAVING count(*) > 0)`);
    if (isPlainObject(l.onConflict)) fails.push(`(SELECT 'nested:${l.id}:' || min("o") || ':update' FROM ${k} WHERE NOT "ins" AND NOT "uc" HAVING count(*) > 0)`);
  }
  const sc = new SelectionCompiler(b, ctx.role, ctx.sel);
  const mt = root.mt;
  const type = getNamedType(field.type) as GraphQLObjectType;
  const rows = (limit: string): { from: string; alias: string } => {
    const t = b.alias();
    const perm = mt.view && !ctx.role.admin ? b.permission(mt.view, t) : 'true';
    return { from: `FROM unnest(ARRAY(SELECT "r" FROM "k0" ORDER BY "o")) AS ${t}${perm !== 'true' ? ` WHERE ${perm}` : ''}${limit}`, alias: t };
  };
  let out: string;
  if (one) {
    const { from, alias } = rows(' LIMIT 1');
    out = `(SELECT ${sc.objectJson(type, nodes, alias, path, mt.view)} ${from})`;
  } else {
    const pairs: [string, string][] = [];
    for (const [key, fns] of ctx.sel.subfields(nodes)) {
      const n = fns[0] as FieldNode;
      if (n.name.value === '__typename') pairs.push([key, `'${type.name}'::text`]);
      else if (n.name.value === 'affected_rows') pairs.push([key, `current_setting('engine.nia')::integer`]);
      else {
        const item = getNamedType(type.getFields()['returning']?.type) as GraphQLObjectType;
        const { from, alias } = rows('');
        pairs.push([key, `(SELECT coalesce(json_agg(${sc.objectJson(item, fns, alias, `${path}.selectionSet.${key}`, mt.view)}), '[]'::json) ${from})`]);
      }
    }
    out = jsonObject(pairs);
  }
  // Materialised: "m" is read twice below, and each read would evaluate every check again.
  ctes.push(`"f" AS MATERIALIZED (SELECT ${fails.length > 0 ? `coalesce(${fails.join(', ')})` : 'NULL::text'} AS "m")`);
  return `WITH ${ctes.join(', ')} SELECT CASE WHEN "m" IS NULL THEN (${out})::text END AS "root", CASE WHEN "m" IS NOT NULL THEN engine_catalog.raise_error('${CHECK_FAILED_STATE}', "m") END AS "fail" FROM "f"`;
}
