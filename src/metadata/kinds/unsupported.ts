import { compareCodePoints, type JsonObject } from '../json.js';
import { arr, at, bool, comment, exclusive, graphqlName, idx, int, obj, opt, req, str } from '../reader.js';
import { envName, headerJson, headers, urlTemplate } from './common.js';
import { parseTableConfiguration } from './table-configuration.js';

/**
 * The keys of the format that the engine does not implement (engine-api.md §6.5). The engine accepts them only
 * empty; the project tool stores, validates and compares them like any other key, in this canonical form.
 */
export interface Extras {
  remote_schemas: JsonObject[];
}

export const emptyExtras = (): Extras => ({ remote_schemas: [] });
export const EXTRA_KEYS = ['remote_schemas'] as const;

function withComment(out: JsonObject, o: JsonObject, path: string): JsonObject {
  const c = comment(o, path);
  if (c !== null) out['comment'] = c;
  return out;
}

function remoteSchema(v: unknown, path: string): JsonObject {
  const o = obj(v, path);
  const dp = at(path, 'definition');
  const d = obj(req(o, 'definition', path), dp);
  const def: JsonObject = {};
  if (exclusive(d, 'url', 'url_from_env', dp) === 'url') def['url'] = urlTemplate(d['url'], at(dp, 'url'), 'url', dp);
  else def['url_from_env'] = envName(d['url_from_env'], at(dp, 'url_from_env'), 'url_from_env', dp);
  const ts = opt(d, 'timeout_seconds');
  if (ts !== undefined) def['timeout_seconds'] = int(ts, at(dp, 'timeout_seconds'), 1);
  const f = opt(d, 'forward_client_headers');
  if (f !== undefined && bool(f, at(dp, 'forward_client_headers'))) def['forward_client_headers'] = true;
  const hs = headers(d, dp);
  if (hs.length > 0) def['headers'] = hs.map(headerJson);
  return withComment({ name: str(req(o, 'name', path), at(path, 'name')), definition: def }, o, path);
}

const byKey = (key: string) => (a: JsonObject, b: JsonObject) => compareCodePoints(String(a[key]), String(b[key]));

export function parseExtras(o: JsonObject, path: string): Extras {
  const list = (key: string, f: (v: unknown, p: string) => JsonObject, sortKey: string): JsonObject[] => {
    const v = opt(o, key);
    if (v === undefined) return [];
    const p = at(path, key);
    return arr(v, p).map((x, i) => f(x, idx(p, i))).sort(byKey(sortKey));
  };
  return {
    remote_schemas: list('remote_schemas', remoteSchema, 'name'),
  };
}

/** Table keys beyond relationships and permissions: `is_enum`, `configuration`, `remote_relationships` (project tool only). */
export interface TableExtras {
  is_enum?: boolean;
  configuration?: JsonObject;
  remote_relationships?: JsonObject[];
}

export function parseTableExtras(o: JsonObject, path: string): TableExtras {
  const out: TableExtras = {};
  const ie = opt(o, 'is_enum');
  if (ie !== undefined && bool(ie, at(path, 'is_enum'))) out.is_enum = true;
  const conf = opt(o, 'configuration');
  const parsed = conf === undefined || conf === null ? undefined : parseTableConfiguration(conf, at(path, 'configuration'));
  if (parsed) out.configuration = parsed;
  const rr = opt(o, 'remote_relationships');
  if (rr !== undefined) {
    const p = at(path, 'remote_relationships');
    const list = arr(rr, p).map((r, i) => {
      const rp = idx(p, i);
      const ro = obj(r, rp);
      return { name: graphqlName(req(ro, 'name', rp), at(rp, 'name')), definition: obj(req(ro, 'definition', rp), at(rp, 'definition')) };
    });
    if (list.length > 0) out.remote_relationships = list.sort(byKey('name'));
  }
  return out;
}

export function notEmptyExtras(e: Extras): string | undefined {
  return EXTRA_KEYS.find((k) => e[k].length > 0);
}
