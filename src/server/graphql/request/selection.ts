import { getVariableValues, Kind, type GraphQLSchema, type VariableDefinitionNode } from 'graphql';
import { SelectionContext } from '../compile/index.js';
import type { CachedOperation } from './plan-cache.js';
import { variablesShape } from './prepare.js';
import { checkVariables } from './validate.js';

/**
 * A prepared operation with this request's variables: checked against their types (throws the GraphQL error), the
 * plan key of their shape, and the selection context compiling and binding read. Shared by a request and its explain,
 * so that both see the same variables.
 */
export function selectionOf(
  schema: GraphQLSchema, entry: Pick<CachedOperation, 'doc' | 'op'>, variables: Record<string, unknown>, stringifyNumeric = false,
): { sel: SelectionContext; varsKey: string } {
  const { doc, op } = entry;
  const bad = checkVariables(schema, op, variables);
  if (bad) throw bad;
  // Coerced values serve @skip/@include only, whose `if` takes Boolean variables: the others (a nested insert's
  // thousands of objects) were checked by checkVariables and are read as given.
  const coerced = getVariableValues(schema, (op.variableDefinitions ?? []).filter(isBooleanVariable), variables);
  const { key: varsKey, bound } = variablesShape(schema, op, variables);
  const sel = new SelectionContext(doc, op, variables, 'coerced' in coerced ? (coerced.coerced ?? {}) : {}, bound, stringifyNumeric);
  return { sel, varsKey };
}

/** A variable of type Boolean or Boolean!: the only ones @skip and @include may read. */
function isBooleanVariable(def: VariableDefinitionNode): boolean {
  const t = def.type.kind === Kind.NON_NULL_TYPE ? def.type.type : def.type;
  return t.kind === Kind.NAMED_TYPE && t.name.value === 'Boolean';
}
