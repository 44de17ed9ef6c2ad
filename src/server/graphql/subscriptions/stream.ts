import {
  getNamedType, getNullableType, isInputObjectType, Kind, parse, print, valueFromASTUntyped, visit, type ArgumentNode, type DocumentNode,
  type FieldNode, type GraphQLField, type GraphQLSchema, type ObjectFieldNode, type OperationDefinitionNode, type ValueNode,
} from 'graphql';
import { fieldInfo } from '../schema/index.js';
import { elements, members } from './json-text.js';

/**
 * Streaming subscriptions (issue 32.4), as the incumbent's `<t>_stream(batch_size, cursor, where)`: the rows after a
 * cursor, in cursor order, `batch_size` at a time; each batch sent moves the cursor to its last row's value, an
 * empty batch is never sent. A stream runs as the query it reads like — the table's select root field with the
 * cursor's condition, order and limit, the cursor value a variable — so it shares validation, permissions, the plan
 * cache and multiplexing with live queries: streams at the same cursor are one cohort.
 */

/** The variable holding the cursor value, and the alias under which each row carries its cursor column. */
export const CURSOR_VARIABLE = 'engine_stream_cursor';
export const CURSOR_FIELD = 'engine_stream_cursor';

export interface StreamSpec {
  /** The root field's response key. */
  key: string;
  batchSize: number;
  /** Cursor values are JSON text, as the service wrote them (a bigint keeps its digits). */
  initial: string;
  /** The request text of the batch after `cursor`. */
  after(cursor: string): string;
  /** The request text of every row whose cursor column equals `cursor` (the ties of a full batch). */
  at(cursor: string): string;
}

export type StreamPlan = { kind: 'none' } | { kind: 'error'; body: string } | { kind: 'stream'; spec: StreamSpec };

const SUFFIX = '_stream';

const failure = (path: string, message: string): StreamPlan =>
  ({ kind: 'error', body: JSON.stringify({ errors: [{ message, extensions: { path, code: 'validation-failed' } }] }) });

/**
 * Reads a subscription (already written as a query by document.ts) for a `<t>_stream` root field of the role's
 * schema. `none`: no such field (a live query, or an unknown field the service reports).
 */
