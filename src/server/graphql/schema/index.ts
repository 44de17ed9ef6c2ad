export { buildRoleSchema, SchemaStore } from './build.js';
export { fieldInfo, type AggOp, type FieldInfo, type MutationTable, type RelInsert, type RowSource } from './field-info.js';
export { outputExpr } from './scalars.js';
export { RoleView, type RelView, type TableView } from './visibility.js';
export { type GqlColumn } from './columns.js';
export { aggregateType } from './tables.js';
export { enumTypes } from './enum-values.js';
export { TABLE_TYPES, TypeNames } from './claims.js';
