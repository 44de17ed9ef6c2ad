import type { JsonObject } from '../../metadata/json.js';
import type { Seed } from './format.js';

/**
 * The data of an ephemeral engine as the project's seeds left it, kept in a schema of its own so a case that wrote
 * can be undone: `restore()` empties every user table and copies the rows back, and puts every sequence back where it
 * was — one transaction, no triggers fired (session_replication_role = replica: event triggers do not
 * see the restore, foreign keys are not re-checked for rows that were consistent when copied).
 * Tables of up to SMALL rows in the snapshot are emptied with DELETE, larger ones with TRUNCATE: on the embedded
 * database a TRUNCATE gives the table and its indexes new files (a restore of the example's two tables cost 15–20 ms
 * of CPU, 4 with DELETE, and a writing case needs one). The dead rows DELETE leaves are few and pruned as pages fill.
 */
const SMALL = 1000;
const SCHEMA = 'engine_test_snapshot';

const TAKE = `
CREATE SCHEMA ${SCHEMA};
CREATE TABLE ${SCHEMA}.tables (n int PRIMARY KEY, rel regclass NOT NULL, cols text NOT NULL, small boolean NOT NULL DEFAULT true);
CREATE TABLE ${SCHEMA}.sequences (seq regclass NOT NULL, last_value bigint, is_called boolean NOT NULL);
DO $$ DECLARE r record; i int := 0; BEGIN
  FOR r IN SELECT c.oid::regclass AS rel,
      (SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum) FROM pg_attribute a
        WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = '') AS cols
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition
      AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'engine_catalog', '${SCHEMA}')
      AND n.nspname NOT LIKE 'pg\\_%' LOOP
    i := i + 1;
    EXECUTE format('CREATE TABLE ${SCHEMA}.%I AS SELECT %s FROM %s', 't' || i, r.cols, r.rel);
    INSERT INTO ${SCHEMA}.tables VALUES (i, r.rel, r.cols);
    EXECUTE format('UPDATE ${SCHEMA}.tables SET small = (SELECT count(*) <= ${SMALL} FROM ${SCHEMA}.%I) WHERE n = %s', 't' || i, i);
  END LOOP;
  INSERT INTO ${SCHEMA}.sequences
    SELECT format('%I.%I', s.schemaname, s.sequencename)::regclass, s.last_value, s.last_value IS NOT NULL
    FROM pg_sequences s WHERE s.schemaname NOT IN ('engine_catalog', '${SCHEMA}');
END $$;
CREATE FUNCTION ${SCHEMA}.restore() RETURNS void LANGUAGE plpgsql AS $f$
DECLARE r record; all_tables text; BEGIN
  SET LOCAL session_replication_role = replica;
  -- CASCADE: a table referencing a large one is emptied with it (it is refilled below like every table).
  SELECT string_agg(rel::text, ', ') INTO all_tables FROM ${SCHEMA}.tables WHERE NOT small;
  IF all_tables IS NOT NULL THEN EXECUTE 'TRUNCATE ' || all_tables || ' CASCADE'; END IF;
  FOR r IN SELECT * FROM ${SCHEMA}.tables WHERE small LOOP
    EXECUTE format('DELETE FROM %s', r.rel);
  END LOOP;
  FOR r IN SELECT * FROM ${SCHEMA}.tables ORDER BY n LOOP
    EXECUTE format('INSERT INTO %s (%s) OVERRIDING SYSTEM VALUE SELECT %s FROM ${SCHEMA}.%I', r.rel, r.cols, r.cols, 't' || r.n);
  END LOOP;
  FOR r IN SELECT * FROM ${SCHEMA}.sequences LOOP
    IF r.is_called THEN PERFORM setval(r.seq, r.last_value, true);
    ELSE PERFORM setval(r.seq, (SELECT seqstart FROM pg_sequence WHERE seqrelid = r.seq), false); END IF;
  END LOOP;
END $f$;
`;

/** `sql` runs a script in one transaction. */
export async function takeSnapshot(sql: (script: string) => Promise<void>): Promise<void> {
  await sql(TAKE);
}

export async function restoreSnapshot(sql: (script: string) => Promise<void>): Promise<void> {
  await sql(`SELECT ${SCHEMA}.restore()`);
}

const quoteIdent = (s: string): string => `"${s.replace(/"/g, '""')}"`;
const quoteLiteral = (s: string): string => `'${s.replace(/'/g, "''")}'`;

/** `schema.table` or `table` (schema public) as a quoted name. */
export function tableName(name: string): string {
  const dot = name.indexOf('.');
  return dot < 0 ? `${quoteIdent('public')}.${quoteIdent(name)}` : `${quoteIdent(name.slice(0, dot))}.${quoteIdent(name.slice(dot + 1))}`;
}

/**
 * The SQL of a seed. Rows go through json_populate_recordset: the values are one JSON literal (quoted, never spliced
 * into SQL), the table and column names quoted identifiers; columns a row leaves out take their defaults.
 */
export function seedSql(seed: Seed): string {
  if ('sql' in seed) return seed.sql;
  const statements: string[] = [];
  for (const [table, rows] of Object.entries(seed.rows)) {
    if (rows.length === 0) continue;
    const t = tableName(table);
    // Rows with the same keys go together: a missing key must mean the default, not NULL.
    const groups = new Map<string, JsonObject[]>();
    for (const row of rows) {
      const key = JSON.stringify(Object.keys(row).sort());
      groups.set(key, [...(groups.get(key) ?? []), row]);
    }
    for (const group of groups.values()) {
      const cols = Object.keys(group[0] ?? {}).map(quoteIdent).join(', ');
      if (cols === '') {
        statements.push(...group.map(() => `INSERT INTO ${t} DEFAULT VALUES`));
        continue;
      }
      statements.push(`INSERT INTO ${t} (${cols}) SELECT ${cols} FROM json_populate_recordset(NULL::${t}, ${quoteLiteral(JSON.stringify(group))})`);
    }
  }
  return statements.join(';\n');
}
