import { GraphQLScalarType, specifiedScalarTypes } from 'graphql';
import { columnScalar, customScalar, scalarName } from './scalars.js';

/**
 * The scalars of one schema by name: a column type, a PostgreSQL type named by a custom type and a custom scalar
 * with the same name are one scalar (graphql-api.md §2.3), so each name gets exactly one object.
 */
export class ScalarRegistry {
  private readonly byName = new Map<string, GraphQLScalarType>(specifiedScalarTypes.map((s) => [s.name, s]));
  /** Asked for every column, argument and comparison of a schema: the few type names are resolved once each. */
  private readonly byTypeName = new Map<string, GraphQLScalarType>();

  /** `taken`: names of the schema's generated types (Claims.typeTaken), which a PostgreSQL type's scalar must avoid. */
  constructor(private readonly taken: (name: string) => boolean = () => false) {}

  column(typeName: string): GraphQLScalarType {
    let known = this.byTypeName.get(typeName);
    if (!known) {
      const s = columnScalar(typeName);
      known = this.byName.get(s.name) ?? this.add(this.free(s));
      this.byTypeName.set(typeName, known);
    }
    return known;
  }

  /**
   * A PostgreSQL type named like a generated type (an enum type `mood` and a table named `mood`, issue 27): its scalar
   * (and so its `_comparison_exp`) takes the first free name of `<name>_scalar`, `<name>_scalar_2`, …
   */
  private free(s: GraphQLScalarType): GraphQLScalarType {
    const clash = (n: string) => this.taken(n) || this.taken(`${n}_comparison_exp`) || (n !== s.name && this.byName.has(n));
    if (!clash(s.name)) return s;
    let name = `${s.name}_scalar`;
    for (let i = 2; clash(name); i++) name = `${s.name}_scalar_${i}`;
    return new GraphQLScalarType({ ...s.toConfig(), name });
  }

  /**
   * The scalar of a row (composite) type given as a function argument: `<type>_scalar`, a String holding the record's
   * text, as the incumbent names it (a tracked table of that name has the object type).
   */
  composite(typeName: string): GraphQLScalarType {
    const name = `${scalarName(typeName)}_scalar`;
    return this.byName.get(name) ?? this.add(this.free(customScalar(name, 'text')));
  }

  /** A scalar named by a custom type or action: a known one, else a custom scalar accepting any value. */
  named(name: string, description?: string): GraphQLScalarType {
    return this.byName.get(name) ?? this.add(customScalar(name, 'any', description));
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  private add(s: GraphQLScalarType): GraphQLScalarType {
    this.byName.set(s.name, s);
    return s;
  }
}
