import {
  GraphQLEnumType, GraphQLInputObjectType, GraphQLList, GraphQLNonNull, GraphQLObjectType, parseType, Kind,
  type GraphQLFieldConfigMap, type GraphQLInputType, type GraphQLNamedType, type GraphQLOutputType, type TypeNode,
} from 'graphql';
import { namedType } from '../../../metadata/kinds/actions.js';
import type { JsonObject } from '../../../metadata/json.js';
import { qnKey } from '../../../metadata/names.js';
import type { Action, QualifiedName } from '../../../metadata/types.js';
import { info } from './field-info.js';
import type { TableTypes } from './tables.js';
import type { TableView } from './visibility.js';

/**
 * Custom types and action fields for one role (graphql-api.md §2.9). The types are built on demand, so a role's
 * schema holds only those its visible actions reach. Synchronous actions are executed by actions/call.ts, asynchronous
 * ones compile to statements on action_log (actions/async.ts).
 */

interface CtField { name: string; type: string; description?: string }
interface CtRel { name: string; type: 'object' | 'array'; remote_table: QualifiedName; field_mapping: Record<string, string> }

export class ActionTypes {
  private readonly named = new Map<string, GraphQLNamedType>();
  private readonly defs = new Map<string, { kind: 'scalar' | 'enum' | 'input_object' | 'object'; def: JsonObject }>();

  constructor(private readonly tt: TableTypes, customTypes: { scalars: unknown[]; enums: unknown[]; input_objects: unknown[]; objects: unknown[] }) {
    for (const kind of ['scalars', 'enums', 'input_objects', 'objects'] as const) {
      const k = kind === 'scalars' ? 'scalar' : kind === 'enums' ? 'enum' : kind === 'objects' ? 'object' : 'input_object';
      for (const d of customTypes[kind] as JsonObject[]) this.defs.set(d['name'] as string, { kind: k, def: d });
    }
  }

  private namedType(name: string): GraphQLNamedType {
    const known = this.named.get(name);
    if (known) return known;
    const d = this.defs.get(name);
    const desc = (d?.def['description'] as string | undefined) ?? undefined;
    let t: GraphQLNamedType;
    if (!d || d.kind === 'scalar') t = this.tt.scalars.named(name, desc);
    else if (d.kind === 'enum') {
      const values = d.def['values'] as { value: string; description?: string; is_deprecated?: boolean }[];
      t = new GraphQLEnumType({
        name, description: desc,
        values: Object.fromEntries(values.map((v) => [v.value, { value: v.value, description: v.description, deprecationReason: v.is_deprecated ? 'No longer supported' : undefined }])),
      });
    } else if (d.kind === 'input_object') {
      const fields = d.def['fields'] as unknown as CtField[];
      t = new GraphQLInputObjectType({
        name, description: desc,
        fields: () => Object.fromEntries(fields.map((f) => [f.name, { type: this.ref(f.type) as GraphQLInputType, description: f.description }])),
      });
    } else {
      const fields = d.def['fields'] as unknown as CtField[];
      const rels = (d.def['relationships'] as unknown as CtRel[] | undefined) ?? [];
      t = new GraphQLObjectType({
        name, description: desc,
        fields: () => {
          const f: GraphQLFieldConfigMap<unknown, unknown> = {};
          for (const x of fields) f[x.name] = { type: this.ref(x.type) as GraphQLOutputType, description: x.description };
          for (const r of rels) {
            const remote = this.tt.role.table(qnKey(r.remote_table));
            if (!remote) continue;
            const mapping = Object.entries(r.field_mapping).map(([field, column]) => {
              const c = remote.rt.db.columns.get(column);
              return { field, column, castType: c?.castType ?? 'text' };
            });
            const extensions = info({ kind: 'action_rel', view: remote, source: { kind: 'json', mapping }, array: r.type === 'array' });
            f[r.name] = r.type === 'object'
              ? { type: this.tt.objectType(remote), extensions }
              : { type: this.listOf(remote), args: this.tt.listArgs(remote), extensions };
          }
          return f;
        },
      });
    }
    this.named.set(name, t);
    return t;
  }

  private listOf(v: TableView): GraphQLOutputType {
    return new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(this.tt.objectType(v))));
  }

  /** A type reference as written in the metadata (`[UserId!]!`). */
  ref(text: string): GraphQLInputType | GraphQLOutputType {
    const walk = (n: TypeNode): GraphQLInputType | GraphQLOutputType => {
      if (n.kind === Kind.NON_NULL_TYPE) return new GraphQLNonNull(walk(n.type) as GraphQLOutputType);
      if (n.kind === Kind.LIST_TYPE) return new GraphQLList(walk(n.type)) as GraphQLOutputType;
      return this.namedType(n.name.value) as GraphQLInputType | GraphQLOutputType;
    };
    return walk(parseType(text));
  }

  /**
   * The root fields of an action: a synchronous mutation action's mutation field, a query action's query field, an
   * asynchronous action's mutation field and its query field.
   */
  actionFields(a: Action): { mutation: GraphQLFieldConfigMap<unknown, unknown>; query: GraphQLFieldConfigMap<unknown, unknown> } {
    const args = Object.fromEntries(a.definition.arguments.map((x) => [x.name, { type: this.ref(x.type) as GraphQLInputType, description: x.description }]));
    const description = a.comment ?? undefined;
    if (a.definition.kind === 'synchronous') {
      const field = { [a.name]: { type: this.ref(a.definition.output_type) as GraphQLOutputType, args, description, extensions: info({ kind: 'action', action: a }) } };
      return a.definition.type === 'query' ? { mutation: {}, query: field } : { mutation: field, query: {} };
    }
    const uuid = this.tt.scalars.column('uuid');
    const output = a.definition.output_type.replace(/!$/, '');
    const result = new GraphQLObjectType({
      name: `${a.name}_async_result`,
      fields: () => ({
        id: { type: new GraphQLNonNull(uuid) },
        created_at: { type: new GraphQLNonNull(this.tt.scalars.column('timestamp with time zone')) },
        output: { type: this.ref(output) as GraphQLOutputType },
        errors: { type: this.tt.scalars.column('json') },
      }),
    });
    return {
      mutation: { [a.name]: {
        type: new GraphQLNonNull(uuid), args, description,
        extensions: info({ kind: 'async_action', action: a, output: this.ref(a.definition.output_type) as GraphQLOutputType }),
      } },
      query: { [a.name]: { type: result, args: { id: { type: new GraphQLNonNull(uuid) } }, description, extensions: info({ kind: 'async_result', action: a }) } },
    };
  }

  /** Names an action's types would take: the caller checks them for collisions. */
  static typeNames(a: Action): string[] {
    return [namedType(a.definition.output_type), ...(a.definition.kind === 'asynchronous' ? [`${a.name}_async_result`] : [])];
  }
}
