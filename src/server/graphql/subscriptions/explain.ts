import type { GraphQLSchema } from 'graphql';
import { prepareSocketRequest, refusedRootField, schemasOf } from './document.js';
import { planStream } from './stream.js';

/** The request a subscription's cohort runs, as the service plans it. */
export interface ExplainedRequest {
  query: string;
  variables: Record<string, unknown>;
  operationName: string | null;
}

export type ExplainedSubscription =
  | { kind: 'error'; code: string; path: string; message: string }
  | { kind: 'request'; live: GraphQLSchema; request: ExplainedRequest };

const errorOf = (body: string): ExplainedSubscription => {
  const e = (JSON.parse(body) as { errors: { message: string; extensions: { code: string; path: string } }[] }).errors[0];
  return { kind: 'error', code: e?.extensions.code ?? 'validation-failed', path: e?.extensions.path ?? '$', message: e?.message ?? 'invalid subscription' };
};

/**
 * What `POST /v1/graphql/explain` plans for a subscription (issue 32): the steps LiveQueries.subscribe takes — the
 * role's subscription root checked, a `_stream` field turned into its first batch's query — so the plan shown is the
 * statement a cohort of it runs, on the role's live schema. Errors as a subscriber would get them.
 */
export function explainedSubscription(shown: GraphQLSchema, req: { query: string; variables: Record<string, unknown>; operationName: string | null }): ExplainedSubscription {
  const prepared = prepareSocketRequest(req);
  if (prepared.kind !== 'live') return { kind: 'error', code: 'validation-failed', path: '$', message: 'not a subscription' };
  const refused = refusedRootField(shown, prepared.request);
  if (refused !== null) return errorOf(refused);
  const { live } = schemasOf(shown);
  const s = planStream(live, prepared.request);
  if (s.kind === 'error') return errorOf(s.body);
  const request = s.kind === 'stream' ? (JSON.parse(s.spec.after(s.spec.initial)) as ExplainedRequest) : prepared.request;
  return { kind: 'request', live, request: { query: request.query, variables: request.variables ?? {}, operationName: request.operationName ?? null } };
}
