import { parseFailed } from '../../errors.js';
import type { JsonObject } from '../json.js';
import { at, columnList, exclusive, int, obj, opt, optBool, req, str } from '../reader.js';
import type { EventTrigger, OperationSpec } from '../types.js';
import { envName, headerJson, headers, urlTemplate } from './common.js';

export const EVENT_OPS = ['insert', 'update', 'delete'] as const;
export type EventOp = (typeof EVENT_OPS)[number];

const NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;
export const DEFAULT_RETRY = { num_retries: 0, interval_sec: 10, timeout_sec: 60 };

export function eventTriggerName(v: unknown, path: string): string {
  const name = str(v, path);
  if (!NAME.test(name)) {
    throw parseFailed(path, 'event trigger name must start with a letter and contain only letters, digits, underscores and hyphens');
  }
  if (name.length > 42) throw parseFailed(path, 'event trigger name can be at most 42 characters');
  return name;
}

function operationSpec(v: unknown, path: string): OperationSpec {
  const o = obj(v, path);
  const columns = columnList(req(o, 'columns', path), at(path, 'columns'));
  if (Array.isArray(columns) && columns.length === 0) throw parseFailed(at(path, 'columns'), 'found empty column specification');
  const spec: OperationSpec = { columns };
  const p = opt(o, 'payload');
  if (p !== undefined) {
    const payload = columnList(p, at(path, 'payload'));
    if (Array.isArray(payload) && payload.length === 0) throw parseFailed(at(path, 'payload'), 'found empty payload specification');
    spec.payload = payload;
  }
  return spec;
}

function retryConf(v: unknown, path: string): EventTrigger['retry_conf'] {
  if (v === undefined || v === null) return { ...DEFAULT_RETRY };
  const o = obj(v, path);
  const get = (k: keyof typeof DEFAULT_RETRY, min: number) => {
    const x = opt(o, k);
    return x === undefined ? DEFAULT_RETRY[k] : int(x, at(path, k), min);
  };
  return { num_retries: get('num_retries', 0), interval_sec: get('interval_sec', 1), timeout_sec: get('timeout_sec', 1) };
}

/**
 * The fields shared by create_event_trigger args and metadata entries, in the check order of §4.7.1:
 * name, webhook, operation specs, the at-least-one rule. `ops` reads the operation specs (flat in args,
 * under `definition` in metadata).
 */
function parseCommon(o: JsonObject, path: string, ops: JsonObject, opsPath: string, retry: unknown, retryPath: string): EventTrigger {
  const name = eventTriggerName(req(o, 'name', path), at(path, 'name'));
  const which = exclusive(o, 'webhook', 'webhook_from_env', path);
  const et: EventTrigger = { name, definition: { enable_manual: true }, retry_conf: DEFAULT_RETRY, headers: [] };
  if (which === 'webhook') et.webhook = urlTemplate(o['webhook'], at(path, 'webhook'), 'webhook', path);
  else et.webhook_from_env = envName(o['webhook_from_env'], at(path, 'webhook_from_env'), 'webhook_from_env', path);
  for (const op of EVENT_OPS) {
    const spec = opt(ops, op);
    if (spec !== undefined) et.definition[op] = operationSpec(spec, at(opsPath, op));
  }
  et.definition.enable_manual = optBool(ops, 'enable_manual', opsPath, true);
  if (!EVENT_OPS.some((op) => et.definition[op]) && !et.definition.enable_manual) {
    throw parseFailed(opsPath, 'at least one of insert/update/delete/enable_manual spec must be provided');
  }
  et.retry_conf = retryConf(retry, retryPath);
  et.headers = headers(o, path);
  return et;
}

/** create_event_trigger args (operation specs and enable_manual at the top level). */
export function parseEventTriggerArgs(o: JsonObject, path: string): EventTrigger {
  return parseCommon(o, path, o, path, opt(o, 'retry_conf'), at(path, 'retry_conf'));
}

/** An event-trigger entry of table metadata (§6.1: specs under `definition`). */
export function parseEventTrigger(v: unknown, path: string): EventTrigger {
  const o = obj(v, path);
  const defPath = at(path, 'definition');
  const def = obj(req(o, 'definition', path), defPath);
  return parseCommon(o, path, def, defPath, opt(o, 'retry_conf'), at(path, 'retry_conf'));
}

const specJson = (s: OperationSpec): JsonObject => (s.payload !== undefined ? { columns: s.columns, payload: s.payload } : { columns: s.columns });

export function eventTriggerJson(et: EventTrigger): JsonObject {
  const def: JsonObject = { enable_manual: et.definition.enable_manual };
  for (const op of EVENT_OPS) {
    const s = et.definition[op];
    if (s) def[op] = specJson(s);
  }
  const out: JsonObject = { name: et.name, definition: def, retry_conf: { ...et.retry_conf } };
  if (et.webhook !== undefined) out['webhook'] = et.webhook;
  else out['webhook_from_env'] = et.webhook_from_env ?? '';
  if (et.headers.length > 0) out['headers'] = et.headers.map(headerJson);
  return out;
}
