import { createHash } from 'node:crypto';

/** A prepared statement's name, derived from its text so that it always denotes the same text. */
export const statementName = (sql: string): string => `engine_gql_${createHash('sha256').update(sql).digest('hex').slice(0, 32)}`;
