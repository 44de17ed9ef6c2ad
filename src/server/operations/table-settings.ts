import { badRequest, parseFailed } from '../../errors.js';
import { at, bool, obj, opt, qualifiedName, req, str } from '../../metadata/reader.js';
import { qnKey } from '../../metadata/names.js';
import { cloneMetadata } from '../../metadata/document.js';
import { parseTableConfiguration } from '../../metadata/kinds/table-configuration.js';
import type { TableExtras } from '../../metadata/kinds/unsupported.js';
import type { JsonObject } from '../../metadata/json.js';
import type { QualifiedName, TableEntry } from '../../metadata/types.js';
import { op, SUCCESS, type Operation } from './operation.js';
import { requireTracked } from './table-objects.js';
import type { OpContext } from '../context.js';

/**
 * The incumbent's table settings (issue 29 point 6): `is_enum` and `configuration` of a tracked table, set on their
 * own or with `track_table`. Both take effect as the same keys of a metadata document do (issue 12).
 */

/** Rejects keys an operation does not know: what the engine accepts takes effect, so nothing is silently dropped. */
export function onlyKeys(o: JsonObject, path: string, known: readonly string[]): void {
  const unknown = Object.keys(o).filter((k) => !known.includes(k));
  if (unknown.length > 0) throw parseFailed(path, `unexpected keys: ${unknown.map((k) => `"${k}"`).join(', ')}`);
  if (known.includes('source')) checkSource(o, path);
}

/** The incumbent's `source`: the engine serves one database, which the incumbent's projects call "default". */
export function checkSource(o: JsonObject, path: string): void {
  const source = opt(o, 'source');
  if (source === undefined || source === null) return;
  const p = at(path, 'source');
  if (str(source, p) !== 'default') throw badRequest('not-exists', p, `source with name ${JSON.stringify(source)} does not exist`);
}

/** `is_enum` and `configuration` as track_table and the set_table_* operations take them. */
export function parseSettings(o: JsonObject, path: string): TableExtras {
  const out: TableExtras = {};
  const ie = opt(o, 'is_enum');
  if (ie !== undefined && bool(ie, at(path, 'is_enum'))) out.is_enum = true;
  const conf = opt(o, 'configuration');
  const parsed = conf === undefined || conf === null ? undefined : parseTableConfiguration(conf, at(path, 'configuration'));
  if (parsed) out.configuration = parsed;
  return out;
}

/** Installs a tracked table's new settings; a setting that makes the table inconsistent fails and changes nothing. */
function setExtras(ctx: OpContext, table: QualifiedName, change: (e: TableExtras) => TableExtras): void {
  requireTracked(ctx, table);
  const md = cloneMetadata(ctx.metadata);
  const entry = md.tables.get(qnKey(table)) as TableEntry;
  const extras = change({ ...entry.extras });
  const next = { ...entry };
  if (extras.is_enum !== true) delete extras.is_enum;
  if (!extras.configuration) delete extras.configuration;
  if (Object.keys(extras).length > 0) next.extras = extras;
  else delete next.extras;
  md.tables.set(qnKey(table), next);
  ctx.apply(md);
}

const setTableIsEnum: Operation<{ table: QualifiedName; isEnum: boolean }> = {
  write: true,
  parse(args, path) {
    const o = obj(args, path);
    onlyKeys(o, path, ['table', 'is_enum', 'source']);
    return { table: qualifiedName(req(o, 'table', path), at(path, 'table')), isEnum: bool(req(o, 'is_enum', path), at(path, 'is_enum')) };
  },
  async run(ctx, { table, isEnum }) {
    setExtras(ctx, table, (e) => ({ ...e, is_enum: isEnum }));
    return SUCCESS;
  },
};

const setTableCustomization: Operation<{ table: QualifiedName; configuration: JsonObject | undefined }> = {
  write: true,
  parse(args, path) {
    const o = obj(args, path);
    onlyKeys(o, path, ['table', 'configuration', 'source']);
    const conf = opt(o, 'configuration');
    return {
      table: qualifiedName(req(o, 'table', path), at(path, 'table')),
      configuration: conf === undefined || conf === null ? undefined : parseTableConfiguration(conf, at(path, 'configuration')),
    };
  },
  async run(ctx, { table, configuration }) {
    setExtras(ctx, table, (e) => {
      const out = { ...e };
      if (configuration) out.configuration = configuration;
      else delete out.configuration;
      return out;
    });
    return SUCCESS;
  },
};

/** The incumbent's older form: custom_root_fields and custom_column_names; custom_name kept from the configuration. */
const setTableCustomFields: Operation<{ table: QualifiedName; configuration: JsonObject | undefined }> = {
  write: true,
  parse(args, path) {
    const o = obj(args, path);
    onlyKeys(o, path, ['table', 'custom_root_fields', 'custom_column_names', 'source']);
    const conf: JsonObject = {};
    for (const k of ['custom_root_fields', 'custom_column_names']) if (o[k] !== undefined) conf[k] = o[k] ?? null;
    return { table: qualifiedName(req(o, 'table', path), at(path, 'table')), configuration: parseTableConfiguration(conf, path) };
  },
  async run(ctx, { table, configuration }) {
    setExtras(ctx, table, (e) => {
      const kept: JsonObject = {};
      const old = e.configuration ?? {};
      for (const k of ['custom_name', 'column_config', 'comment']) if (old[k] !== undefined) kept[k] = old[k] ?? null;
      const merged = parseTableConfiguration({ ...kept, ...configuration }, '$.args');
      const out = { ...e };
      if (merged) out.configuration = merged;
      else delete out.configuration;
      return out;
    });
    return SUCCESS;
  },
};

export const tableSettingOperations: Record<string, Operation<unknown>> = {
  set_table_is_enum: op(setTableIsEnum),
  set_table_customization: op(setTableCustomization),
  set_table_custom_fields: op(setTableCustomFields),
};
