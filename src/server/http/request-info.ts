/** What a handler learns of a request for its `http-log` line: plain fields, set without allocating. */
declare module 'fastify' {
  interface FastifyRequest {
    role: string;
    errorCode: string;
    /** The GraphQL body's text (GraphQL routes), read for the operation name and query hash only when logged. */
    graphqlText: string;
  }
}

export const REQUEST_FIELDS = ['role', 'errorCode', 'graphqlText'] as const;
