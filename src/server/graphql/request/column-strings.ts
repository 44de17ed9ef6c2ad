import {
  getNamedType, getNullableType, GraphQLBoolean, GraphQLFloat, GraphQLInt, isInputObjectType, isListType, ValuesOfCorrectTypeRule,
  type ASTVisitor, type GraphQLInputType, type ValidationContext,
} from 'graphql';
import { COLUMN_VALUE } from '../schema/index.js';

/**
 * The incumbent parses a column's value from its JSON form, so a string is taken for every column type — also where
 * the scalar is GraphQL's own Int, Float or Boolean (`c2_integer: "2147483647"`, `c20_boolean: "true"`) — and
 * PostgreSQL parses the text (`"abc"` fails there, as a data exception). Those three scalars are graphql-js's own
 * (introspection and @include/@skip need its Boolean), so their literal check stays; this rule lets a string through
 * only at a position that takes a column's value (COLUMN_VALUE, schema/extensions.ts), and is otherwise
 * ValuesOfCorrectTypeRule. It runs only when a document is validated: a cached document pays nothing.
 */

const OWN = new Set<unknown>([GraphQLInt, GraphQLFloat, GraphQLBoolean]);

/** Whether a column's value of this (named) type may be a string that its GraphQL scalar refuses. */
export const takesColumnString = (type: unknown): boolean => OWN.has(type);

/**
 * Whether a variable's value at `path` (as coerceInputValue reports it) is a column's value of type Int, Float or
 * Boolean, where a JSON string is taken as a literal string is.
 */
export function columnStringAt(type: GraphQLInputType, path: readonly (string | number)[]): boolean {
  let column = false;
  let t: GraphQLInputType = type;
  for (const k of path) {
    if (typeof k === 'number') {
      const list = getNullableType(t);
      if (!isListType(list)) return false;
      t = list.ofType as GraphQLInputType;
      continue;
    }
    const obj = getNamedType(t);
    const field = isInputObjectType(obj) ? obj.getFields()[k] : undefined;
    if (!field) return false;
    column = field.extensions === COLUMN_VALUE;
    t = field.type;
  }
  return column && OWN.has(getNamedType(t));
}

export function ColumnStringsValuesRule(context: ValidationContext): ASTVisitor {
  const inner = ValuesOfCorrectTypeRule(context) as Record<string, unknown>;
  const innerString = inner['StringValue'] as ((...args: unknown[]) => unknown) | undefined;
  // Whether each enclosing argument or input field (innermost last) takes a column's value.
  const column: boolean[] = [];
  return {
    ...inner,
    Argument: {
      enter: () => {
        column.push(context.getArgument()?.extensions === COLUMN_VALUE);
      },
      leave: () => {
        column.pop();
      },
    },
    ObjectField: {
      enter: (node, ...rest) => {
        const parent = getNamedType(context.getParentInputType());
        column.push(isInputObjectType(parent) && parent.getFields()[node.name.value]?.extensions === COLUMN_VALUE);
        return (inner['ObjectField'] as ((...args: unknown[]) => unknown) | undefined)?.(node, ...rest);
      },
      leave: () => {
        column.pop();
      },
    },
    StringValue: (...args: unknown[]) => {
      if (column[column.length - 1] === true && OWN.has(getNamedType(context.getInputType()))) return undefined;
      return innerString?.(...args);
    },
  } as ASTVisitor;
}
