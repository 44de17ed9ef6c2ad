import type { QualifiedName } from './types.js';

/** Map key of a qualified name; NUL cannot occur in PostgreSQL identifiers. */
export const qnKey = (q: QualifiedName): string => `${q.schema}\u0000${q.name}`;

export const qnFromKey = (key: string): QualifiedName => {
  const i = key.indexOf('\u0000');
  return { schema: key.slice(0, i), name: key.slice(i + 1) };
};

/** How messages print a table or function: bare in schema public, else schema.name (engine-api.md §1.7). */
export const qnText = (q: QualifiedName): string => (q.schema === 'public' ? q.name : `${q.schema}.${q.name}`);

/** The quoted form used in messages: "author", "billing.invoice". */
export const qnQuoted = (q: QualifiedName): string => `"${qnText(q)}"`;

export const qnEqual = (a: QualifiedName, b: QualifiedName): boolean => a.schema === b.schema && a.name === b.name;

export const qnJson = (q: QualifiedName): { schema: string; name: string } => ({ schema: q.schema, name: q.name });
