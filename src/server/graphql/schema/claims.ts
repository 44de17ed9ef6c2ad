import { specifiedScalarTypes } from 'graphql';
import { compareCodePoints } from '../../../metadata/json.js';
import { qnKey } from '../../../metadata/names.js';
import { sortedFunctions, sortedTables } from '../../../metadata/document.js';
import type { Action, FunctionEntry } from '../../../metadata/types.js';
import type { DbFunction } from '../../db-catalog.js';
import { functionId } from '../../kinds/functions.js';
import type { SchemaCache } from '../../schema-cache.js';
import { memoByObject } from './memo.js';
import { gqlName, isGraphqlName } from './names.js';
import { rootFieldNames, tableNames } from './table-names.js';
import { fnArgs, type FnArgs } from './visibility.js';

/** Which tables, functions and actions keep their names (graphql-api.md §2.2: the first in order wins). */

/** The suffixes of the types generated for a table `T` (`T` itself included). */
export const TABLE_TYPES = ['', '_aggregate', '_aggregate_fields', '_sum_fields', '_avg_fields', '_max_fields', '_min_fields', '_bool_exp',
  '_order_by', '_select_column', '_insert_input', '_set_input', '_inc_input', '_pk_columns_input', '_on_conflict', '_constraint',
  '_update_column', '_mutation_response'];

/** `r` with `a = r + b` for two suffixes: `T + a = T' + b` exactly when `T' = T + r` (or the converse). */
const DIFFS = [...new Set(TABLE_TYPES.flatMap((a) => TABLE_TYPES.filter((b) => b !== a && a.endsWith(b)).map((b) => a.slice(0, a.length - b.length))))];

/**
 * The type names taken so far. A table's eighteen names are never built: `T + a` collides with a claimed `T' + b`
 * only when `T` and `T'` differ by one of DIFFS, and with a single name `X` only when `X` is `T` plus a suffix.
 */
export class TypeNames {
  /** Claimed tables' `T`. */
  private readonly stems = new Set<string>();
  /** `T` minus a DIFF, for claimed `T` that end with it: a new table named so collides. */
  private readonly shorter = new Set<string>();
  /** Single names (reserved, `F_args`, `A_async_result`). */
  private readonly singles = new Set<string>();
  /** Single names minus each suffix they end with: a table named so would generate them. */
  private readonly singleStems = new Set<string>();

  constructor(reserved: string[]) {
    for (const n of reserved) this.addSingle(n);
  }

  tableFree(t: string): boolean {
    if (this.stems.has(t) || this.shorter.has(t) || this.singleStems.has(t)) return false;
    for (const r of DIFFS) if (t.length > r.length && t.endsWith(r) && this.stems.has(t.slice(0, t.length - r.length))) return false;
    return true;
  }

  addTable(t: string): void {
    this.stems.add(t);
    for (const r of DIFFS) if (t.length > r.length && t.endsWith(r)) this.shorter.add(t.slice(0, t.length - r.length));
  }

  singleFree(x: string): boolean {
    if (this.singles.has(x)) return false;
    for (const s of TABLE_TYPES) if (x.length > s.length && x.endsWith(s) && this.stems.has(x.slice(0, x.length - s.length))) return false;
    return true;
  }

  addSingle(x: string): void {
    this.singles.add(x);
    for (const s of TABLE_TYPES) if (x.length > s.length && x.endsWith(s)) this.singleStems.add(x.slice(0, x.length - s.length));
  }
}

export interface TrackedFunction { entry: FunctionEntry; fn: DbFunction; name: string; args: FnArgs; returns: string }

export interface Claims {
  tables: Set<string>;
  functions: TrackedFunction[];
  actions: Action[];
  /**
   * Computed fields (`<table key> <name>`) left out of every schema: their `F_args` type is named like a generated
   * type, or like the `F_args` of a tracked function or computed field with other arguments (issue 27).
   */
  hiddenCfs: Set<string>;
  /**
   * Computed fields whose `F_args` name is another function's with other arguments: their type is the incumbent's
   * `<computed field>_<table>_args` instead (a function tracked and also a computed field, issue 30).
   */
  cfArgTypes: Map<string, string>;
  /** Whether a type name is generated for a claimed table, function or action (a scalar must not take it). */
  typeTaken(name: string): boolean;
}

