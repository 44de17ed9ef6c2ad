import { jsonTypeName } from '../../../metadata/json.js';
import { gqlError, validationFailed } from '../errors.js';
import type { GqlColumn, TableView } from '../schema/index.js';

/**
 * Global ids and cursors as the incumbent writes them: base64 of PostgreSQL's JSON text. A node id is
 * `[1, "<schema>", "<table>", <primary-key values>…]` (its version 1: version 2 ids are refused as it refuses them);
 * a cursor is the object of the row's ordering values. Decoding errors use the incumbent's messages.
 */

const invalid = (path: string, why: string) => validationFailed(path, `invalid node id: ${why}`);

/** The JSON value of base64 text, or the reason it is none (aeson's words). */
function decodeJson(text: string): { value: unknown } | { error: string } {
  const bytes = Buffer.from(text, 'base64');
  try {
    return { value: JSON.parse(bytes.toString('utf8')) as unknown };
  } catch {
    // The incumbent shows the bytes it could not read one character each.
    return { error: `Error in $: Failed reading: not a valid json value at '${bytes.subarray(0, 8).toString('latin1')}'` };
  }
}

/** Haskell's `show` of a JSON number: an integral one with `.0`. */
const showNumber = (n: number): string => (Number.isInteger(n) ? `${n}.0` : String(n));

export interface NodeRef {
  schema: string;
  name: string;
  values: unknown[];
}

/** A node id's table and key values; `path` is the `node` field's (errors are at its `args.id`). */
export function decodeNodeId(text: string, path: string): NodeRef {
  const at = `${path}.args.id`;
  const d = decodeJson(text);
  if ('error' in d) throw invalid(at, d.error);
  const v = d.value;
  if (!Array.isArray(v)) throw invalid(at, `Error in $: parsing node id failed, expected Array, but encountered ${jsonTypeName(v)}`);
  if (v.length === 0) throw invalid(at, 'Error in $: unexpected GUID format, found empty list');
  const [version, schema, name, ...values] = v as unknown[];
  if (typeof version !== 'number') throw invalid(at, 'Error in $: unexpected GUID format, needs to start with a version number');
  if (version !== 1) throw invalid(at, `Error in $: unsupported GUID version: ${showNumber(version)}`);
  if (values.length === 0) throw invalid(at, 'Error in $: GUID version 1: expecting schema name, table name and at least one column value');
  if (typeof schema !== 'string') throw invalid(at, `Error in $: parsing Text failed, expected String, but encountered ${jsonTypeName(schema)}`);
  if (typeof name !== 'string') throw invalid(at, `Error in $: parsing Text failed, expected String, but encountered ${jsonTypeName(name)}`);
  return { schema, name, values };
}

const INTEGER = new Set(['smallint', 'integer', 'bigint']);
const DECIMAL = new Set(['numeric', 'real', 'double precision']);

/** What JSON type a key column's value must have in an id, as the incumbent parses it. */
function expected(c: GqlColumn): { json: string; parser: string } {
  const t = (c.baseTypeName ?? c.typeName).replace(/\(.*\)$/, '');
  if (INTEGER.has(t)) return { json: 'Number', parser: 'Int' };
  if (DECIMAL.has(t)) return { json: 'Number', parser: 'Scientific' };
  if (t === 'boolean') return { json: 'Boolean', parser: 'Bool' };
  return { json: 'String', parser: 'Text' };
}

/** The key values of a node id matched to the view's primary key: each as parameter text (null for JSON null). */
export function keyValues(ref: NodeRef, view: TableView, path: string): (string | null)[] {
  const pk = view.pk ?? [];
  const at = `${path}.args.id`;
  if (ref.values.length < pk.length) {
    const missing = pk.slice(ref.values.length).map((c) => `'${c.name}'`).join(', ');
    throw invalid(at, `primary key columns [${missing}] are missing`);
  }
  if (ref.values.length > pk.length) throw invalid(at, `unexpected column values ${JSON.stringify(ref.values.slice(pk.length))}`);
  return pk.map((c, i) => {
    const v = ref.values[i];
    if (v === null) return null;
    const want = expected(c);
    if (jsonTypeName(v) !== want.json) {
      throw gqlError('parse-failed', path, `value of column '${c.name}' in node id: parsing ${want.parser} failed, expected ${want.json}, but encountered ${jsonTypeName(v)}`);
    }
    return typeof v === 'string' ? v : JSON.stringify(v);
  });
}

/** A cursor's object (the ordering values by key), or the `after`/`before` argument's error. */
export function decodeCursor(text: string, path: string): Record<string, unknown> {
  const d = decodeJson(text);
  if ('error' in d || d.value === null || typeof d.value !== 'object' || Array.isArray(d.value)) {
    throw validationFailed(path, 'the cursor is invalid');
  }
  return d.value as Record<string, unknown>;
}
