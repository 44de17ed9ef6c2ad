import { describe, expect, it } from 'vitest';
import { cleanDump, dumpOptions } from '../../src/db/dump.js';

// What POST /v1alpha1/pg_dump lets a caller pass to pg_dump, and what clean_output removes.

describe('pg_dump options', () => {
  it('accepts schema and table selection and the leave-out flags', () => {
    expect(dumpOptions(['-O', '-x', '--schema-only', '--schema', 'app', '--schema=public', '-n', 'x', '--exclude-schema=engine_catalog', '--data-only', '--table=t']))
      .toEqual(['-O', '-x', '--schema-only', '--schema', 'app', '--schema=public', '-n', 'x', '--exclude-schema=engine_catalog', '--data-only', '--table=t']);
  });

  it('refuses anything that names a file or another database', () => {
    for (const opts of [['-f', '/tmp/x'], ['--file=/tmp/x'], ['--dbname=postgres://other'], ['-h', 'elsewhere'], ['--schema']]) {
      expect(() => dumpOptions(opts), JSON.stringify(opts)).toThrow(/is not allowed/);
    }
    expect(() => dumpOptions('-O')).toThrow('"opts" must be a list of strings');
  });

  it('clean output keeps the statements, not the session settings, comments or the public schema', () => {
    const dump = "--\n-- PostgreSQL database dump\n--\n\\restrict abc\nSET statement_timeout = 0;\nSELECT pg_catalog.set_config('search_path', '', false);\n\nCREATE SCHEMA public;\n\nCOMMENT ON SCHEMA public IS 'standard public schema';\n\n\n\nCREATE TABLE public.t (\n    id integer\n);\n\\unrestrict abc\n";
    expect(cleanDump(dump)).toBe('CREATE TABLE public.t (\n    id integer\n);\n');
  });
});
