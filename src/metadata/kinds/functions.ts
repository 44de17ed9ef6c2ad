import { type JsonObject } from '../json.js';
import { at, isFunctionArgsObject, obj, opt, optStr, qualifiedName, req } from '../reader.js';
import { qnJson } from '../names.js';
import type { FunctionEntry } from '../types.js';

/** `track_function` args and metadata entries: a FunctionName, or {"function", "configuration"?}. */
export function parseFunctionEntry(v: unknown, path: string): FunctionEntry {
  if (!isFunctionArgsObject(v, 'function')) return { function: qualifiedName(v, path), configuration: {} };
  const o = obj(v, path);
  const fn = qualifiedName(req(o, 'function', path), at(path, 'function'));
  const confV = opt(o, 'configuration');
  const configuration: FunctionEntry['configuration'] = {};
  if (confV !== undefined) {
    const cPath = at(path, 'configuration');
    const conf = obj(confV, cPath);
    const s = optStr(conf, 'session_argument', cPath);
    if (s !== undefined) configuration.session_argument = s;
  }
  return { function: fn, configuration };
}

export function functionEntryJson(f: FunctionEntry): JsonObject {
  const out: JsonObject = { function: qnJson(f.function) };
  if (f.configuration.session_argument !== undefined) {
    out['configuration'] = { session_argument: f.configuration.session_argument };
  }
  return out;
}