export function planStream(schema: GraphQLSchema, request: { query: string; variables: Record<string, unknown>; operationName: string | null }): StreamPlan {
  let doc: DocumentNode;
  try {
    doc = parse(request.query);
  } catch {
    return { kind: 'none' };
  }
  const ops = doc.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const op = request.operationName ? ops.find((o) => o.name?.value === request.operationName) : ops.length === 1 ? ops[0] : undefined;
  const root = schema.getQueryType();
  if (!op || !root) return { kind: 'none' };
  const fields = root.getFields();
  const streamed = op.selectionSet.selections.filter((s): s is FieldNode => s.kind === Kind.FIELD && s.name.value.endsWith(SUFFIX) && !fields[s.name.value]);
  if (streamed.length === 0) return { kind: 'none' };
  const node = streamed[0] as FieldNode;
  const key = node.alias?.value ?? node.name.value;
  const path = `$.selectionSet.${key}`;
  const base = node.name.value.slice(0, -SUFFIX.length);
  const select = Object.values(fields).find((f) => {
    const i = fieldInfo(f);
    return i?.kind === 'rows' && i.source.kind === 'table' && i.view.name === base;
  });
  const info = select ? fieldInfo(select) : undefined;
  if (!select || info?.kind !== 'rows' || !(info.view.subscriptionRoots?.has('select_stream') ?? true)) {
    return failure(path, `field "${node.name.value}" not found in type: 'subscription_root'`);
  }
  if (op.selectionSet.selections.length !== 1) return failure('$.selectionSet', 'a streaming subscription must have exactly one root field');
  const vars = request.variables;
  const args = new Map(node.arguments?.map((a) => [a.name.value, a]) ?? []);
  for (const a of args.keys()) {
    if (!['batch_size', 'cursor', 'where'].includes(a)) return failure(`${path}.args.${a}`, `'${node.name.value}' has no argument named '${a}'`);
  }
  const batchNode = args.get('batch_size');
  const batchSize = batchNode ? valueFromASTUntyped(batchNode.value, vars) : undefined;
  if (!Number.isInteger(batchSize) || (batchSize as number) < 0) return failure(`${path}.args.batch_size`, 'the argument "batch_size" must be a non-negative Int');
  const cursorNode = args.get('cursor');
  const cursorValue = cursorNode ? valueFromASTUntyped(cursorNode.value, vars) : undefined;
  const cursors = Array.isArray(cursorValue) ? cursorValue : cursorValue === undefined || cursorValue === null ? [] : [cursorValue];
  if (cursors.length !== 1) return failure(`${path}.args.cursor`, 'one cursor is expected: multiple column cursors are not supported');
  const c = cursors[0] as { initial_value?: unknown; ordering?: unknown } | null;
  const initialValue = c?.initial_value;
  if (typeof initialValue !== 'object' || initialValue === null || Array.isArray(initialValue) || Object.keys(initialValue).length !== 1) {
    return failure(`${path}.args.cursor.initial_value`, 'the cursor\'s "initial_value" must name exactly one column');
  }
  const [column, initial] = Object.entries(initialValue)[0] as [string, unknown];
  const ordering = c?.ordering ?? 'ASC';
  if (ordering !== 'ASC' && ordering !== 'DESC') return failure(`${path}.args.cursor.ordering`, 'the cursor\'s "ordering" must be ASC or DESC');
  const valueType = cursorType(select, column);
  if (!valueType) return failure(`${path}.args.cursor.initial_value.${column}`, `field "${column}" not found in type: '${base}_stream_cursor_value_input'`);
  if (initial === null || initial === undefined) return failure(`${path}.args.cursor.initial_value.${column}`, 'the cursor\'s initial value must not be null');

  const where = args.get('where');
  const build = (cmp: '_gt' | '_lt' | '_eq', limited: boolean): { query: string; used: Set<string> } => {
    const cond = obj([[column, obj([[cmp, { kind: Kind.VARIABLE, name: name(CURSOR_VARIABLE) }]])]]);
    const whereValue: ValueNode = where ? obj([['_and', { kind: Kind.LIST, values: [where.value, cond] }]]) : cond;
    const newArgs: ArgumentNode[] = [
      arg('where', whereValue),
      arg('order_by', obj([[column, { kind: Kind.ENUM, value: ordering === 'ASC' ? 'asc' : 'desc' }]])),
    ];
    if (limited) newArgs.push(arg('limit', batchNode?.value ?? { kind: Kind.INT, value: '0' }));
    const field: FieldNode = {
      ...node, alias: name(key), name: name(select.name), arguments: newArgs,
      selectionSet: { kind: Kind.SELECTION_SET, selections: [...(node.selectionSet?.selections ?? []), { kind: Kind.FIELD, alias: name(CURSOR_FIELD), name: name(column) }] },
    };
    const selectionSet = { ...op.selectionSet, selections: [field] };
    // Variables only the cursor or batch_size used are read here; the query must not declare them unused.
    const used = variablesIn({ ...doc, definitions: [...doc.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION), { ...op, variableDefinitions: [], selectionSet }] });
    const rewritten: OperationDefinitionNode = {
      ...op, selectionSet,
      variableDefinitions: [...(op.variableDefinitions ?? []).filter((v) => used.has(v.variable.name.value)), {
        kind: Kind.VARIABLE_DEFINITION, variable: { kind: Kind.VARIABLE, name: name(CURSOR_VARIABLE) }, type: { kind: Kind.NAMED_TYPE, name: name(valueType) },
      }],
    };
    return { query: print({ ...doc, definitions: doc.definitions.map((d) => (d === op ? rewritten : d)) }), used };
  };
  const next = build(ordering === 'ASC' ? '_gt' : '_lt', true);
  const ties = build('_eq', false);
  // Only the variables the query still reads: streams that started apart but reached the same cursor share a cohort.
  const kept = JSON.stringify(Object.fromEntries(Object.entries(vars).filter(([k]) => next.used.has(k)))).slice(1, -1);
  const opName = request.operationName ? `,"operationName":${JSON.stringify(request.operationName)}` : '';
  // A number the service wrote for a type other than Int and Float (bigint, numeric) goes back as a string, which those
  // types take: JSON.parse would round it.
  const exact = valueType === 'Int' || valueType === 'Float';
  const text = (query: string, cursor: string): string => {
    const value = !exact && /^-?\d/.test(cursor) ? JSON.stringify(cursor) : cursor;
    return `{"query":${JSON.stringify(query)},"variables":{${kept}${kept ? ',' : ''}${JSON.stringify(CURSOR_VARIABLE)}:${value}}${opName}}`;
  };
  return {
    kind: 'stream',
    spec: { key, batchSize: batchSize as number, initial: JSON.stringify(initial), after: (cursor) => text(next.query, cursor), at: (cursor) => text(ties.query, cursor) },
  };
}

