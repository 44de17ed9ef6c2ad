import type { Queryable } from '../db/database.js';
import { qnKey } from '../metadata/names.js';
import type { QualifiedName } from '../metadata/types.js';

/** What the engine knows of the live database: relations, their columns and foreign keys, and functions. */
export interface DbColumn {
  num: number;
  name: string;
  typeOid: string;
  /** format_type(type, NULL): how messages print it. */
  typeName: string;
  notNull: boolean;
  /** For a domain: format_type of its base type (GraphQL maps a domain like its base type); else null. */
  baseTypeName: string | null;
  /**
   * The type every value for this column is cast to: the column's type (a domain's innermost base type) without
   * its length or precision modifier (`bpchar`, never `character`, which is char(1)). A cast to `char(3)` would
   * silently truncate a longer operand; the modifier applies when PostgreSQL assigns the value to the column.
   */
  castType: string;
  /** A generated column or a GENERATED ALWAYS identity: never written by clients. */
  generated: boolean;
  comment: string | null;
}

/** A primary-key or unique constraint. */
export interface DbUnique {
  name: string;
  primary: boolean;
  columns: string[];
}

export interface DbForeignKey {
  name: string;
  refOid: string;
  columns: string[];
  refColumns: string[];
}

export interface DbTable {
  oid: string;
  schema: string;
  name: string;
  /** pg_class.relkind: r table, p partitioned, v view, m materialized view, f foreign table. */
  kind: string;
  /** pg_relation_is_updatable bitmask (views); 28 for ordinary tables. */
  updatable: number;
  columns: Map<string, DbColumn>;
  fks: DbForeignKey[];
  /** Primary-key and unique constraints, sorted by name. */
  uniques: DbUnique[];
  comment: string | null;
}

export interface DbFunctionArg {
  name: string;
  typeOid: string;
  typeName: string;
  /** The type a value for the argument is cast to (format_type without a modifier, as for columns). */
  castType: string;
  /** pg_type.typtype and typrelid of the argument's type (composite row types name their table). */
  typType: string;
  typRelid: string;
}

export interface DbFunction {
  oid: string;
  schema: string;
  name: string;
  /** i immutable, s stable, v volatile. */
  volatility: string;
  returnsSet: boolean;
  returnTypeOid: string;
  returnTypeName: string;
  /** pg_type.typtype of the return type: b base, c composite, d domain, e enum, p pseudo, r range, m multirange. */
  returnTypType: string;
  /** pg_type.typrelid of the return type: the table whose row type it is, '0' otherwise. */
  returnRelid: string;
  inputs: DbFunctionArg[];
  /** How many trailing input arguments have defaults (pg_proc.pronargdefaults). */
  numDefaults: number;
  comment: string | null;
}

export interface DbCatalog {
  /** Names of scalar types (base, enum, domain, range) in pg_catalog and public: usable as custom scalars. */
  scalarTypes: Set<string>;
  tables: Map<string, DbTable>;
  tablesByOid: Map<string, DbTable>;
  /** Functions by qualified name; more than one entry means the function is overloaded. */
  functions: Map<string, DbFunction[]>;
}

const USER_SCHEMAS = `n.nspname NOT IN ('pg_catalog', 'information_schema', 'engine_catalog')
  AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp\\_%'`;

/* One round trip builds the whole picture as JSON text: identical on both drivers (whose type parsers differ)
   and on PostgreSQL 13–18 (it reads only catalog columns that all of them have). */
