import {
  coerceInputValue, GraphQLError, isNonNullType, NoFragmentCyclesRule, NoUnusedVariablesRule, print, specifiedRules, typeFromAST, validate, valueFromAST, ValuesOfCorrectTypeRule,
  type ASTNode, type DocumentNode, type GraphQLInputType, type GraphQLSchema, type OperationDefinitionNode,
} from 'graphql';
import type { ApiError } from '../../../errors.js';
import { pathIndex, pathKey } from '../../../metadata/json.js';
import { gqlError, validationFailed } from '../errors.js';
import { SpatialValueError } from '../schema/index.js';
import { nodePaths } from '../compile/index.js';
import { ColumnStringsValuesRule, columnStringAt } from './column-strings.js';
import { inputValid } from './input-valid.js';
import { withoutStringOffsets } from './string-offset.js';

/**
 * GraphQL validation (spec §5) with the engine's messages and paths (graphql-api.md §6.1 rows 12–25): the rules of
 * the `graphql` package decide, this module only rewrites what they report. The first error in document order wins.
 */

const named = (t: string): string => t.replace(/[[\]!]/g, '');

type Mapped = { path: string; message: string } | { node: ASTNode | undefined; suffix?: string; message: string; code?: string };

function mapError(e: GraphQLError): Mapped {
  const m = e.message;
  const node = e.nodes?.[0];
  let r: RegExpExecArray | null;
  // The incumbent parses GeoJSON and raster values itself: its sentence, as a parse failure at the value.
  if (e.originalError instanceof SpatialValueError) return { node, message: e.originalError.message, code: 'parse-failed' };
  if ((r = /^Cannot query field "(.+?)" on type "(.+?)"\./.exec(m))) return { node, message: `field "${r[1]}" not found in type: '${r[2]}'` };
  if ((r = /^Unknown argument "(.+?)" on field "(?:.+?)\.(.+?)"\./.exec(m))) return { node: node, message: `"${r[2]}" has no argument named "${r[1]}"` };
  if ((r = /^Field "(.+?)" is not defined by type "(.+?)"\./.exec(m))) return { node, message: `field "${r[1]}" not found in type: '${r[2]}'` };
  if ((r = /^Field "(?:.+?)" argument "(.+?)" of type ".+?" is required, but it was not provided\./.exec(m))) return { node, suffix: '.args', message: `missing required field "${r[1]}"` };
  if ((r = /^Field ".+?\.(.+?)" of required type ".+?" was not provided\./.exec(m))) return { node, message: `missing required field "${r[1]}"` };
  if ((r = /^Field ".+?" of type "(.+?)" must have a selection of subfields/.exec(m))) return { node, message: `missing selection set for "${named(r[1] ?? '')}"` };
  if ((r = /^Field ".+?" must not have a selection since type "(.+?)" has no subfields/.exec(m))) return { node, message: `unexpected selection set for "${named(r[1] ?? '')}"` };
  if ((r = /^Expected value of type "(.+?)", found null\./.exec(m))) return { node, message: `null value found for non-nullable type: "${r[1]}"` };
  if ((r = /^Expected value of type "(.+?)", found /.exec(m))) return { node, message: `invalid value for type "${named(r[1] ?? '')}": ${node ? print(node) : ''}` };
  if ((r = /^(\w+) cannot represent /.exec(m)) || (r = /^Enum "(.+?)" cannot represent/.exec(m)) || (r = /^Value ".*" does not exist in "(.+?)" enum/.exec(m))) {
    return { node, message: `invalid value for type "${r[1]}": ${node ? print(node) : ''}` };
  }
  if ((r = /^Variable "\$(.+?)" is not defined/.exec(m))) return { node, message: `variable "${r[1]}" is not defined` };
  if ((r = /^Variable "\$(.+?)" of type "(.+?)" used in position expecting type "(.+?)"\./.exec(m))) {
    return { node: e.nodes?.[1], message: `variable "${r[1]}" of type "${r[2]}" is used in position expecting "${r[3]}"` };
  }
  if ((r = /^Unknown type "(.+?)"\./.exec(m))) return { path: '$', message: `unknown type "${r[1]}"` };
  if ((r = /^Unknown fragment "(.+?)"\./.exec(m))) return { path: '$', message: `unknown fragment "${r[1]}"` };
  // graphql-js gives up past its work budget (fields of one response key compared pairwise, fragment spreads).
  if (m === 'Validation aborted.') return { path: '$', message: 'the query is too complex to validate (beyond the validator\'s budget for comparing fields and fragments)' };
  return { path: '$', message: m };
}

/**
 * The incumbent does not run NoUnusedVariables (issue 29.8): a declared variable no field uses is accepted. Values
 * are checked as the incumbent does at column positions (column-strings.ts).
 */
