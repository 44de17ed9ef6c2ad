import { execute, Kind, TypeInfo, visit, visitWithTypeInfo, type DocumentNode, type FieldNode, type GraphQLSchema } from 'graphql';

/**
 * Introspection answered as the incumbent orders it: a type's `fields`, `interfaces`, `possibleTypes`, `enumValues`
 * and `inputFields`, a field's `args` and the schema's `types` by name (code-point order), the rest (`directives`,
 * a directive's `args`) as declared. The schema itself keeps its declaration order (SDL, printSchema).
 */

/** The lists sorted, by the introspection type holding them. */
const SORTED: Readonly<Record<string, ReadonlySet<string>>> = {
  __Schema: new Set(['types']),
  __Type: new Set(['fields', 'interfaces', 'possibleTypes', 'enumValues', 'inputFields']),
  __Field: new Set(['args']),
};

/**
 * The response key of the `name` added to each sorted list's elements: the order needs it even when the request
 * does not select `name`; it is removed from the answer. Not a key a request can write (`__` names are reserved).
 */
const ORDER_KEY = '__engine_order_name';

const orderField: FieldNode = { kind: Kind.FIELD, alias: { kind: Kind.NAME, value: ORDER_KEY }, name: { kind: Kind.NAME, value: 'name' } };

/** The document with `ORDER_KEY: name` selected in every list the incumbent sorts. */
function withOrderKeys(schema: GraphQLSchema, doc: DocumentNode): DocumentNode {
  const info = new TypeInfo(schema);
  return visit(
    doc,
    visitWithTypeInfo(info, {
      Field: {
        // On leave, TypeInfo still holds this field's parent type.
        leave(node) {
          const parent = info.getParentType()?.name;
          if (!node.selectionSet || parent === undefined || !SORTED[parent]?.has(node.name.value)) return undefined;
          return { ...node, selectionSet: { ...node.selectionSet, selections: [...node.selectionSet.selections, orderField] } };
        },
      },
    }),
  );
}

const byName = (a: Record<string, unknown>, b: Record<string, unknown>): number => {
  const x = String(a[ORDER_KEY]);
  const y = String(b[ORDER_KEY]);
  return x < y ? -1 : x > y ? 1 : 0;
};

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Sorts the lists whose elements carry ORDER_KEY and removes the key, in place. */
function order(v: unknown): void {
  if (Array.isArray(v)) {
    if (v.length > 1 && v.every((e) => isRecord(e) && ORDER_KEY in e)) (v as Record<string, unknown>[]).sort(byName);
    for (const e of v) order(e);
  } else if (isRecord(v)) {
    delete v[ORDER_KEY];
    for (const x of Object.values(v)) order(x);
  }
}

/** Executes an introspection-only document against the role's schema; the data in the incumbent's order. */
export function introspect(schema: GraphQLSchema, doc: DocumentNode, variables: Record<string, unknown>): { data?: Record<string, unknown> | null; errors?: readonly unknown[] } {
  const result = execute({ schema, document: withOrderKeys(schema, doc), variableValues: variables }) as { data?: Record<string, unknown> | null; errors?: readonly unknown[] };
  if (result.data) order(result.data);
  return result;
}
