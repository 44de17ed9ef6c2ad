import { compareCodePoints, type JsonObject } from '../json.js';
import { arr, at, bool, graphqlName, idx, obj, opt, req } from '../reader.js';
import { parseTableConfiguration } from './table-configuration.js';

const byKey = (key: string) => (a: JsonObject, b: JsonObject) => compareCodePoints(String(a[key]), String(b[key]));

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