export const cfClaimKey = (tableKey: string, name: string): string => `${tableKey} ${name}`;

/** What makes two `F_args` types equal: their fields, types and required flags. */
const argsSignature = (a: FnArgs): string => JSON.stringify(a.args.map((x) => [x.arg.name, x.arg.typeName, x.required]));

function claims(cache: SchemaCache): Claims {
  const roots = new Set<string>(['no_queries_available']);
  const types = new TypeNames(['query_root', 'mutation_root', 'order_by', ...specifiedScalarTypes.map((s) => s.name)]);
  const rootsFree = (rs: string[]): boolean => rs.every((r) => !roots.has(r));
  const takeRoots = (rs: string[]): void => rs.forEach((r) => roots.add(r));
  const tables = new Set<string>();
  for (const entry of sortedTables(cache.metadata)) {
    const key = qnKey(entry.table);
    const names = tableNames(entry);
    const name = names.type;
    if (!cache.tables.has(key) || !isGraphqlName(name)) continue;
    const rs = rootFieldNames(names);
    if (!rootsFree(rs) || !types.tableFree(name)) continue;
    takeRoots(rs);
    types.addTable(name);
    tables.add(key);
  }
  const functions: TrackedFunction[] = [];
  /** `F_args` names taken, with the signature of their fields (equal arguments share one type). */
  const argTypes = new Map<string, string>();
  for (const entry of sortedFunctions(cache.metadata)) {
    const fn = cache.catalog.functions.get(qnKey(entry.function))?.[0];
    const name = gqlName(entry.function);
    if (!fn || cache.inconsistentIds.has(functionId(entry.function)) || !isGraphqlName(name)) continue;
    const returned = cache.catalog.tablesByOid.get(fn.returnRelid);
    const args = fnArgs(fn, null, entry.configuration.session_argument);
    if (!returned || !args || !tables.has(qnKey(returned))) continue;
    const rs = [name, `${name}_aggregate`];
    if (!rootsFree(rs) || !types.singleFree(`${name}_args`)) continue;
    takeRoots(rs);
    types.addSingle(`${name}_args`);
    argTypes.set(`${name}_args`, argsSignature(args));
    functions.push({ entry, fn, name, args, returns: qnKey(returned) });
  }
  const hiddenCfs = new Set<string>();
  const cfArgTypes = new Map<string, string>();
  for (const entry of sortedTables(cache.metadata)) {
    const key = qnKey(entry.table);
    const rt = cache.tables.get(key);
    if (!rt || !tables.has(key)) continue;
    for (const def of [...entry.computed_fields].sort((a, b) => compareCodePoints(a.name, b.name))) {
      const cf = rt.computedFields.get(def.name);
      const args = cf && fnArgs(cf.fn, def.definition.table_argument, def.definition.session_argument);
      if (!args || args.args.length === 0) continue;
      const n = `${gqlName(def.definition.function)}_args`;
      const sig = argsSignature(args);
      const known = argTypes.get(n);
      if (known === undefined && types.singleFree(n)) {
        types.addSingle(n);
        argTypes.set(n, sig);
      } else if (known !== sig) {
        const own = `${def.name}_${tableNames(entry).type}_args`;
        if (argTypes.get(own) === undefined && types.singleFree(own) && isGraphqlName(own)) {
          types.addSingle(own);
          argTypes.set(own, sig);
          cfArgTypes.set(cfClaimKey(key, def.name), own);
        } else hiddenCfs.add(cfClaimKey(key, def.name));
      }
    }
  }
  const actions: Action[] = [];
  for (const a of [...cache.metadata.actions.values()].sort((x, y) => compareCodePoints(x.name, y.name))) {
    if (!cache.consistentActions.has(a.name)) continue;
    const ts = a.definition.kind === 'asynchronous' ? [`${a.name}_async_result`] : [];
    if (!rootsFree([a.name]) || !ts.every((t) => types.singleFree(t))) continue;
    takeRoots([a.name]);
    ts.forEach((t) => types.addSingle(t));
    actions.push(a);
  }
  return { tables, functions, actions, hiddenCfs, cfArgTypes, typeTaken: (name) => !types.singleFree(name) };
}

/** The claims depend only on the schema cache: computed once for all its roles. */
export const cachedClaims = memoByObject(claims);
