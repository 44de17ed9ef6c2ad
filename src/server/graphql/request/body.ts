import { isObject, jsonTypeName } from '../../../metadata/json.js';
import { checkStorableStrings } from '../../storable-strings.js';
import { gqlError } from '../errors.js';

/** The body of `POST /v1/graphql` (graphql-api.md §1.1), checked in the order of §1.3 step 2. */
export interface GraphqlRequest {
  query: string;
  variables: Record<string, unknown>;
  operationName: string | null;
}

const wrongType = (path: string, want: string, v: unknown) => gqlError('parse-failed', path, `expected ${want}, encountered ${jsonTypeName(v)}`);

export function parseRequest(text: string): GraphqlRequest {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw gqlError('invalid-json', '$', 'request body is not valid JSON');
  }
  // NUL and lone surrogates cannot reach PostgreSQL (as on /v1/query): parse-failed at their path.
  checkStorableStrings(body);
  if (!isObject(body)) throw wrongType('$', 'Object', body);
  // Automatic persisted queries (a client sending a hash instead of the document) are the incumbent's paid feature:
  // its open edition refuses them with this error, before looking at the document (a client then sends it whole).
  if (isObject(body['extensions']) && body['extensions']['persistedQuery'] !== undefined) {
    throw gqlError('not-supported', '$', 'Automatic Persisted Queries is not enabled');
  }
  if (!('query' in body)) throw gqlError('parse-failed', '$', 'the key "query" was not present');
  const { query, variables, operationName } = body as Record<string, unknown>;
  if (typeof query !== 'string') throw wrongType('$.query', 'String', query);
  if (variables !== undefined && variables !== null && !isObject(variables)) throw wrongType('$.variables', 'Object', variables);
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') throw wrongType('$.operationName', 'String', operationName);
  return { query, variables: (variables ?? {}) as Record<string, unknown>, operationName: (operationName ?? null) as string | null };
}

/**
 * The elements of a batched body (a JSON array, as the incumbent accepts), each as the text of its own request; null
 * when the body is not an array (invalid JSON included: the single-request path reports it). A non-object element
 * fails in its own slot, as any element that is not a request.
 */
export function batchElements(text: string): string[] | null {
  if (!text.trimStart().startsWith('[')) return null;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(body)) return null;
  return body.map((element) => JSON.stringify(element));
}
