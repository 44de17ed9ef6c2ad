import { badRequest } from '../../errors.js';
import { at, comment, graphqlName, obj, optBool, qualifiedName, req, reqStr } from '../../metadata/reader.js';
import { qnKey, qnQuoted } from '../../metadata/names.js';
import { cloneMetadata } from '../../metadata/document.js';
import { parseUsing } from '../../metadata/kinds/relationships.js';
import type { QualifiedName, RelKind, Relationship } from '../../metadata/types.js';
import { dependencyMessage, dependentsOf } from '../dependencies.js';
import { relId, relPrefix, relationshipRecord } from '../kinds/relationships.js';
import { op, SUCCESS, type Operation } from './operation.js';
import { requireTracked, takenName } from './tables.js';

interface CreateArgs {
  table: QualifiedName;
  rel: Relationship;
}

function createRelationship(kind: RelKind): Operation<CreateArgs> {
  return {
    write: true,
    parse(args, path) {
      const o = obj(args, path);
      return {
        table: qualifiedName(req(o, 'table', path), at(path, 'table')),
        rel: {
          name: graphqlName(req(o, 'name', path), at(path, 'name')),
          using: parseUsing(kind, req(o, 'using', path), at(path, 'using')),
          comment: comment(o, path),
        },
      };
    },
    async run(ctx, { table, rel }) {
      requireTracked(ctx, table);
      const remote = 'manual_configuration' in rel.using
        ? [rel.using.manual_configuration.remote_table]
        : typeof rel.using.foreign_key_constraint_on === 'string' ? [] : [rel.using.foreign_key_constraint_on.table];
      await ctx.refreshTables([table, ...remote]);
      const taken = takenName(ctx, table, rel.name);
      if (taken) {
        throw badRequest('already-exists', '$.args.name', `"${rel.name}" conflicts with an existing ${taken} of table ${qnQuoted(table)}`);
      }
      const md = cloneMetadata(ctx.metadata);
      const entry = md.tables.get(qnKey(table));
      if (!entry) return SUCCESS;
      const field = kind === 'object' ? 'object_relationships' : 'array_relationships';
      md.tables.set(qnKey(table), { ...entry, [field]: [...entry[field], rel] });
      ctx.apply(md, 'incremental', {
        id: relId(kind, table, rel.name), table, prefix: relPrefix(table, rel.name),
        record: () => relationshipRecord(kind, table, rel, ''),
      });
      return SUCCESS;
    },
  };
}

const dropRelationship: Operation<{ table: QualifiedName; name: string; cascade: boolean }> = {
  write: true,
  parse(args, path) {
    const o = obj(args, path);
    return {
      table: qualifiedName(req(o, 'table', path), at(path, 'table')),
      name: reqStr(o, 'relationship', path),
      cascade: optBool(o, 'cascade', path, false),
    };
  },
  async run(ctx, { table, name, cascade }) {
    requireTracked(ctx, table);
    const entry = ctx.metadata.tables.get(qnKey(table));
    const kind: RelKind | null = entry?.object_relationships.some((r) => r.name === name)
      ? 'object'
      : entry?.array_relationships.some((r) => r.name === name) ? 'array' : null;
    if (!entry || !kind) {
      throw badRequest('not-exists', '$.args.relationship', `relationship "${name}" does not exist in table ${qnQuoted(table)}`);
    }
    const deps = dependentsOf(ctx.cache, [{ kind: 'relationship', table, name }], new Set(), cascade);
    if (deps.length > 0 && !cascade) throw badRequest('dependency-error', '$.args', dependencyMessage(deps));
    const md = cloneMetadata(ctx.metadata);
    const field = kind === 'object' ? 'object_relationships' : 'array_relationships';
    md.tables.set(qnKey(table), { ...entry, [field]: entry[field].filter((r) => r.name !== name) });
    for (const d of deps) d.remove(md);
    ctx.apply(md);
    return SUCCESS;
  },
};

export const relationshipOperations: Record<string, Operation<unknown>> = {
  create_object_relationship: op(createRelationship('object')),
  create_array_relationship: op(createRelationship('array')),
  drop_relationship: op(dropRelationship),
};