const CATALOG_SQL = `
SELECT json_build_object(
  'tables', COALESCE((
    SELECT json_agg(json_build_object(
      'oid', c.oid::text, 'schema', n.nspname, 'name', c.relname, 'kind', c.relkind::text,
      'updatable', CASE
        WHEN c.relkind = 'v' THEN pg_relation_is_updatable(c.oid, false)
        -- PostgreSQL raises for a foreign table whose wrapper has no handler: such a table is not writable.
        WHEN c.relkind = 'f' THEN CASE WHEN (SELECT w.fdwhandler <> 0 FROM pg_foreign_table ft
               JOIN pg_foreign_server fs ON fs.oid = ft.ftserver JOIN pg_foreign_data_wrapper w ON w.oid = fs.srvfdw
              WHERE ft.ftrelid = c.oid) THEN pg_relation_is_updatable(c.oid, false) ELSE 0 END
        WHEN c.relkind = 'm' THEN 0 ELSE 28 END,
      'columns', COALESCE((
        SELECT json_agg(json_build_object('num', a.attnum, 'name', a.attname, 'typeOid', a.atttypid::text,
                        'typeName', format_type(a.atttypid, NULL), 'notNull', a.attnotnull,
                        'baseTypeName', CASE WHEN at.typtype = 'd' THEN format_type(at.typbasetype, NULL) END,
                        -- A typmod of -1 prints the unmodified type (bpchar, "bit"); a domain is followed to its base.
                        'castType', CASE WHEN at.typtype <> 'd' THEN format_type(a.atttypid, -1) ELSE
                          (WITH RECURSIVE d(t, k) AS (SELECT at.typbasetype, 0 UNION ALL
                             SELECT ty.typbasetype, d.k + 1 FROM d JOIN pg_type ty ON ty.oid = d.t WHERE ty.typtype = 'd')
                           SELECT format_type(d.t, -1) FROM d ORDER BY d.k DESC LIMIT 1) END,
                        'generated', a.attgenerated <> '' OR a.attidentity = 'a', 'comment', col_description(c.oid, a.attnum))
                        ORDER BY a.attnum)
        FROM pg_attribute a JOIN pg_type at ON at.oid = a.atttypid
        WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped), '[]'::json),
      'fks', COALESCE((
        SELECT json_agg(json_build_object('name', con.conname, 'refOid', con.confrelid::text,
                        'cols', con.conkey, 'refCols', con.confkey) ORDER BY con.conname)
        FROM pg_constraint con WHERE con.conrelid = c.oid AND con.contype = 'f'), '[]'::json),
      'uniques', COALESCE((
        SELECT json_agg(json_build_object('name', con.conname, 'primary', con.contype = 'p', 'cols', con.conkey) ORDER BY con.conname)
        FROM pg_constraint con WHERE con.conrelid = c.oid AND con.contype IN ('p', 'u')), '[]'::json),
      'comment', obj_description(c.oid, 'pg_class')))
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND ${USER_SCHEMAS} AND (%TABLE_FILTER%)), '[]'::json),
  'functions', COALESCE((
    SELECT json_agg(json_build_object(
      'oid', p.oid::text, 'schema', n.nspname, 'name', p.proname, 'volatility', p.provolatile::text,
      'returnsSet', p.proretset, 'returnTypeOid', p.prorettype::text, 'returnTypeName', format_type(p.prorettype, NULL),
      'returnTypType', t.typtype::text, 'returnRelid', t.typrelid::text,
      'argTypes', p.proargtypes::oid[]::text[],
      'argTypeNames', (SELECT json_agg(format_type(u.t, NULL) ORDER BY u.o) FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY u(t, o)),
      'argCastTypes', (SELECT json_agg(format_type(u.t, -1) ORDER BY u.o) FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY u(t, o)),
      'argTypeInfo', (SELECT json_agg(json_build_object('t', ty.typtype::text, 'r', ty.typrelid::text) ORDER BY u.o)
                      FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY u(t, o) JOIN pg_type ty ON ty.oid = u.t),
      'allArgTypes', p.proallargtypes::text[], 'argModes', p.proargmodes::text[], 'argNames', p.proargnames,
      'numDefaults', p.pronargdefaults, 'comment', obj_description(p.oid, 'pg_proc')))
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace JOIN pg_type t ON t.oid = p.prorettype
    WHERE p.prokind = 'f' AND ${USER_SCHEMAS} AND (%FUNCTION_FILTER%)), '[]'::json),
  'scalarTypes', (SELECT json_agg(DISTINCT t.typname) FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
    WHERE n.nspname IN ('pg_catalog', 'public') AND t.typtype IN ('b', 'e', 'd', 'r') AND t.typcategory <> 'A' AND %TYPES%)
)::text AS doc`;

