export { adminSchemaProblem, checkAllowlist } from './allowlist.js';
export { checkDocumentLimits, DEFAULT_DOCUMENT_LIMITS, withoutRepeatedFields, type DocumentLimits } from './doc-limits.js';
export { astBytes, operationInfo, planBytes, PlanCache, type CachedOperation, type OperationInfo, type PlanCacheLimits } from './plan-cache.js';
export { batchElements, parseRequest, type GraphqlRequest } from './body.js';
export { checkVariables, validateDocument } from './validate.js';
export { MAX_QUERY_DEPTH, MAX_QUERY_TOKENS, parseQuery, prepare, prepareDocument, variablesShape } from './prepare.js';
export { checkOperationLimits, timeLimitMs } from './api-limits.js';
export { checkRequestLimits } from './rate-limit.js';
export { selectionOf } from './selection.js';
