/**
 * The shape of a tables.yaml entry (engine-api.md §6.1, §6.5; its parts parsed like the arguments of engine-api.md
 * §4.2, §4.5.1, §4.3.2 and §4.7.1), for the validator and the JSON Schema (shapes-core.ts).
 */
import {
  bool, COMMENT, HEADERS, int, listOf, mapOf, nonEmptyStr, object, oneOfValues, opaque, opt, qnameText, QNAME,
  req, str, union, type BoolExpShape, type Key, type ObjectShape, type PresetsShape, type Shape,
} from './shapes-core.js';

const gqlName = (nameOf: string) => str({ format: 'graphqlName', nameOf });
const ROOT_FIELD = union({
  title: 'root field name',
  description: 'A GraphQL name, or {name, comment}.',
  options: [gqlName('root field'), object({ title: 'root field', keys: { name: opt(gqlName('root field')), comment: opt(str()) } })],
  pick: (v) => (typeof v === 'string' ? 0 : 1),
});
const CONFIGURATION = object({
  title: 'configuration',
  description: 'GraphQL names of the table, its root fields and its columns.',
  keys: {
    custom_name: opt(gqlName('table'), 'The GraphQL name of the table (default: its SQL name).'),
    custom_root_fields: opt(object({
      title: 'custom_root_fields',
      keys: Object.fromEntries(['select', 'select_by_pk', 'select_aggregate', 'insert', 'insert_one', 'update', 'update_by_pk', 'delete', 'delete_by_pk']
        .map((k) => [k, opt(ROOT_FIELD)])),
    })),
    column_config: opt(mapOf(object({ title: 'column config', keys: { custom_name: opt(gqlName('column')), comment: opt(str()) } }),
      { description: 'Column → its GraphQL name and comment.' })),
    custom_column_names: opt(mapOf(gqlName('column'), { description: 'Column → its GraphQL name.' })),
    comment: opt(str(), 'The GraphQL description of the table.'),
  },
});

const BOOL_EXP: BoolExpShape = { kind: 'boolExp', description: 'A boolean expression (engine-api.md §4.4).' };
const PRESETS: PresetsShape = { kind: 'presets', description: 'Column → value set on every row (a static value, a session variable or NOW()).' };

/** A role of a permission: not admin, which has unrestricted access (cli.md §4.13). */
export const ROLE = nonEmptyStr({ hook: 'adminRole', schema: { not: { const: 'admin' } }, description: 'A role other than admin.' });

const name = (nameOf: string): Key => req(str({ format: 'graphqlName', nameOf }));

/** A foreign key of the remote table referencing this one: its column, or its columns (the incumbent's newer form). */
const REMOTE_FK = object({
  title: 'foreign_key_constraint_on',
  description: 'The table holding the foreign key to this one, and its column or columns.',
  keys: { table: req(QNAME), column: opt(str()), columns: opt(listOf(str(), { nonEmpty: true })) },
  oneOf: [['column', 'columns']],
});
const OBJECT_FK = union({
  title: 'foreign_key_constraint_on',
  description: 'The column or columns of this table holding the foreign key, or a foreign key of the remote table.',
  options: [str(), listOf(str(), { nonEmpty: true }), REMOTE_FK],
  pick: (v) => (typeof v === 'string' ? 0 : Array.isArray(v) ? 1 : 2),
});

const relationship = (kind: 'object' | 'array'): ObjectShape => object({
  id: `${kind === 'object' ? 'Object' : 'Array'}Relationship`,
  title: `${kind} relationship`,
  naming: { entity: `${kind} relationship`, by: 'name' },
  keys: {
    name: name('relationship'),
    using: req(object({
      title: 'using',
      keys: {
        foreign_key_constraint_on: opt(kind === 'object' ? OBJECT_FK : REMOTE_FK),
        manual_configuration: opt(object({
          title: 'manual_configuration',
          keys: {
            remote_table: req(QNAME),
            column_mapping: req(mapOf(str(), { description: 'Column of this table → column of the remote table.' })),
            ...(kind === 'object' ? { insertion_order: opt(oneOfValues(['before_parent', 'after_parent']), 'Nested inserts: the remote row before or after this one.') } : {}),
          },
        })),
      },
      oneOf: [['foreign_key_constraint_on', 'manual_configuration']],
    })),
    comment: COMMENT,
  },
});

const computedField = object({
  id: 'ComputedField',
  title: 'computed field',
  naming: { entity: 'computed field', by: 'name' },
  keys: {
    name: name('computed field'),
    definition: req(object({
      title: 'definition',
      keys: { function: req(QNAME), table_argument: opt(str()), session_argument: opt(str()) },
    })),
    comment: COMMENT,
  },
});

const remoteRelationship = object({
  id: 'RemoteRelationship',
  title: 'remote relationship',
  naming: { entity: 'remote relationship', by: 'name' },
  keys: { name: name('remote relationship'), definition: req(opaque('Stored as given (engine-api.md §6.5).')) },
});

const PERM_KINDS = ['insert', 'select', 'update', 'delete'] as const;
type PermKind = (typeof PERM_KINDS)[number];

/** *Columns* of a permission: an empty list is allowed. */
const permColumns = (description: string): Key => opt(union({
  report: { what: '"*" or a list of column names' },
  description,
  options: [{ kind: 'enum', values: ['*'] }, listOf(str())],
  pick: (v) => (v === '*' ? 0 : 1),
}));

