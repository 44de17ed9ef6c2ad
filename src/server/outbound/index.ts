/** The outbound HTTP caller of engine-api.md §5.1, one module for action handlers and event webhooks. */
export { loggedHeaders, resolveTarget, type Env, type NameValue, type OutboundTarget, type Resolved } from './request.js';
export { callHttp, observeCalls, type CallOptions, type CallRecord, type CallResult } from './http.js';
