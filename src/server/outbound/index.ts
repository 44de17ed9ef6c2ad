/** The outbound HTTP caller of engine-api.md §5.1, one module for action handlers and event webhooks. */
export { loggedHeaders, resolveTarget, type Env, type NameValue, type OutboundTarget, type Resolved } from './request.js';
export { callHttp, type CallOptions, type CallResult } from './http.js';
