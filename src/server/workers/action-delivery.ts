import { ApiError } from '../../errors.js';
import type { Json } from '../../metadata/json.js';
import { callAction } from '../graphql/actions/index.js';
import { checkAnswer, storedInputText } from '../graphql/actions/index.js';
import type { AsyncTarget } from '../graphql/actions/index.js';
import { ActionHandlerError } from '../graphql/errors.js';
import type { Env } from '../outbound/index.js';
import type { CallOutcome, ClaimedCall } from './action-store.js';

/** One asynchronous action call (engine-api.md §5.2.4): the §5.2.1 request from the stored row, the answer mapped. */

const failed = (id: string, error: string, code: string): CallOutcome => ({ id, ok: false, errors: { path: '$', error, code } });

/**
 * Calls the handler with the stored call: 2xx with a body valid for the output type → completed with the body; any
 * failure → `{"path":"$","error":<the §5.2.2 message>,"code":<the extensions code, else "unexpected">}`.
 */
export async function makeCall(t: AsyncTarget, row: ClaimedCall, env: Env, signal?: AbortSignal): Promise<CallOutcome> {
  try {
    const req = {
      env, signal, query: row.request_query ?? '', setCookies: [],
      rawHeaders: row.request_headers.flatMap((h) => [h.name, h.value]), sessionVariables: row.session_variables,
    };
    const answer: Json = await callAction(t.action, storedInputText(t.action, t.field, row.input), req);
    checkAnswer({ type: t.output }, answer);
    return { id: row.id, ok: true, payload: answer };
  } catch (e) {
    if (e instanceof ActionHandlerError) {
      const code = e.extensions['code'];
      return failed(row.id, e.message, typeof code === 'string' ? code : 'unexpected');
    }
    if (e instanceof ApiError) return failed(row.id, e.message, e.code);
    throw e;
  }
}