interface RawTable {
  oid: string; schema: string; name: string; kind: string; updatable: number;
  columns: DbColumn[];
  fks: { name: string; refOid: string; cols: number[]; refCols: number[] }[];
  uniques: { name: string; primary: boolean; cols: number[] }[];
  comment: string | null;
}
interface RawFunction {
  oid: string; schema: string; name: string; volatility: string; returnsSet: boolean; returnTypeOid: string;
  returnTypeName: string; returnTypType: string; returnRelid: string; argTypes: string[]; argTypeNames: string[] | null;
  argCastTypes: string[] | null;
  argTypeInfo: { t: string; r: string }[] | null;
  allArgTypes: string[] | null; argModes: string[] | null; argNames: string[] | null;
  numDefaults: number; comment: string | null;
}

interface RawCatalog {
  tables: RawTable[];
  functions: RawFunction[];
  scalarTypes: string[] | null;
}

function inputArgs(f: RawFunction): DbFunctionArg[] {
  const names = f.argNames ?? [];
  const arg = (k: number, name: string): DbFunctionArg => ({
    name, typeOid: f.argTypes[k] ?? '', typeName: f.argTypeNames?.[k] ?? '', castType: f.argCastTypes?.[k] ?? f.argTypeNames?.[k] ?? '',
    typType: f.argTypeInfo?.[k]?.t ?? '', typRelid: f.argTypeInfo?.[k]?.r ?? '0',
  });
  if (!f.argModes) return f.argTypes.map((_, i) => arg(i, names[i] ?? ''));
  const out: DbFunctionArg[] = [];
  f.argModes.forEach((mode, j) => {
    if (mode === 'i' || mode === 'b' || mode === 'v') out.push(arg(out.length, names[j] ?? ''));
  });
  return out;
}

function build(rawTables: RawTable[], rawFunctions: RawFunction[], scalarTypes: string[], known?: DbCatalog): DbCatalog {
  const cat: DbCatalog = { scalarTypes: new Set(scalarTypes), tables: new Map(), tablesByOid: new Map(), functions: new Map() };
  const colNames = new Map<string, Map<number, string>>();
  // Foreign keys may reference tables that were not re-read: their column names come from the known snapshot.
  for (const t of known?.tablesByOid.values() ?? []) colNames.set(t.oid, new Map([...t.columns.values()].map((c) => [c.num, c.name])));
  for (const t of rawTables) colNames.set(t.oid, new Map(t.columns.map((c) => [c.num, c.name])));
  for (const t of rawTables) {
    const own = colNames.get(t.oid) ?? new Map<number, string>();
    const table: DbTable = {
      oid: t.oid, schema: t.schema, name: t.name, kind: t.kind, updatable: t.updatable,
      columns: new Map(t.columns.map((c) => [c.name, c])),
      fks: t.fks.map((fk) => {
        const ref = colNames.get(fk.refOid);
        return {
          name: fk.name, refOid: fk.refOid,
          columns: fk.cols.map((n) => own.get(n) ?? ''),
          refColumns: fk.refCols.map((n) => ref?.get(n) ?? ''),
        };
      }),
      uniques: t.uniques.map((u) => ({ name: u.name, primary: u.primary, columns: u.cols.map((n) => own.get(n) ?? '') })),
      comment: t.comment,
    };
    cat.tables.set(qnKey(table), table);
    cat.tablesByOid.set(table.oid, table);
  }
  for (const f of rawFunctions) {
    const fn: DbFunction = {
      oid: f.oid, schema: f.schema, name: f.name, volatility: f.volatility, returnsSet: f.returnsSet,
      returnTypeOid: f.returnTypeOid, returnTypeName: f.returnTypeName, returnTypType: f.returnTypType,
      returnRelid: f.returnRelid, inputs: inputArgs(f), numDefaults: f.numDefaults, comment: f.comment,
    };
    const key = qnKey(fn);
    const list = cat.functions.get(key) ?? [];
    list.push(fn);
    cat.functions.set(key, list);
  }
  return cat;
}