export const ENGINE_RULES = specifiedRules
  .filter((rule) => rule !== NoUnusedVariablesRule)
  .map((rule) => (rule === ValuesOfCorrectTypeRule ? ColumnStringsValuesRule : rule));

/**
 * Fragment cycles, checked first and alone: every later walk of the document (the limits of doc-limits.ts, the
 * overlapping-fields rule) would expand a cycle through nested fields without end.
 */
export function fragmentCycle(schema: GraphQLSchema, doc: DocumentNode): ApiError | null {
  const cycles = validate(schema, doc, [NoFragmentCyclesRule], { maxErrors: 1 });
  if (!cycles[0]) return null;
  const cycle = /^Cannot spread fragment "(.+?)" within itself(?: via (.+?))?\.$/.exec(cycles[0].message);
  const names = [cycle?.[1] ?? '', ...(cycle?.[2] ?? '').split(', ').map((x) => x.replace(/"/g, '')).filter((x) => x !== '')];
  return validationFailed('$', `the fragment definition(s) ${names.join(' and ')} form a cycle`);
}

/**
 * Validates the document against the role's schema; returns the first error as the engine reports it, or null.
 * Call it on a document without fragment cycles (fragmentCycle).
 */
export function validateDocument(schema: GraphQLSchema, doc: DocumentNode, op: OperationDefinitionNode): ApiError | null {
  const errors = withoutStringOffsets(doc, validate(schema, doc, ENGINE_RULES, { maxErrors: 100 }));
  if (errors.length === 0) return null;
  // The rules run in one pass over the document, so their order is document order (rules reporting on leave last).
  const first = errors[0] as GraphQLError;
  const mapped = mapError(first);
  if ('path' in mapped) return validationFailed(mapped.path, mapped.message);
  const paths = nodePaths(doc, op);
  const base = mapped.node ? paths.get(mapped.node) : undefined;
  return gqlError(mapped.code ?? 'validation-failed', base === undefined ? '$' : base + (mapped.suffix ?? ''), mapped.message);
}

/** The variable's JSON value printed in messages. */
const show = (v: unknown): string => JSON.stringify(v) ?? 'null';

/**
 * Coerces the request's variables (GraphQL spec §6.1.2, graphql-api.md §6.1 rows 18–20). Only errors matter: the
 * compiler reads the JSON values as given (their key order is significant for `order_by`).
 */
export function checkVariables(schema: GraphQLSchema, op: OperationDefinitionNode, variables: Record<string, unknown>): ApiError | null {
  for (const def of op.variableDefinitions ?? []) {
    const name = def.variable.name.value;
    const type = typeFromAST(schema, def.type as never) as GraphQLInputType | undefined;
    if (!type) continue;
    const path = pathKey('$.variables', name);
    if (!(name in variables) || variables[name] === undefined) {
      if (!def.defaultValue && isNonNullType(type)) return validationFailed('$.variables', `expecting a value for non-nullable variable: "${name}"`);
      if (def.defaultValue) valueFromAST(def.defaultValue, type);
      continue;
    }
    // The quick check first (thousands of objects, issue 30); the package's coercion reports what it refuses.
    if (inputValid(variables[name], type)) continue;
    let failure: ApiError | null = null;
    coerceInputValue(variables[name], type, (p, invalid, error) => {
      if (failure || (typeof invalid === 'string' && columnStringAt(type, p))) return;
      const at = p.reduce<string>((acc, k) => (typeof k === 'number' ? pathIndex(acc, k) : pathKey(acc, k)), path);
      failure = variableError(at, invalid, error);
    });
    if (failure) return failure;
  }
  return null;
}

function variableError(path: string, invalid: unknown, error: GraphQLError): ApiError {
  if (error.originalError instanceof SpatialValueError) return gqlError('parse-failed', path, error.originalError.message);
  const m = error.message;
  let r: RegExpExecArray | null;
  if ((r = /^Expected non-nullable type "(.+?)" not to be null/.exec(m))) return validationFailed(path, `null value found for non-nullable type: "${r[1]}"`);
  if ((r = /^Field "(.+?)" is not defined by type "(.+?)"\./.exec(m))) return validationFailed(pathKey(path, r[1] ?? ''), `field "${r[1]}" not found in type: '${r[2]}'`);
  if ((r = /^Field "(.+?)" of required type "(.+?)" was not provided\./.exec(m))) return validationFailed(path, `missing required field "${r[1]}"`);
  const type = /^(\w+) cannot represent/.exec(m)?.[1] ?? /^Expected type "(.+?)"/.exec(m)?.[1] ?? /in "(.+?)" enum/.exec(m)?.[1] ?? /^Enum "(.+?)"/.exec(m)?.[1] ?? '';
  return validationFailed(path, `invalid value for type "${named(type)}": ${show(invalid)}`);
}
