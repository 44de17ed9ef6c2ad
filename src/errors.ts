import type { Json } from './metadata/json.js';

/** Where a problem is: a file position (project files) and/or a JSON path (engine requests, metadata). */
export interface ErrorLocation {
  file?: string;
  line?: number;
  column?: number;
  path?: string;
  hint?: string;
}

/** The one error hierarchy: every failure the product reports has a stable `code` and a message. */
export class EngineError extends Error {
  readonly code: string;
  readonly location: ErrorLocation;
  constructor(code: string, message: string, location: ErrorLocation = {}) {
    super(message);
    this.name = 'EngineError';
    this.code = code;
    this.location = location;
  }
}

/** An error of the engine's HTTP API (engine-api.md §1.4): it carries the status and the optional `internal`. */
export class ApiError extends EngineError {
  readonly status: number;
  readonly path: string;
  readonly internal: Json | undefined;
  constructor(status: number, code: string, path: string, message: string, internal?: Json) {
    super(code, message, { path });
    this.name = 'ApiError';
    this.status = status;
    this.path = path;
    this.internal = internal;
  }

  /** The same error seen from an enclosing request (bulk): its path re-rooted under `prefix`. */
  withPathPrefix(prefix: string): ApiError {
    return new ApiError(this.status, this.code, prefix + this.path.slice(1), this.message, this.internal);
  }
}

export const badRequest = (code: string, path: string, message: string, internal?: Json): ApiError =>
  new ApiError(400, code, path, message, internal);

export const parseFailed = (path: string, message: string): ApiError => badRequest('parse-failed', path, message);

/** A CLI-level failure with its exit status (cli.md §3.5, §6). */
export class CliError extends EngineError {
  readonly exitCode: number;
  constructor(code: string, message: string, exitCode: number, location: ErrorLocation = {}) {
    super(code, message, location);
    this.name = 'CliError';
    this.exitCode = exitCode;
  }
}
