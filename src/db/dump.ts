import { execFile } from 'node:child_process';
import type { Database } from './database.js';

/** Why a dump could not be made: the engine answers it as a client error naming what is missing. */
export class DumpUnavailableError extends Error {}

/** The options a caller may pass to pg_dump: schema selection and what to leave out, nothing that names a file. */
const FLAGS = new Set(['-O', '--no-owner', '-x', '--no-privileges', '-s', '--schema-only', '-a', '--data-only', '--inserts', '--column-inserts', '--clean', '--if-exists']);
const WITH_VALUE = new Set(['-n', '--schema', '-N', '--exclude-schema', '-t', '--table', '-T', '--exclude-table']);

/**
 * Checks pg_dump options against an allow list: `-f`, `--dbname` and friends would let a caller write files or reach
 * another database. Answers the options in `--flag=value` form, or throws with the first one refused.
 */
export function dumpOptions(opts: unknown): string[] {
  if (!Array.isArray(opts) || !opts.every((o) => typeof o === 'string')) throw new TypeError('"opts" must be a list of strings');
  const out: string[] = [];
  for (let i = 0; i < opts.length; i++) {
    const o = opts[i] as string;
    const eq = o.indexOf('=');
    const flag = o.startsWith('--') && eq > 0 ? o.slice(0, eq) : o;
    if (FLAGS.has(o)) out.push(o);
    else if (WITH_VALUE.has(flag) && eq > 0) out.push(o);
    else if (WITH_VALUE.has(o) && i + 1 < opts.length) out.push(o, opts[++i] as string);
    else throw new TypeError(`pg_dump option "${o}" is not allowed`);
  }
  return out;
}

/** Session settings pg_dump changes (pg_dump.c, setup_connection). */
const PG_DUMP_SETTINGS = ['DateStyle', 'IntervalStyle', 'extra_float_digits', 'synchronize_seqscans', 'statement_timeout', 'lock_timeout',
  'idle_in_transaction_session_timeout', 'transaction_timeout', 'row_security', 'client_encoding',
  // pg_dump 17.6 forbids expanding views not in pg_catalog (CVE-2024-7348): left set, every view would be unreadable.
  'restrict_nonsystem_relation_kind'];

const run = (file: string, args: string[]): Promise<string> =>
  new Promise((resolve, reject) => {
    execFile(file, args, { maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (!error) return resolve(stdout);
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        return reject(new DumpUnavailableError('pg_dump was not found on the PATH of the engine; install the PostgreSQL client tools (the version of the server or newer)'));
      }
      reject(new DumpUnavailableError(`pg_dump failed: ${stderr.trim() || error.message}`));
    });
  });

/**
 * The database as SQL, by pg_dump: on the embedded database the WebAssembly pg_dump of @electric-sql/pglite-tools,
 * which talks to the same PGlite instance; on PostgreSQL the `pg_dump` found on the PATH.
 */
export async function dumpDatabase(db: Database, args: string[]): Promise<string> {
  // The embedded worker runs this very function on its own PgliteDatabase.
  const { PgliteWorkerDatabase } = await import('./pglite-remote.js');
  if (db instanceof PgliteWorkerDatabase) return db.dump(args);
  // PGlite's module only when the database is PGlite in this thread (the embedded worker's own call).
  const { PgliteDatabase } = db.kind === 'embedded' ? await import('./pglite.js') : { PgliteDatabase: null };
  if (PgliteDatabase && db instanceof PgliteDatabase) {
    const { pgDump } = await import('@electric-sql/pglite-tools/pg_dump');
    const pg = db.instance;
    const searchPath = (await pg.query<{ search_path: string }>('SHOW search_path')).rows[0]?.search_path ?? 'public';
    try {
      const file = await pgDump({ pg, args }).catch((e: unknown) => {
        throw new DumpUnavailableError(e instanceof Error ? e.message : String(e));
      });
      return await file.text();
    } finally {
      // pg_dump never ends its read-only transaction (it disconnects; the one PGlite session stays) and sets these
      // for its session: without this, the engine's next write would fail as read-only.
      await pg.exec(`ROLLBACK; ${PG_DUMP_SETTINGS.map((s) => `RESET ${s}`).join('; ')}`);
      await pg.query("SELECT set_config('search_path', $1, false)", [searchPath]);
    }
  }
  // pg only for an external database: the embedded engine does not import it.
  const { PostgresDatabase } = await import('./postgres.js');
  if (db instanceof PostgresDatabase) return run('pg_dump', [...args, `--dbname=${db.connectionUrl}`]);
  throw new DumpUnavailableError('this database cannot be dumped');
}

/**
 * The dump without what only a restore into an empty cluster needs: comments, session settings, the `public` schema
 * that every database has, and psql meta-commands (`\restrict`) that the engine's SQL runner would reject.
 */
export function cleanDump(sql: string): string {
  const kept = sql.split('\n').filter((line) => !(
    line.startsWith('--') || line.startsWith('\\') || /^SET [a-z_]+ = .*;$/.test(line) ||
    /^SELECT pg_catalog\.set_config\('search_path', '', false\);$/.test(line) ||
    line === 'CREATE SCHEMA public;' || /^COMMENT ON SCHEMA public IS /.test(line)
  ));
  return `${kept.join('\n').replace(/\n{3,}/g, '\n\n').trim()}\n`;
}
