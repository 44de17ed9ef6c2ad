import {
  getNullableType, GraphQLError, GraphQLScalarType, Kind, parse, typeFromAST,
  type DocumentNode, type GraphQLSchema, type OperationDefinitionNode,
} from 'graphql';
import { gqlError, validationFailed } from '../errors.js';
import { fragmentMap, selectionDepth } from '../compile/index.js';
import { checkActionCombination } from '../actions/index.js';
import { checkDocumentLimits, withoutRepeatedFields, type DocumentLimits } from './doc-limits.js';
import type { CachedOperation } from './plan-cache.js';
import { fragmentCycle, validateDocument } from './validate.js';

/** Limits on hostile documents (decisions: a clear error instead of unbounded work). */
export const MAX_QUERY_TOKENS = 100_000;
export const MAX_QUERY_DEPTH = 32;

/**
 * Which variables are bound as parameters (non-null, non-boolean values of scalar types) and the key of the compiled
 * plans: the other variables' values (objects, lists, enums, booleans, nulls) can change the SQL text (§7.4).
 */
export function variablesShape(schema: GraphQLSchema, op: OperationDefinitionNode, vars: Record<string, unknown>): { key: string; bound: Set<string> } {
  const bound = new Set<string>();
  const shape: Record<string, unknown> = {};
  for (const def of op.variableDefinitions ?? []) {
    const name = def.variable.name.value;
    const v = vars[name];
    const type = typeFromAST(schema, def.type as never);
    if (v !== undefined && v !== null && typeof v !== 'boolean' && type && getNullableType(type) instanceof GraphQLScalarType) {
      bound.add(name);
      shape[name] = { bound: true };
    } else shape[name] = v === undefined ? { absent: true } : { value: v };
  }
  return { key: JSON.stringify(shape), bound };
}

/** Steps 3–6 of §1.3: parse, select the operation, check its kind and depth, validate. */
export function prepare(schema: GraphQLSchema, query: string, operationName: string | null, limits: DocumentLimits): CachedOperation {
  return prepareDocument(schema, parseQuery(query), operationName, limits);
}

/** Step 3 of §1.3 (traces show it apart from the rest). */
export function parseQuery(query: string): DocumentNode {
  try {
    // Without locations: they keep every token of the document alive (tens of bytes each) for as long as it is cached.
    return parse(query, { maxTokens: MAX_QUERY_TOKENS, noLocation: true });
  } catch (e) {
    if (!(e instanceof GraphQLError)) throw e;
    const loc = e.locations?.[0];
    const description = e.message.replace(/^Syntax Error: /, '').replace(/\.$/, '');
    throw gqlError('parse-failed', '$.query', `not a valid graphql query: ${description}${loc ? ` (line ${loc.line}, column ${loc.column})` : ''}`);
  }
}

/** Steps 4–6 of §1.3 on a parsed document. */
export function prepareDocument(schema: GraphQLSchema, parsed: DocumentNode, operationName: string | null, limits: DocumentLimits): CachedOperation {
  let doc = parsed;
  const ops = doc.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  let op: OperationDefinitionNode | undefined;
  if (operationName !== null) {
    op = ops.find((o) => o.name?.value === operationName);
    if (!op) {
      if (ops.length === 0) throw validationFailed('$.query', 'the document contains no operation');
      throw validationFailed('$.operationName', `no operation named "${operationName}" in the document`);
    }
  } else {
    if (ops.length === 0) throw validationFailed('$.query', 'the document contains no operation');
    if (ops.length > 1) throw validationFailed('$', 'operationName is required when the document contains several operations');
    op = ops[0] as OperationDefinitionNode;
  }
  if (op.operation === 'subscription') throw gqlError('not-supported', '$', 'subscriptions are not supported');
  if (op.operation === 'mutation' && !schema.getMutationType()) throw validationFailed('$', 'no mutations exist');
  const cycle = fragmentCycle(schema, doc);
  if (cycle) throw cycle;
  if (selectionDepth(doc, op) > MAX_QUERY_DEPTH) throw validationFailed('$', `the query is nested more than ${MAX_QUERY_DEPTH} levels deep`);
  const over = checkDocumentLimits(doc, op, limits);
  if (over) throw over;
  // Within the depth limit, printing the repeated fields costs at most that many times the document.
  const index = doc.definitions.indexOf(op);
  doc = withoutRepeatedFields(doc);
  op = doc.definitions[index] as OperationDefinitionNode;
  const invalid = validateDocument(schema, doc, op) ?? checkActionCombination(schema, op, fragmentMap(doc));
  if (invalid) throw invalid;
  return { doc, op, plans: new Map(), bytes: 0 };
}
