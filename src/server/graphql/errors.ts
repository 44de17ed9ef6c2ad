import { ApiError } from '../../errors.js';
import type { Json } from '../../metadata/json.js';

/** A GraphQL error (graphql-api.md §1.5, §6.1): HTTP 200 with a GraphQL body. */
export const gqlError = (code: string, path: string, message: string, internal?: Json): ApiError => new ApiError(200, code, path, message, internal);

export const validationFailed = (path: string, message: string): ApiError => gqlError('validation-failed', path, message);

/** A handler's 4xx answer with an `extensions` object: that object is the error's extensions, verbatim (§5.2). */
export class ActionHandlerError extends ApiError {
  constructor(message: string, readonly extensions: Record<string, Json>) {
    super(200, 'unexpected', '$', message);
  }
}

/** `{"errors":[…]}` with exactly one error; `internal` only for admin callers. */
export function errorsBody(e: ApiError, admin: boolean): string {
  if (e instanceof ActionHandlerError) return JSON.stringify({ errors: [{ message: e.message, extensions: e.extensions }] });
  const extensions: Record<string, Json> = { path: e.path, code: e.code };
  if (admin && e.internal !== undefined) extensions['internal'] = e.internal;
  return JSON.stringify({ errors: [{ message: e.message, extensions }] });
}

export const INTERNAL_ERROR_BODY = JSON.stringify({ errors: [{ message: 'internal error', extensions: { path: '$', code: 'unexpected' } }] });
