import { Kind, parse, type OperationDefinitionNode, type TypeNode } from 'graphql';
import { ApiError } from '../../errors.js';
import type { RestEndpoint } from '../../metadata/kinds/rest-endpoints.js';
import type { Metadata } from '../../metadata/types.js';

/**
 * REST endpoints (issue 20): `/api/rest/<url>` runs the endpoint's stored query through the GraphQL service, with
 * URL parameters, query-string values (GET) or the JSON body (other methods) as its variables.
 */

export const REST_PREFIX = '/api/rest/';

export interface RestMatch {
  endpoint: RestEndpoint;
  query: string;
  params: Record<string, string>;
}

const notFound = (): ApiError => new ApiError(404, 'not-found', '$', 'resource does not exist');

/** The endpoint serving `path` (after the prefix) for `method`; 404 when none, 405 when only other methods. */
export function matchRest(md: Metadata, path: string, method: string, inconsistent: ReadonlySet<string> = new Set()): RestMatch {
  const segments = path.split('/').map((s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  });
  let otherMethod = false;
  for (const endpoint of md.rest_endpoints.values()) {
    // An inconsistent endpoint is not served, like any inconsistent object.
    if (inconsistent.has(`rest_endpoint::${endpoint.name}`)) continue;
    const pattern = endpoint.url.split('/');
    if (pattern.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const matches = pattern.every((p, i) => {
      const s = segments[i] as string;
      if (p.startsWith(':')) {
        params[p.slice(1)] = s;
        return s !== '';
      }
      return p === s;
    });
    if (!matches) continue;
    if (!(endpoint.methods as string[]).includes(method)) {
      otherMethod = true;
      continue;
    }
    const query = md.query_collections.get(endpoint.query.collection_name)?.queries.find((q) => q.name === endpoint.query.query_name)?.query;
    if (query === undefined) throw notFound();
    return { endpoint, query, params };
  }
  if (otherMethod) throw new ApiError(405, 'method-not-allowed', '$', `method ${method} is not allowed for this endpoint`);
  throw notFound();
}

const namedType = (t: TypeNode): string => (t.kind === Kind.NAMED_TYPE ? t.name.value : namedType(t.type));

/**
 * Text from a URL becomes the value of the variable's declared type: Int and Float numbers, Boolean true/false; other
 * types keep the text. Text that does not fit stays text, so that the GraphQL service reports the variable.
 */
function fromText(text: string, type: TypeNode | undefined): unknown {
  if (!type || type.kind === Kind.LIST_TYPE || (type.kind === Kind.NON_NULL_TYPE && type.type.kind === Kind.LIST_TYPE)) return text;
  switch (namedType(type)) {
    case 'Int':
      return /^-?\d+$/.test(text) ? Number(text) : text;
    case 'Float':
      return text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : text;
    case 'Boolean':
      return text === 'true' ? true : text === 'false' ? false : text;
    default:
      return text;
  }
}

/** The GraphQL request body: URL parameters win over query-string values and body keys of the same name. */
export function restRequest(m: RestMatch, search: URLSearchParams, body: unknown): string {
  let types = new Map<string, TypeNode>();
  try {
    const op = parse(m.query).definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
    types = new Map((op?.variableDefinitions ?? []).map((d) => [d.variable.name.value, d.type]));
  } catch {
    // The service reports a document that does not parse.
  }
  const variables: Record<string, unknown> = {};
  if (body !== undefined) {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new ApiError(400, 'parse-failed', '$', 'the request body must be a JSON object of variables');
    }
    Object.assign(variables, body);
  }
  for (const [k, v] of search) variables[k] = fromText(v, types.get(k));
  for (const [k, v] of Object.entries(m.params)) variables[k] = fromText(v, types.get(k));
  return JSON.stringify({ query: m.query, variables });
}
