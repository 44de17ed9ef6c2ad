// Deep imports: the `graphql` index costs ~50 ms to load, and every CLI command that builds metadata loads this module.
import { GraphQLError } from 'graphql/error/GraphQLError.js';
import { parse } from 'graphql/language/parser.js';
import { print } from 'graphql/language/printer.js';
import { parseFailed } from '../../errors.js';
import type { JsonObject } from '../json.js';
import { arr, at, comment, idx, obj, req, str } from '../reader.js';

/**
 * Query collections and the allow list (issue 20): named GraphQL documents, and the collections whose documents a
 * non-admin request may send when the allow list is enabled.
 */

export interface CollectionQuery {
  name: string;
  query: string;
}

export interface QueryCollection {
  name: string;
  /** Kept as given, in order (engine-api.md §6.3). */
  queries: CollectionQuery[];
  comment: string | null;
}

/**
 * The form two documents are compared in: parsed and printed, so that whitespace, commas and comments do not
 * count (graphql-js's printer is canonical for a given AST).
 */
export function normalQuery(text: string): string | null {
  try {
    return print(parse(text, { noLocation: true }));
  } catch {
    return null;
  }
}

/** A document that does not parse: the message of cli.md §4.13 (`query line <l>, column <c>`). */
export function queryParseError(name: string, text: string): string | null {
  try {
    parse(text);
    return null;
  } catch (e) {
    if (!(e instanceof GraphQLError)) throw e;
    const loc = e.locations?.[0];
    const where = loc ? ` (query line ${loc.line}, column ${loc.column})` : '';
    return `query "${name}" is not a valid GraphQL document: ${e.message.replace(/^Syntax Error: /, '')}${where}`;
  }
}

export function parseCollectionQuery(v: unknown, path: string): CollectionQuery {
  const o = obj(v, path);
  const name = str(req(o, 'name', path), at(path, 'name'));
  if (name === '') throw parseFailed(at(path, 'name'), 'query name cannot be empty');
  const query = str(req(o, 'query', path), at(path, 'query'));
  const problem = queryParseError(name, query);
  if (problem) throw parseFailed(at(path, 'query'), problem);
  return { name, query };
}

export function checkQueryNames(queries: CollectionQuery[], collection: string, path: string): void {
  const seen = new Set<string>();
  queries.forEach((q, i) => {
    if (seen.has(q.name)) throw parseFailed(at(idx(path, i), 'name'), `query "${q.name}" appears more than once in collection "${collection}"`);
    seen.add(q.name);
  });
}

export function parseQueryCollection(v: unknown, path: string): QueryCollection {
  const o = obj(v, path);
  const name = str(req(o, 'name', path), at(path, 'name'));
  if (name === '') throw parseFailed(at(path, 'name'), 'collection name cannot be empty');
  const dp = at(path, 'definition');
  const d = obj(req(o, 'definition', path), dp);
  const qp = at(dp, 'queries');
  const queries = arr(req(d, 'queries', dp), qp).map((q, i) => parseCollectionQuery(q, idx(qp, i)));
  checkQueryNames(queries, name, qp);
  return { name, queries, comment: comment(o, path) };
}

export function queryCollectionJson(c: QueryCollection): JsonObject {
  const out: JsonObject = { name: c.name, definition: { queries: c.queries.map((q) => ({ name: q.name, query: q.query })) } };
  if (c.comment !== null) out['comment'] = c.comment;
  return out;
}

export function parseAllowlistEntry(v: unknown, path: string): string {
  const o = obj(v, path);
  return str(req(o, 'collection', path), at(path, 'collection'));
}
