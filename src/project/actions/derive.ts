import {
  buildClientSchema, getNamedType, GraphQLEnumType, GraphQLError, GraphQLInputObjectType, GraphQLObjectType,
  GraphQLScalarType, isLeafType, Kind, parse, print, specifiedScalarTypes,
  type DocumentNode, type GraphQLNamedType, type GraphQLSchema, type GraphQLType, type IntrospectionQuery, type TypeNode,
} from 'graphql';
import { CliError } from '../../errors.js';

// Re-exported for the CLI, which loads this module with import(): graphql itself behind import() would be, in the
// bundle, a CommonJS module with only a default export (scripts/bundle.mjs).
export { getIntrospectionQuery } from 'graphql';

/**
 * `engine actions create --derive-from '<operation>'` (cli.md §5.10, Derivation): an action definition (SDL text) made
 * from one mutation of the engine's GraphQL schema.
 */

export interface Derived {
  sdl: string;
  warnings: { code: string; message: string }[];
}

const fail = (reason: string): CliError => new CliError('derive-failed', `cannot derive an action from the operation: ${reason}`, 1);

const BUILTIN = new Set(specifiedScalarTypes.map((t) => t.name));

/** The schema from an introspection response (`{"data": {"__schema": …}}`). */
export function schemaFromIntrospection(response: Record<string, unknown>): GraphQLSchema {
  const data = response['data'] as IntrospectionQuery | undefined;
  if (!data || typeof data !== 'object' || !('__schema' in data)) {
    const errors = response['errors'] as { message?: string }[] | undefined;
    throw fail(`the introspection query failed${errors?.[0]?.message ? `: ${errors[0].message}` : ''}`);
  }
  try {
    return buildClientSchema(data);
  } catch (e) {
    throw fail(`the engine's schema could not be read: ${e instanceof Error ? e.message : String(e)}`);
  }
}

export function deriveAction(name: string, operation: string, schema: GraphQLSchema): Derived {
  const warnings: Derived['warnings'] = [];
  let doc: DocumentNode;
  try {
    doc = parse(operation);
  } catch (e) {
    if (e instanceof GraphQLError) throw fail(e.message);
    throw e;
  }
  const ops = doc.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  if (ops.length !== 1 || doc.definitions.length !== 1) throw fail(`expected exactly one operation, found ${doc.definitions.length}`);
  const op = ops[0];
  if (!op || op.kind !== Kind.OPERATION_DEFINITION) throw fail('expected exactly one operation');
  if (op.operation !== 'mutation') throw fail(`expected a mutation, got a ${op.operation}`);
  const roots = op.selectionSet.selections;
  const root = roots[0];
  if (roots.length !== 1 || !root || root.kind !== Kind.FIELD) throw fail(`expected exactly one root field, found ${roots.length}`);
  const field = schema.getMutationType()?.getFields()[root.name.value];
  if (!field) throw fail(`the engine's schema has no mutation field "${root.name.value}"`);

  const prefix = `${name}_`;
  const copied = new Map<string, string>();
  const scalars = new Set<string>();
  const queue: GraphQLNamedType[] = [];
  /** The name a schema type takes in actions.graphql, queueing what must be copied or declared. */
  const rename = (t: GraphQLNamedType): string => {
    if (t instanceof GraphQLScalarType) {
      if (!BUILTIN.has(t.name)) scalars.add(t.name);
      return t.name;
    }
    if (t instanceof GraphQLEnumType || t instanceof GraphQLInputObjectType) {
      if (!copied.has(t.name)) {
        copied.set(t.name, '');
        queue.push(t);
      }
      return prefix + t.name;
    }
    throw fail(`type "${t.name}" cannot be used by an action`);
  };
  const typeRef = (t: TypeNode): string => {
    if (t.kind === Kind.NON_NULL_TYPE) return `${typeRef(t.type)}!`;
    if (t.kind === Kind.LIST_TYPE) return `[${typeRef(t.type)}]`;
    const named = schema.getType(t.name.value);
    if (!named) throw fail(`unknown type "${t.name.value}"`);
    return rename(named);
  };
  const schemaRef = (t: GraphQLType): string => {
    const s = String(t);
    const n = getNamedType(t);
    return s.replace(n.name, rename(n));
  };

  const args = (op.variableDefinitions ?? []).map((v) => {
    if (v.defaultValue) {
      warnings.push({ code: 'derive-default-dropped', message: `the default value of variable "$${v.variable.name.value}" (${print(v.defaultValue)}) was dropped` });
    }
    return `${v.variable.name.value}: ${typeRef(v.type)}`;
  });

  const returned = getNamedType(field.type);
  if (!(returned instanceof GraphQLObjectType) || !root.selectionSet) {
    throw fail(`the root field "${root.name.value}" must return an object type with a selection`);
  }
  const outFields: string[] = [];
  for (const sel of root.selectionSet.selections) {
    if (sel.kind !== Kind.FIELD) {
      warnings.push({ code: 'derive-selection-skipped', message: 'a fragment in the selection was skipped' });
      continue;
    }
    const key = sel.alias?.value ?? sel.name.value;
    if (sel.name.value === '__typename') continue;
    const f = returned.getFields()[sel.name.value];
    if (!f) throw fail(`type "${returned.name}" has no field "${sel.name.value}"`);
    if (sel.selectionSet || !isLeafType(getNamedType(f.type))) {
      warnings.push({ code: 'derive-selection-skipped', message: `the nested selection "${key}" was skipped` });
      continue;
    }
    outFields.push(`  ${key}: ${schemaRef(f.type)}`);
  }
  if (outFields.length === 0) throw fail(`the selection of "${root.name.value}" has no leaf fields`);

  const defs: string[] = [];
  for (let t = queue.shift(); t; t = queue.shift()) {
    if (t instanceof GraphQLEnumType) {
      defs.push(`enum ${prefix}${t.name} {\n${t.getValues().map((v) => `  ${v.name}`).join('\n')}\n}`);
    } else if (t instanceof GraphQLInputObjectType) {
      const fs = Object.values(t.getFields()).map((f) => `  ${f.name}: ${schemaRef(f.type)}`);
      defs.push(`input ${prefix}${t.name} {\n${fs.join('\n')}\n}`);
    }
  }
  const Name = name.charAt(0).toUpperCase() + name.slice(1);
  const out = `type ${Name}Output {\n${outFields.join('\n')}\n}`;
  const mutation = `type Mutation {\n  ${name}${args.length > 0 ? `(${args.join(', ')})` : ''}: ${Name}Output\n}`;
  const scalarDefs = [...scalars].sort().map((s) => `scalar ${s}`);
  return { sdl: `${[mutation, ...defs, ...scalarDefs, out].join('\n\n')}\n`, warnings };
}
