import { compileBoolExp, quoteIdent } from '../../bool-exp/compile.js';
import { hasVarRef, paramText, type GValue, type VarRef } from './values.js';
import type { PlanParam } from './bind.js';
import type { RemoteJoinSpec } from '../../remote-schemas/relationships.js';
import type { Json } from '../../../metadata/json.js';
import { boolExpTable } from '../../kinds/permissions.js';
import { boolExpSchema, type ResolvedTable, type SchemaCache } from '../../schema-cache.js';
import type { TableView } from '../schema/index.js';
import { STALE_PLAN_STATE, STORED_VERSION } from '../../catalog.js';
import { spatialFromText } from '../../bool-exp/operators.js';

/**
 * One statement under construction: its parameters ($1…$n in order of appearance) and fresh aliases. Every value
 * goes through `value`; the SQL text holds only catalog identifiers, type names and the engine's own keywords.
 */
/** The session's JSON text with every key under the incumbent's prefix (`x-engine-role` → `x-hasura-role`). */
export const hasuraUser = (session: string): string =>
  `coalesce((SELECT json_object_agg(regexp_replace("k", '^x-engine-', 'x-hasura-'), "v") FROM json_each_text(${session}::json) AS "e"("k", "v"))::text, '{}')`;

/** Parameter `n` as a value of `typeName`. */
const typedParam = (n: number, typeName: string): string => spatialFromText(`$${n}::text`, typeName) ?? `$${n}::${typeName}`;

export class StatementBuilder {
  readonly params: PlanParam[] = [];
  /** The remote relationships' fields of the statement (issue 35.3), joined after it runs. */
  readonly remoteJoins: RemoteJoinSpec[] = [];
  private aliases = 0;
  private readonly boolExpSchema;

  constructor(readonly cache: SchemaCache) {
    this.boolExpSchema = boolExpSchema(cache.tables);
  }

  /** A fresh table alias, already quoted. */
  alias(): string {
    return quoteIdent(`_t${this.aliases++}`);
  }

  /** `$n::<type>` bound to the text; `typeName` comes from the catalog (format_type), never from the request. */
  value(text: string | null, typeName: string): string {
    this.params.push({ kind: 'value', text });
    return typedParam(this.params.length, typeName);
  }

  /** A request value as `$n::<type>`: converted now, or when bound if it holds bound variables. */
  param(v: GValue, typeName: string): string {
    if (!hasVarRef(v)) return this.value(paramText(v, typeName), typeName);
    this.params.push({ kind: 'gvalue', value: v, typeName });
    return typedParam(this.params.length, typeName);
  }

  /** A limit or offset from a bound variable: negative values fail when bound; `cap` is the permission limit. */
  count(variable: VarRef, path: string, cap: number | null): string {
    this.params.push({ kind: 'count', variable, path, cap });
    return `$${this.params.length}::integer`;
  }

  /** A json/jsonb field's `path` from a bound variable: parsed (and rejected) when bound, as a text[] of its elements. */
  jsonPath(variable: VarRef, path: string): string {
    this.params.push({ kind: 'json-path', variable, path });
    return `$${this.params.length}::text[]`;
  }

  request(what: 'headers' | 'query', typeName: string): string {
    this.params.push({ kind: 'request', what });
    return `$${this.params.length}::${typeName}`;
  }

  sessionJson(typeName: string): string {
    this.params.push({ kind: 'session-json' });
    return `$${this.params.length}::${typeName}`;
  }

  /**
   * A one-row FROM item that a mutation statement is read through. Its row is produced before the projection that
   * runs the statement's writes, so it first records who writes, for triggers (engine-api.md §4.7.1, §5.3.1), and
   * aborts the statement if the metadata changed since the request was planned. Its columns are never read: volatile
   * expressions stay in the subquery (the planner keeps them).
   */
  guard(): string {
    const session = this.sessionJson('text');
    this.params.push({ kind: 'version' });
    const planned = `$${this.params.length}::integer`;
    // `hasura.user`: the incumbent's setting, read by its projects' functions and triggers with x-hasura- keys (issue 29.6).
    return `(SELECT set_config('engine.session_variables', ${session}, true) AS "s", set_config('hasura.user', ${hasuraUser(session)}, true) AS "h", ` +
      `CASE WHEN ${STORED_VERSION} IS DISTINCT FROM ${planned} THEN engine_catalog.raise_error('${STALE_PLAN_STATE}', 'stale plan') END AS "v") AS "_g"`;
  }

  /** A role's select filter on `alias` (already quoted); true for admin. */
  permission(view: TableView, alias: string): string {
    if (view.filter === null) return 'true';
    return this.boolExp(view.filter, view, alias);
  }

  boolExp(exp: Json, view: TableView, alias: string): string {
    return this.boolExpOn(exp, view.rt, alias);
  }

  /** A permission BoolExp (filter or check) on `alias` (already quoted) of a row of `rt`. */
  boolExpOn(exp: Json, rt: ResolvedTable, alias: string): string {
    const c = compileBoolExp(exp, boolExpTable(rt), alias.slice(1, -1), this.boolExpSchema, this.params.length);
    this.params.push(...c.params);
    return c.sql;
  }

  /**
   * Where a cell of an inherited role's union (TableView.cells) is visible on `row` (a quoted alias, or any row
   * expression of the table's type), or null when it is visible on every row the view shows.
   */
  cellCondition(view: TableView, key: string, row: string): string | null {
    const exp = view.cells?.get(key);
    if (exp === undefined) return null;
    if (/^"(?:[^"]|"")*"$/.test(row)) return `(${this.boolExpOn(exp, view.rt, row)})`;
    const x = this.alias();
    return `(SELECT ${this.boolExpOn(exp, view.rt, x)} FROM (SELECT (${row}).*) AS ${x})`;
  }

  /** `expr` (a cell of `row`), null where the view's role may not see that cell. */
  cell(view: TableView | null, key: string, row: string, expr: string): string {
    const c = view ? this.cellCondition(view, key, row) : null;
    return c ? `CASE WHEN ${c} THEN ${expr} END` : expr;
  }

  /** A session variable's value cast to `typeName`, bound per request (a missing one fails before any SQL runs). */
  session(name: string, typeName: string): string {
    this.params.push({ kind: 'session', name, array: false });
    return `$${this.params.length}::${typeName}`;
  }
}
