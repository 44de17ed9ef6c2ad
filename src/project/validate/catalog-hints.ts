import type { EngineClient } from '../../client/engine-client.js';
import { isObject, type JsonObject } from '../../metadata/json.js';
import { didYouMean } from './core.js';
import type { Position } from '../problems.js';
import { objectLines } from '../source-lines.js';

/**
 * "Did you mean" for the engine's errors that name an unknown column, table, function or type (issue 19 item 1): the
 * candidates come from the live database the engine sees, read once with a read-only run_sql, and only when an error
 * needs them.
 */

/** Names the engine's messages use: `"t"` in public, `"s.t"` elsewhere (engine qnQuoted). */
const shown = (schema: string, name: string): string => (schema === 'public' ? name : `${schema}.${name}`);

// Fixed text: the catalogs of every user schema; no value is pasted in.
const CATALOG_SQL = `SELECT 'c', table_schema, table_name, column_name FROM information_schema.columns
  WHERE table_schema NOT IN ('pg_catalog', 'information_schema', 'engine_catalog') AND table_schema NOT LIKE 'pg\\_%'
UNION ALL SELECT 't', table_schema, table_name, '' FROM information_schema.tables
  WHERE table_schema NOT IN ('pg_catalog', 'information_schema', 'engine_catalog') AND table_schema NOT LIKE 'pg\\_%'
UNION ALL SELECT 'f', n.nspname, p.proname, '' FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
  WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'engine_catalog') AND n.nspname NOT LIKE 'pg\\_%'`;

export interface LiveCatalog {
  columns: Map<string, string[]>;
  tables: string[];
  functions: string[];
}

export async function readLiveCatalog(client: EngineClient): Promise<LiveCatalog> {
  const r = await client.runSql(CATALOG_SQL, { readOnly: true });
  const cat: LiveCatalog = { columns: new Map(), tables: [], functions: [] };
  if (r.result_type !== 'TuplesOk') return cat;
  for (const [kind, schema, name, column] of r.result.slice(1)) {
    const t = shown(schema ?? '', name ?? '');
    if (kind === 'c') cat.columns.set(t, [...(cat.columns.get(t) ?? []), column ?? '']);
    else if (kind === 't') cat.tables.push(t);
    else cat.functions.push(t);
  }
  return cat;
}

const GRAPHQL_SCALARS = ['Boolean', 'Float', 'ID', 'Int', 'String'];

/** The custom type names of a metadata document: with the built-in scalars, what an action's field may use. */
function documentTypes(doc: JsonObject): string[] {
  const ct = isObject(doc['custom_types']) ? doc['custom_types'] : {};
  return ['scalars', 'enums', 'objects', 'input_objects'].flatMap((k) =>
    (Array.isArray(ct[k]) ? ct[k] : []).flatMap((t) => (isObject(t) && typeof t['name'] === 'string' ? [t['name']] : [])));
}

const UNKNOWN: { re: RegExp; candidates: (m: RegExpExecArray, c: LiveCatalog, doc: JsonObject) => string[] }[] = [
  { re: /column (?:or relationship )?"([^"]+)" does not exist in table "([^"]+)"/, candidates: (m, c) => c.columns.get(m[2] as string) ?? [] },
  { re: /column "([^"]+)" of remote table "([^"]+)"/, candidates: (m, c) => c.columns.get(m[2] as string) ?? [] },
  { re: /no such table\/view exists in postgres : "([^"]+)"/, candidates: (_m, c) => c.tables },
  { re: /table "([^"]+)" does not exist/, candidates: (_m, c) => c.tables },
  { re: /no such function exists in postgres : "([^"]+)"/, candidates: (_m, c) => c.functions },
  { re: /the type "([^"]+)" for field/, candidates: (_m, _c, doc) => [...GRAPHQL_SCALARS, ...documentTypes(doc)] },
];

/** The unknown name an engine message is about, if it is one of the kinds above. */
export function unknownName(reason: string): string | undefined {
  for (const u of UNKNOWN) {
    const m = u.re.exec(reason);
    if (m) return m[1];
  }
  return undefined;
}

/** ` (did you mean "x"?)` for a reason naming an unknown object, from the live catalog; '' otherwise. */
export function catalogHint(reason: string, catalog: LiveCatalog, doc: JsonObject): string {
  for (const u of UNKNOWN) {
    const m = u.re.exec(reason);
    if (m) return didYouMean(m[1] as string, u.candidates(m, catalog, doc).filter((c) => c !== m[1]));
  }
  return '';
}

/**
 * The position of `word` (the unknown name) inside the object's own lines, which start at `at`: the error points at the
 * offending value rather than the start of the object, when the object's text contains it as a whole word.
 */
export function positionOfWord(lines: string[], at: Position, word: string): Position {
  const own = objectLines(lines, at.line);
  const re = new RegExp(`(?<![A-Za-z0-9_])${word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![A-Za-z0-9_])`);
  for (let i = 0; i < own.length; i++) {
    const m = re.exec(own[i] as string);
    if (m) return { file: at.file, line: at.line + i, column: m.index + 1 };
  }
  return at;
}
