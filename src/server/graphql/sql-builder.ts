import { bindParams, compileBoolExp, quoteIdent, type Param } from '../bool-exp/compile.js';
import type { Json } from '../../metadata/json.js';
import { compareCodePoints } from '../../metadata/json.js';
import { boolExpTable } from '../kinds/permissions.js';
import { boolExpSchema, type SchemaCache } from '../schema-cache.js';
import type { TableView } from './visibility.js';

/** A parameter of a compiled statement: a BoolExp parameter, or the whole session-variables object. */
export type PlanParam = Param | { kind: 'session-json' };

/**
 * One statement under construction: its parameters ($1…$n in order of appearance) and fresh aliases. Every value
 * goes through `value`; the SQL text holds only catalog identifiers, type names and the engine's own keywords.
 */
export class StatementBuilder {
  readonly params: PlanParam[] = [];
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
    return `$${this.params.length}::${typeName}`;
  }

  sessionJson(typeName: string): string {
    this.params.push({ kind: 'session-json' });
    return `$${this.params.length}::${typeName}`;
  }

  /** A role's select filter on `alias` (already quoted); true for admin. */
  permission(view: TableView, alias: string): string {
    if (view.filter === null) return 'true';
    return this.boolExp(view.filter, view, alias);
  }

  boolExp(exp: Json, view: TableView, alias: string): string {
    const c = compileBoolExp(exp, boolExpTable(view.rt), alias.slice(1, -1), this.boolExpSchema, this.params.length);
    this.params.push(...c.params);
    return c.sql;
  }
}

/** The session variables as one JSON object, keys in code-point order (engine-api.md §2.4). */
export function sessionJsonText(session: Record<string, string>): string {
  return JSON.stringify(Object.fromEntries(Object.keys(session).sort(compareCodePoints).map((k) => [k, session[k]])));
}

/** Binds a statement's parameters for one request; throws `missing session variable` (§4.2). */
export function bind(params: PlanParam[], session: Record<string, string>): (string | null)[] {
  const json = sessionJsonText(session);
  return bindParams(params.map((p) => (p.kind === 'session-json' ? { kind: 'value' as const, text: json } : p)), session);
}
