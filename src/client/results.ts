// The shapes of the engine's answers the client reads, and their guards (an answer that fits none is invalid).
import { isObject } from '../metadata/json.js';

export interface SuccessResult {
  message: string;
}

export interface ReloadResult {
  message: string;
  is_consistent: boolean;
}

export interface InconsistentObject {
  definition: unknown;
  reason: string;
  type: string;
}

export interface InconsistencyReport {
  is_consistent: boolean;
  inconsistent_objects: InconsistentObject[];
}

/** `replace_metadata` answers `{"message":"success"}`, or a report with `allow_inconsistent_metadata: true`. */
export type ReplaceMetadataBody = SuccessResult | InconsistencyReport;

export type RunSqlResult =
  | { result_type: 'CommandOk'; result: null }
  | { result_type: 'TuplesOk'; result: (string | null)[][] };

export interface BulkOperation {
  type: string;
  args: unknown;
}

export interface QueryResult {
  status: number;
  body: unknown;
  /** The `X-Engine-Resource-Version` response header, or null when absent (or not an integer). */
  resourceVersion: number | null;
}

export const isSuccess = (b: unknown): b is SuccessResult => isObject(b) && typeof b['message'] === 'string';
export const isReport = (b: unknown): b is InconsistencyReport =>
  isObject(b) && typeof b['is_consistent'] === 'boolean' && Array.isArray(b['inconsistent_objects']);
export const isRunSqlResult = (b: unknown): b is RunSqlResult =>
  isObject(b) &&
  ((b['result_type'] === 'CommandOk' && b['result'] === null) ||
    (b['result_type'] === 'TuplesOk' && Array.isArray(b['result']) && b['result'].every(Array.isArray)));