/** The `permission` mapping per kind (engine-api.md §4.3.2), required keys marked. */
const PERMISSION_KEYS: Record<PermKind, Record<string, Key>> = {
  insert: {
    check: req(BOOL_EXP, 'Rows the role may insert.'),
    set: opt(PRESETS),
    columns: permColumns('Columns the role may insert.'),
    backend_only: opt(bool()),
  },
  select: {
    columns: { ...permColumns('Columns the role may select.'), required: true },
    computed_fields: opt(listOf(str({ hook: 'computedFieldRef' }), { description: 'Computed fields of this table the role may select.' })),
    filter: req(BOOL_EXP, 'Rows the role may select.'),
    limit: opt(int(1, { report: {} })),
    allow_aggregations: opt(bool()),
    query_root_fields: opt(listOf(oneOfValues(['select', 'select_by_pk', 'select_aggregate'])), 'The query root fields the role gets (absent: all).'),
    subscription_root_fields: opt(listOf(oneOfValues(['select', 'select_by_pk', 'select_aggregate', 'select_stream'])), 'The subscription root fields the role gets (absent: all).'),
  },
  update: {
    columns: { ...permColumns('Columns the role may update.'), required: true },
    filter: req(BOOL_EXP, 'Rows the role may update.'),
    check: opt(BOOL_EXP, 'What the rows must satisfy after the update.'),
    set: opt(PRESETS),
  },
  delete: { filter: req(BOOL_EXP, 'Rows the role may delete.') },
};

const permission = (kind: PermKind): ObjectShape => object({
  id: `${kind[0]?.toUpperCase() ?? ''}${kind.slice(1)}Permission`,
  title: `${kind} permission`,
  naming: {
    custom: (o, i, owner) => ({
      thing: typeof o['role'] === 'string'
        ? `${kind} permission for role "${o['role']}" on ${owner?.ownerText ?? ''}`
        : `${kind} permission #${i + 1} on ${owner?.ownerText ?? ''}`,
      named: typeof o['role'] === 'string',
    }),
  },
  keys: {
    role: req(ROLE),
    permission: req(object({ title: `${kind} permission`, naming: { same: true }, keys: PERMISSION_KEYS[kind] })),
    comment: COMMENT,
  },
});

/** Event-trigger *Columns*: `"*"` or a non-empty list. */
const triggerColumns: Shape = union({
  options: [{ kind: 'enum', values: ['*'] }, listOf(str(), { nonEmpty: true })],
  pick: (v) => (v === '*' ? 0 : 1),
});

export const EVENT_OPS = ['insert', 'update', 'delete'] as const;

const operation = object({
  id: 'EventTriggerOperation',
  title: 'operation',
  description: 'The operation fires the trigger; columns: those whose change fires it, payload: those sent.',
  naming: { nested: 'entity' },
  keys: { columns: req(triggerColumns), payload: opt(triggerColumns) },
});

const eventTrigger = object({
  id: 'EventTrigger',
  title: 'event trigger',
  naming: { entity: 'event trigger', by: 'name' },
  keys: {
    name: req(str({ format: 'eventTriggerName' })),
    definition: req(object({
      title: 'definition',
      hook: 'eventTriggerOps',
      schema: {
        if: { type: 'object', required: ['enable_manual'], properties: { enable_manual: { const: false } } },
        then: { anyOf: EVENT_OPS.map((op) => ({ required: [op], properties: { [op]: { not: { type: 'null' } } } })) },
      },
      description: 'At least one of insert, update, delete or enable_manual.',
      keys: {
        enable_manual: opt(bool(), 'Default: true.'),
        ...Object.fromEntries(EVENT_OPS.map((op) => [op, opt(operation)])),
      },
    })),
    retry_conf: opt(object({
      title: 'retry_conf',
      keys: {
        num_retries: opt(int(0), 'Default: 0.'),
        interval_sec: opt(int(1), 'Default: 10.'),
        timeout_sec: opt(int(1), 'Default: 60.'),
      },
    })),
    webhook: opt(str({ format: 'urlTemplate' })),
    webhook_from_env: opt(str({ format: 'envName' })),
    headers: HEADERS,
  },
  oneOf: [['webhook', 'webhook_from_env']],
});

/** A table entry; its key order is the canonical one of engine-api.md §6.1. */
export const TABLE: ObjectShape = object({
  id: 'Table',
  title: 'table',
  naming: {
    custom: (o, i) => {
      const text = qnameText(o['table']);
      return text === undefined
        ? { thing: `table #${i + 1}`, ownerText: `table #${i + 1}`, named: false }
        : { thing: `table ${text}`, ownerText: text, named: true };
    },
  },
  keys: {
    table: req(QNAME),
    is_enum: opt(bool()),
    configuration: opt(CONFIGURATION),
    object_relationships: opt(listOf(relationship('object'))),
    array_relationships: opt(listOf(relationship('array'))),
    computed_fields: opt(listOf(computedField)),
    remote_relationships: opt(listOf(remoteRelationship)),
    ...Object.fromEntries(PERM_KINDS.map((kind) => [`${kind}_permissions`, opt(listOf(permission(kind)))])),
    event_triggers: opt(listOf(eventTrigger)),
  },
});
