import { getDirectiveValues, GraphQLIncludeDirective, GraphQLSkipDirective, type DocumentNode, type FieldNode, type FragmentDefinitionNode, type OperationDefinitionNode, type ValueNode } from 'graphql';
import { fragmentMap } from './paths.js';
import { argsOf, collectFields, type GValue, type Variables } from './values.js';

/** The operation being compiled: its fragments, variables and directives (@skip/@include, graphql-api.md §4.8). */
export class SelectionContext {
  readonly fragments: Map<string, FragmentDefinitionNode>;
  private readonly defaults = new Map<string, ValueNode>();

  /**
   * `bound`: the scalar variables left as parameters, so that the plan serves any of their values.
   * `stringifyNumeric`: bigint, numeric and float8 answered as strings (ENGINE_GRAPHQL_STRINGIFY_NUMERIC_TYPES).
   */
  constructor(
    doc: DocumentNode, readonly op: OperationDefinitionNode, readonly variables: Variables, private readonly coerced: Record<string, unknown>,
    readonly bound: Set<string> = new Set(), readonly stringifyNumeric = false,
  ) {
    this.fragments = fragmentMap(doc);
    for (const d of op.variableDefinitions ?? []) if (d.defaultValue) this.defaults.set(d.variable.name.value, d.defaultValue);
  }

  readonly include = (node: { directives?: readonly unknown[] }): boolean => {
    const n = node as Parameters<typeof getDirectiveValues>[1];
    if (getDirectiveValues(GraphQLSkipDirective, n, this.coerced)?.['if'] === true) return false;
    return getDirectiveValues(GraphQLIncludeDirective, n, this.coerced)?.['if'] !== false;
  };

  rootFields(): Map<string, FieldNode[]> {
    return collectFields(this.op.selectionSet, this.fragments, this.include);
  }

  /** The merged sub-selections of the nodes of one response key. */
  subfields(nodes: FieldNode[]): Map<string, FieldNode[]> {
    const out = new Map<string, FieldNode[]>();
    for (const n of nodes) if (n.selectionSet) collectFields(n.selectionSet, this.fragments, this.include, out);
    return out;
  }

  args(node: FieldNode): Map<string, GValue> {
    return argsOf(node, this.variables, this.defaults, this.bound);
  }
}
