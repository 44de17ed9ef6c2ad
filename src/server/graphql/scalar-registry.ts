import { specifiedScalarTypes, type GraphQLScalarType } from 'graphql';
import { columnScalar, customScalar } from './scalars.js';

/**
 * The scalars of one schema by name: a column type, a PostgreSQL type named by a custom type and a custom scalar
 * with the same name are one scalar (graphql-api.md §2.3), so each name gets exactly one object.
 */
export class ScalarRegistry {
  private readonly byName = new Map<string, GraphQLScalarType>(specifiedScalarTypes.map((s) => [s.name, s]));
  /** Asked for every column, argument and comparison of a schema: the few type names are resolved once each. */
  private readonly byTypeName = new Map<string, GraphQLScalarType>();

  column(typeName: string): GraphQLScalarType {
    let known = this.byTypeName.get(typeName);
    if (!known) {
      const s = columnScalar(typeName);
      known = this.byName.get(s.name) ?? this.add(s);
      this.byTypeName.set(typeName, known);
    }
    return known;
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