/** The names of the variables a document reads (its operations' definitions aside). */
function variablesIn(doc: DocumentNode): Set<string> {
  const out = new Set<string>();
  visit(doc, { Variable: (v) => { out.add(v.name.value); } });
  return out;
}

/** The GraphQL type of a column's comparison value (`Int`, `timestamptz`), read from the field's `where` type. */
function cursorType(select: GraphQLField<unknown, unknown>, column: string): string | null {
  const where = select.args.find((a) => a.name === 'where');
  const boolExp = where ? getNamedType(where.type) : null;
  if (!boolExp || !isInputObjectType(boolExp)) return null;
  const comparison = boolExp.getFields()[column];
  const cmpType = comparison ? getNullableType(comparison.type) : null;
  if (!cmpType || !isInputObjectType(cmpType)) return null;
  const gt = cmpType.getFields()['_gt'];
  return gt ? getNamedType(gt.type).name : null;
}

const name = (value: string) => ({ kind: Kind.NAME, value }) as const;
const arg = (n: string, value: ValueNode): ArgumentNode => ({ kind: Kind.ARGUMENT, name: name(n), value });
const obj = (pairs: [string, ValueNode][]): ValueNode => ({
  kind: Kind.OBJECT, fields: pairs.map(([k, v]): ObjectFieldNode => ({ kind: Kind.OBJECT_FIELD, name: name(k), value: v })),
});

/**
 * What a stream's answer sends: the batch's message body and its last cursor value; `empty` when there are no new rows
 * (nothing is sent); `error` for an error answer. A full batch's last cursor value may have more rows than fitted (the
 * incumbent's WITH TIES): `ties` runs the query of all of them, which are sent too, or the next batch, after that
 * value, would skip them. Rows are taken apart as text (json-text.ts): every value goes on as the service wrote it.
 */
export async function nextBatch(spec: StreamSpec, body: string, ties: (text: string) => Promise<string>): Promise<{ out: string; last: string } | 'empty' | 'error'> {
  const rows = rowsOf(spec.key, body);
  if (!rows) return 'error';
  if (rows.length === 0) return 'empty';
  const last = (rows[rows.length - 1] as Row).cursor;
  let all = rows;
  if (rows.length >= spec.batchSize) {
    const tied = rowsOf(spec.key, await ties(spec.at(last)));
    if (tied) all = [...rows.filter((r) => r.cursor !== last), ...tied];
  }
  return { out: `{"data":{${JSON.stringify(spec.key)}:[${all.map((r) => r.text).join(',')}]}}`, last };
}

/** A row without its cursor alias, and the cursor's JSON text. */
interface Row {
  text: string;
  cursor: string;
}

/** The rows of a stream query's answer; null for an error answer. */
function rowsOf(key: string, body: string): Row[] | null {
  const top = members(body);
  if (top.some((m) => m.key === 'errors')) return null;
  const data = top.find((m) => m.key === 'data')?.value;
  if (!data || data === 'null') return null;
  const rows = members(data).find((m) => m.key === key)?.value;
  if (!rows || rows === 'null') return [];
  return elements(rows).map((row) => {
    const fields = members(row);
    const cursor = fields.find((f) => f.key === CURSOR_FIELD)?.value ?? 'null';
    return { text: `{${fields.filter((f) => f.key !== CURSOR_FIELD).map((f) => `${JSON.stringify(f.key)}:${f.value}`).join(',')}}`, cursor };
  });
}
