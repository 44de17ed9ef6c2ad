import { ApiError } from '../../errors.js';
import type { Json } from '../../metadata/json.js';
import { pgErrorInfo } from '../../db/database.js';

/** A GraphQL error (graphql-api.md §1.5, §6.1): HTTP 200 with a GraphQL body. */
export const gqlError = (code: string, path: string, message: string, internal?: Json): ApiError => new ApiError(200, code, path, message, internal);

export const validationFailed = (path: string, message: string): ApiError => gqlError('validation-failed', path, message);

/** A handler's 4xx answer with an `extensions` object: that object is the error's extensions, verbatim (§5.2). */
export class ActionHandlerError extends ApiError {
  constructor(message: string, readonly extensions: Record<string, Json>) {
    super(200, 'unexpected', '$', message);
  }
}

/** A remote schema's errors (issue 35): passed on as the remote gave them (message, path, extensions). */
export class RemoteSchemaErrors extends ApiError {
  constructor(readonly errors: Record<string, Json>[]) {
    super(200, 'remote-schema-error', '$', String(errors[0]?.['message'] ?? 'remote schema error'));
  }
}

/** `{"errors":[…]}` with exactly one error (a remote schema's errors as it gave them); `internal` only for admin callers. */
export function errorsBody(e: ApiError, admin: boolean): string {
  if (e instanceof RemoteSchemaErrors) return JSON.stringify({ errors: e.errors });
  if (e instanceof ActionHandlerError) return JSON.stringify({ errors: [{ message: e.message, extensions: e.extensions }] });
  const extensions: Record<string, Json> = { path: e.path, code: e.code };
  if (admin && e.internal !== undefined) extensions['internal'] = e.internal;
  return JSON.stringify({ errors: [{ message: e.message, extensions }] });
}

export const INTERNAL_ERROR_BODY = JSON.stringify({ errors: [{ message: 'internal error', extensions: { path: '$', code: 'unexpected' } }] });

const CONSTRAINT: Record<string, string> = {
  '23505': 'Uniqueness violation. ', '23503': 'Foreign key violation. ', '23502': 'Not-NULL violation. ',
  '23514': 'Check constraint violation. ', '23P01': 'Exclusion violation. ', '23001': 'Can not delete or update due to data being referred. ',
};

/** A PostgreSQL error as the §6.2 GraphQL error of root field `key`; null when it is not a PostgreSQL error. */
export function databaseError(e: unknown, key: string, sql: string, args: (string | null)[]): ApiError | null {
  const info = pgErrorInfo(e);
  if (!info) return null;
  const internal: Json = {
    statement: sql, prepared: true, arguments: args,
    error: { exec_status: 'FatalError', message: info.message, status_code: info.code, description: info.detail, hint: info.hint },
  };
  const path = `$.selectionSet.${key}`;
  const c = info.code;
  if (c.startsWith('23')) return gqlError('constraint-violation', path, (CONSTRAINT[c] ?? '') + info.message, internal);
  if (c.startsWith('22')) return gqlError('data-exception', path, info.message, internal);
  if (c === 'P0001') return gqlError('postgres-error', path, info.message, internal);
  return gqlError('unexpected', path, 'database query error', internal);
}
