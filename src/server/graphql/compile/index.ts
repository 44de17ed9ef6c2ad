export { jsonObject, SelectionCompiler } from './select.js';
export { SelectionContext } from './selection.js';
export { StatementBuilder } from './sql-builder.js';
export { bind, bindAll, bindParams, bindStatement, type PlanParam, type RequestValues } from './bind.js';
export { isPlainObject, jsonText, NumLit, parseJsonDigits, resolveVars, type GValue } from './values.js';
export { MutationCompiler } from './mutations.js';
export { fragmentMap, nodePaths, selectionDepth } from './paths.js';
export { nestedFailure, type NestedPaths } from './nested-insert.js';
