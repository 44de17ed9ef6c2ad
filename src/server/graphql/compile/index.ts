export { jsonObject, SelectionCompiler } from './select.js';
export { SelectionContext } from './selection.js';
export { bind, checkBound, StatementBuilder, type PlanParam, type RequestValues } from './sql-builder.js';
export { isPlainObject, jsonText, NumLit, parseJsonDigits, resolveVars, type GValue } from './values.js';
export { MutationCompiler } from './mutations.js';
export { fragmentMap, nodePaths, selectionDepth } from './paths.js';