/** Reads the whole catalog of user schemas. */
export async function introspect(q: Queryable): Promise<DbCatalog> {
  const sql = CATALOG_SQL.replace('%TABLE_FILTER%', 'true').replace('%FUNCTION_FILTER%', 'true').replace('%TYPES%', 'true');
  const rows = await q.query<{ doc: string }>(sql);
  const doc = JSON.parse(rows[0]?.doc ?? '{}') as RawCatalog;
  return build(doc.tables, doc.functions, doc.scalarTypes ?? []);
}

/**
 * Refreshes only the named tables (and functions) in `cat`, plus the tables their foreign keys reference:
 * the cheap path for operations that touch a few objects, so that one change does not cost a full read.
 */
export async function refreshNames(q: Queryable, cat: DbCatalog, tables: QualifiedName[], functions: QualifiedName[] = []): Promise<DbCatalog> {
  if (tables.length === 0 && functions.length === 0) return cat;
  // An IN over the named pairs lets the planner use pg_class's and pg_proc's name indexes; both parameters are
  // always referenced (an empty list matches nothing), as the protocol wants every $n used.
  const filter = (_names: QualifiedName[], rel: string) =>
    `(n.nspname, ${rel}.${rel === 'c' ? 'relname' : 'proname'}) IN (SELECT e->>0, e->>1 FROM jsonb_array_elements($${rel === 'c' ? 1 : 2}::jsonb) e)`;
  const sql = CATALOG_SQL.replace('%TABLE_FILTER%', filter(tables, 'c')).replace('%FUNCTION_FILTER%', filter(functions, 'p')).replace('%TYPES%', 'false');
  const rows = await q.query<{ doc: string }>(sql, [
    JSON.stringify(tables.map((t) => [t.schema, t.name])),
    JSON.stringify(functions.map((f) => [f.schema, f.name])),
  ]);
  const doc = JSON.parse(rows[0]?.doc ?? '{}') as RawCatalog;
  const fresh = build(doc.tables, doc.functions, [], cat);
  if (unchanged(cat, fresh, tables, functions)) return cat;
  const next: DbCatalog = { scalarTypes: cat.scalarTypes, tables: new Map(cat.tables), tablesByOid: new Map(cat.tablesByOid), functions: new Map(cat.functions) };
  for (const t of tables) {
    const old = next.tables.get(qnKey(t));
    if (old) {
      next.tables.delete(qnKey(t));
      next.tablesByOid.delete(old.oid);
    }
  }
  for (const f of functions) next.functions.delete(qnKey(f));
  for (const t of fresh.tables.values()) {
    next.tables.set(qnKey(t), t);
    next.tablesByOid.set(t.oid, t);
  }
  for (const [k, v] of fresh.functions) next.functions.set(k, v);
  return next;
}

const tableSig = (t: DbTable | undefined): string =>
  t ? JSON.stringify([t.oid, t.schema, t.name, t.kind, t.updatable, [...t.columns.values()], t.fks, t.uniques, t.comment]) : '';

/** True when re-reading the named objects found them exactly as the snapshot has them: keep the snapshot. */
function unchanged(cat: DbCatalog, fresh: DbCatalog, tables: QualifiedName[], functions: QualifiedName[]): boolean {
  return tables.every((t) => tableSig(cat.tables.get(qnKey(t))) === tableSig(fresh.tables.get(qnKey(t)))) &&
    functions.every((f) => JSON.stringify(cat.functions.get(qnKey(f)) ?? null) === JSON.stringify(fresh.functions.get(qnKey(f)) ?? null));
}
