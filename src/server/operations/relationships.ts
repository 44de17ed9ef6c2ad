import { badRequest } from '../../errors.js';
import { at, comment, graphqlName, obj, optBool, qualifiedName, req, reqStr } from '../../metadata/reader.js';
import { qnKey, qnQuoted } from '../../metadata/names.js';
import { parseUsing } from '../../metadata/kinds/relationships.js';
import type { ObjectForeignKey, QualifiedName, RelKind, Relationship } from '../../metadata/types.js';
import { relId, relPrefix, relationshipRecord } from '../kinds/relationships.js';
import { op, SUCCESS, type Operation } from './operation.js';
import { addField, removeWithDependents, requireTracked } from './table-objects.js';

const remoteTableOf = (fk: ObjectForeignKey): QualifiedName[] => (typeof fk === 'string' || Array.isArray(fk) ? [] : [fk.table]);

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
      const remote = 'manual_configuration' in rel.using
        ? [rel.using.manual_configuration.remote_table]
        : remoteTableOf(rel.using.foreign_key_constraint_on);
      await addField(ctx, {
        table, list: kind === 'object' ? 'object_relationships' : 'array_relationships', field: rel,
        refers: { tables: remote, functions: [] },
        created: { id: relId(kind, table, rel.name), prefix: relPrefix(table, rel.name), record: () => relationshipRecord(kind, table, rel, '') },
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
    const list = (['object_relationships', 'array_relationships'] as const).find((l) => entry?.[l].some((r) => r.name === name));
    if (!entry || !list) {
      throw badRequest('not-exists', '$.args.relationship', `relationship "${name}" does not exist in table ${qnQuoted(table)}`);
    }
    removeWithDependents(ctx, { kind: 'relationship', table, name }, new Set(), cascade, (md) => {
      md.tables.set(qnKey(table), { ...entry, [list]: entry[list].filter((r) => r.name !== name) });
    });
    return SUCCESS;
  },
};

export const relationshipOperations: Record<string, Operation<unknown>> = {
  create_object_relationship: op(createRelationship('object')),
  create_array_relationship: op(createRelationship('array')),
  drop_relationship: op(dropRelationship),
};
