import { badRequest } from '../../errors.js';
import { at, comment, graphqlName, obj, optBool, qualifiedName, req, reqStr } from '../../metadata/reader.js';
import { qnKey, qnQuoted } from '../../metadata/names.js';
import { parseComputedFieldDefinition } from '../../metadata/kinds/computed-fields.js';
import type { ComputedField, QualifiedName } from '../../metadata/types.js';
import { cfId, cfPrefix, cfRecord } from '../kinds/computed-fields.js';
import { op, SUCCESS, type Operation } from './operation.js';
import { addField, removeWithDependents, requireTracked } from './table-objects.js';

const addComputedField: Operation<{ table: QualifiedName; cf: ComputedField }> = {
  write: true,
  parse(args, path) {
    const o = obj(args, path);
    return {
      table: qualifiedName(req(o, 'table', path), at(path, 'table')),
      cf: {
        name: graphqlName(req(o, 'name', path), at(path, 'name')),
        definition: parseComputedFieldDefinition(req(o, 'definition', path), at(path, 'definition')),
        comment: comment(o, path),
      },
    };
  },
  async run(ctx, { table, cf }) {
    await addField(ctx, {
      table, list: 'computed_fields', field: cf, refers: { tables: [], functions: [cf.definition.function] },
      created: { id: cfId(table, cf.name), prefix: cfPrefix(table, cf.name), record: () => cfRecord(table, cf, '') },
    });
    return SUCCESS;
  },
};

const dropComputedField: Operation<{ table: QualifiedName; name: string; cascade: boolean }> = {
  write: true,
  parse(args, path) {
    const o = obj(args, path);
    return {
      table: qualifiedName(req(o, 'table', path), at(path, 'table')),
      name: reqStr(o, 'name', path),
      cascade: optBool(o, 'cascade', path, false),
    };
  },
  async run(ctx, { table, name, cascade }) {
    requireTracked(ctx, table);
    const entry = ctx.metadata.tables.get(qnKey(table));
    if (!entry?.computed_fields.some((c) => c.name === name)) {
      throw badRequest('not-exists', '$.args.name', `computed field "${name}" does not exist in table ${qnQuoted(table)}`);
    }
    removeWithDependents(ctx, { kind: 'computed_field', table, name }, new Set(), cascade, (md) => {
      md.tables.set(qnKey(table), { ...entry, computed_fields: entry.computed_fields.filter((c) => c.name !== name) });
    });
    return SUCCESS;
  },
};

export const computedFieldOperations: Record<string, Operation<unknown>> = {
  add_computed_field: op(addComputedField),
  drop_computed_field: op(dropComputedField),
};
