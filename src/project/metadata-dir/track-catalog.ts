import type { EngineClient } from '../../client/engine-client.js';
import { CliError } from '../../errors.js';

/**
 * What `metadata track` reads of the database: relations, foreign keys and functions of every user schema, in one
 * read-only `run_sql` (issue 19 item 4). The query takes no input at all — schemas are chosen afterwards — so no value
 * is ever put into SQL text; objects that belong to an extension, and the engine's own catalog, are left out.
 */

export interface CatalogRelation {
  schema: string;
  name: string;
  /** pg_class.relkind: r table, p partitioned, v view, m materialized view, f foreign table. */
  kind: string;
  columns: string[];
}

export interface CatalogForeignKey {
  name: string;
  schema: string;
  table: string;
  ref_schema: string;
  ref_table: string;
  columns: string[];
  ref_columns: string[];
}

export interface CatalogFunction {
  schema: string;
  name: string;
  /** pg_proc.provolatile: i, s or v. */
  volatile: string;
  retset: boolean;
  ret_schema: string | null;
  ret_table: string | null;
  overloads: number;
}

export interface Catalog {
  relations: CatalogRelation[];
  fkeys: CatalogForeignKey[];
  functions: CatalogFunction[];
}

const USER_SCHEMA = (n: string) => `${n}.nspname NOT IN ('pg_catalog', 'information_schema', 'engine_catalog', 'pg_toast') AND ${n}.nspname NOT LIKE 'pg\\_%'`;
const NOT_EXTENSION = (oid: string) => `NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = ${oid} AND d.deptype = 'e')`;
const columnsOf = (rel: string, keys: string) =>
  `(SELECT json_agg(a.attname ORDER BY u.i) FROM unnest(${keys}) WITH ORDINALITY u(attnum, i) JOIN pg_attribute a ON a.attrelid = ${rel} AND a.attnum = u.attnum)`;

export const CATALOG_QUERY = `SELECT json_build_object(
  'relations', (SELECT coalesce(json_agg(json_build_object('schema', n.nspname, 'name', c.relname, 'kind', c.relkind,
      'columns', (SELECT coalesce(json_agg(a.attname ORDER BY a.attnum), '[]') FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped))
      ORDER BY n.nspname, c.relname), '[]')
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND NOT c.relispartition AND ${USER_SCHEMA('n')} AND ${NOT_EXTENSION('c.oid')}),
  'fkeys', (SELECT coalesce(json_agg(json_build_object('name', k.conname, 'schema', n.nspname, 'table', c.relname,
      'ref_schema', rn.nspname, 'ref_table', rc.relname, 'columns', ${columnsOf('k.conrelid', 'k.conkey')}, 'ref_columns', ${columnsOf('k.confrelid', 'k.confkey')})
      ORDER BY n.nspname, c.relname, k.conname), '[]')
    FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
    JOIN pg_class rc ON rc.oid = k.confrelid JOIN pg_namespace rn ON rn.oid = rc.relnamespace
    WHERE k.contype = 'f' AND NOT c.relispartition AND ${USER_SCHEMA('n')}),
  'functions', (SELECT coalesce(json_agg(json_build_object('schema', n.nspname, 'name', p.proname, 'volatile', p.provolatile, 'retset', p.proretset,
      'ret_schema', (SELECT rn.nspname FROM pg_class r JOIN pg_namespace rn ON rn.oid = r.relnamespace WHERE r.oid = t.typrelid),
      'ret_table', (SELECT r.relname FROM pg_class r WHERE r.oid = t.typrelid),
      'overloads', (SELECT count(*) FROM pg_proc p2 WHERE p2.pronamespace = p.pronamespace AND p2.proname = p.proname))
      ORDER BY n.nspname, p.proname), '[]')
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace JOIN pg_type t ON t.oid = p.prorettype
    WHERE p.prokind = 'f' AND ${USER_SCHEMA('n')} AND ${NOT_EXTENSION('p.oid')})
)::text`;

export async function readCatalog(client: Pick<EngineClient, 'runSql'>): Promise<Catalog> {
  const r = await client.runSql(CATALOG_QUERY, { readOnly: true });
  const text = r.result_type === 'TuplesOk' ? r.result[1]?.[0] : undefined;
  if (typeof text !== 'string') throw new CliError('invalid-response', 'unexpected answer to the catalog query of metadata track', 1);
  return JSON.parse(text) as Catalog;
}
