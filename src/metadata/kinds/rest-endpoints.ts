import { badRequest, parseFailed } from '../../errors.js';
import { compareCodePoints, type JsonObject } from '../json.js';
import { arr, at, comment, idx, obj, oneOf, req, str } from '../reader.js';

/** REST endpoints (issue 20): a stored query of a collection served at `/api/rest/<url>`. */

export const REST_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type RestMethod = (typeof REST_METHODS)[number];

export interface RestEndpoint {
  name: string;
  /** Without leading or trailing `/`; `:name` segments are variables. */
  url: string;
  /** Sorted, without repeats. */
  methods: RestMethod[];
  query: { collection_name: string; query_name: string };
  comment: string | null;
}

const SEGMENT = /^(?::[_A-Za-z][_0-9A-Za-z]*|[A-Za-z0-9._~-]+)$/;

export function parseRestUrl(v: unknown, path: string): string {
  const url = str(v, path);
  const segments = url.split('/');
  if (url === '' || segments.some((s) => !SEGMENT.test(s))) {
    throw parseFailed(path, `invalid REST endpoint url "${url}": expected segments of letters, digits, "-", ".", "_", "~" or ":<variable>", separated by "/", without a leading or trailing "/"`);
  }
  const vars = segments.filter((s) => s.startsWith(':'));
  if (new Set(vars).size !== vars.length) throw parseFailed(path, `invalid REST endpoint url "${url}": a variable appears twice`);
  return url;
}

export function parseRestEndpoint(v: unknown, path: string): RestEndpoint {
  const o = obj(v, path);
  const name = str(req(o, 'name', path), at(path, 'name'));
  if (name === '') throw parseFailed(at(path, 'name'), 'REST endpoint name cannot be empty');
  const url = parseRestUrl(req(o, 'url', path), at(path, 'url'));
  const mp = at(path, 'methods');
  const methods = arr(req(o, 'methods', path), mp).map((m, i) => oneOf(m, idx(mp, i), REST_METHODS));
  if (methods.length === 0) throw parseFailed(mp, 'at least one method is required');
  const dp = at(path, 'definition');
  const d = obj(req(o, 'definition', path), dp);
  const qp = at(dp, 'query');
  const q = obj(req(d, 'query', dp), qp);
  return {
    name, url, methods: [...new Set(methods)].sort(compareCodePoints),
    query: { collection_name: str(req(q, 'collection_name', qp), at(qp, 'collection_name')), query_name: str(req(q, 'query_name', qp), at(qp, 'query_name')) },
    comment: comment(o, path),
  };
}

export function restEndpointJson(r: RestEndpoint): JsonObject {
  const out: JsonObject = { name: r.name, url: r.url, methods: [...r.methods], definition: { query: { ...r.query } } };
  if (r.comment !== null) out['comment'] = r.comment;
  return out;
}

/** Two URLs collide when some request path matches both: same length, and at each segment a variable or equal text. */
export function urlsCollide(a: string, b: string): boolean {
  const x = a.split('/');
  const y = b.split('/');
  return x.length === y.length && x.every((s, i) => s.startsWith(':') || (y[i] as string).startsWith(':') || s === y[i]);
}

/** The first pair of endpoints sharing a method whose URLs collide (`/a/:id` and `/a/b`), as an error at `path`. */
export function checkRestCollisions(endpoints: RestEndpoint[], path: string): void {
  for (let i = 0; i < endpoints.length; i++) {
    for (let j = 0; j < i; j++) {
      const a = endpoints[j] as RestEndpoint;
      const b = endpoints[i] as RestEndpoint;
      if (a.methods.some((m) => b.methods.includes(m)) && urlsCollide(a.url, b.url)) {
        throw badRequest('already-exists', path, `REST endpoint "${b.name}" (${b.url}) collides with "${a.name}" (${a.url})`);
      }
    }
  }
}
