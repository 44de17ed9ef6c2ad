import { badRequest } from '../../errors.js';
import { cloneMetadata } from '../../metadata/document.js';
import type { Json } from '../../metadata/json.js';
import { checkQueryNames, parseCollectionQuery, parseQueryCollection, type CollectionQuery, type QueryCollection } from '../../metadata/kinds/query-collections.js';
import { at, obj, optBool, req, str } from '../../metadata/reader.js';
import type { Metadata } from '../../metadata/types.js';
import type { OpContext } from '../context.js';
import { adminSchemaProblem } from '../graphql/request/index.js';
import { op, SUCCESS, type Operation } from './operation.js';

/** Query collections and the allow list (issue 20; the incumbent's operations of the same names). */

/** A query must be a valid operation of the admin schema when it is added (not re-checked when the schema changes). */
function checkAgainstSchema(ctx: OpContext, queries: CollectionQuery[], path: (i: number) => string): void {
  queries.forEach((q, i) => {
    const problem = adminSchemaProblem(ctx.cache, q.query);
    if (problem) throw badRequest('validation-failed', path(i), `query "${q.name}" is not valid against the schema: ${problem}`);
  });
}

function collection(ctx: OpContext, name: string, path: string): QueryCollection {
  const c = ctx.metadata.query_collections.get(name);
  if (!c) throw badRequest('not-exists', path, `query collection "${name}" does not exist`);
  return c;
}

/** Labels of what uses a collection (or one of its queries), §3.5 style. */
function dependents(md: Metadata, name: string, query?: string): string[] {
  const out: string[] = [];
  if (query === undefined && md.allowlist.includes(name)) out.push(`allowlist entry ${name}`);
  for (const r of md.rest_endpoints.values()) {
    if (r.query.collection_name === name && (query === undefined || r.query.query_name === query)) out.push(`rest endpoint ${r.name}`);
  }
  return out.sort();
}

const createQueryCollection: Operation<QueryCollection> = {
  write: true,
  parse: (args, path) => parseQueryCollection(args, path),
  async run(ctx, c) {
    if (ctx.metadata.query_collections.has(c.name)) throw badRequest('already-exists', '$.args.name', `query collection "${c.name}" already exists`);
    checkAgainstSchema(ctx, c.queries, (i) => `$.args.definition.queries[${i}].query`);
    const md = cloneMetadata(ctx.metadata);
    md.query_collections.set(c.name, c);
    ctx.apply(md);
    return SUCCESS;
  },
};

const dropQueryCollection: Operation<{ name: string; cascade: boolean }> = {
  write: true,
  parse(args, path) {
    const o = obj(args, path);
    return { name: str(req(o, 'collection', path), at(path, 'collection')), cascade: optBool(o, 'cascade', path, false) };
  },
  async run(ctx, a) {
    collection(ctx, a.name, '$.args.collection');
    const deps = dependents(ctx.metadata, a.name);
    if (deps.length > 0 && !a.cascade) throw badRequest('dependency-error', '$.args', `cannot drop due to the following dependent objects : ${deps.join(', ')}`);
    const md = cloneMetadata(ctx.metadata);
    md.query_collections.delete(a.name);
    md.allowlist = md.allowlist.filter((n) => n !== a.name);
    for (const [k, r] of md.rest_endpoints) if (r.query.collection_name === a.name) md.rest_endpoints.delete(k);
    ctx.apply(md);
    return SUCCESS;
  },
};

interface QueryArgs {
  collection: string;
  query: CollectionQuery;
}

const addQueryToCollection: Operation<QueryArgs> = {
  write: true,
  parse(args, path) {
    const o = obj(args, path);
    const q = parseCollectionQuery({ name: req(o, 'query_name', path), query: req(o, 'query', path) }, path);
    return { collection: str(req(o, 'collection_name', path), at(path, 'collection_name')), query: q };
  },
  async run(ctx, a) {
    const c = collection(ctx, a.collection, '$.args.collection_name');
    if (c.queries.some((q) => q.name === a.query.name)) {
      throw badRequest('already-exists', '$.args.query_name', `query "${a.query.name}" already exists in collection "${c.name}"`);
    }
    checkAgainstSchema(ctx, [a.query], () => '$.args.query');
    const queries = [...c.queries, a.query];
    checkQueryNames(queries, c.name, '$.args');
    const md = cloneMetadata(ctx.metadata);
    md.query_collections.set(c.name, { ...c, queries });
    ctx.apply(md);
    return SUCCESS;
  },
};

const dropQueryFromCollection: Operation<{ collection: string; query: string }> = {
  write: true,
  parse(args, path) {
    const o = obj(args, path);
    return { collection: str(req(o, 'collection_name', path), at(path, 'collection_name')), query: str(req(o, 'query_name', path), at(path, 'query_name')) };
  },
  async run(ctx, a) {
    const c = collection(ctx, a.collection, '$.args.collection_name');
    if (!c.queries.some((q) => q.name === a.query)) {
      throw badRequest('not-exists', '$.args.query_name', `query "${a.query}" does not exist in collection "${c.name}"`);
    }
    const deps = dependents(ctx.metadata, a.collection, a.query);
    if (deps.length > 0) throw badRequest('dependency-error', '$.args', `cannot drop due to the following dependent objects : ${deps.join(', ')}`);
    const md = cloneMetadata(ctx.metadata);
    md.query_collections.set(c.name, { ...c, queries: c.queries.filter((q) => q.name !== a.query) });
    ctx.apply(md);
    return SUCCESS;
  },
};

const collectionArg = (args: Json, path: string): string => str(req(obj(args, path), 'collection', path), at(path, 'collection'));

const addCollectionToAllowlist: Operation<string> = {
  write: true,
  parse: collectionArg,
  async run(ctx, name) {
    collection(ctx, name, '$.args.collection');
    if (ctx.metadata.allowlist.includes(name)) throw badRequest('already-exists', '$.args.collection', `collection "${name}" is already in the allow list`);
    const md = cloneMetadata(ctx.metadata);
    md.allowlist.push(name);
    ctx.apply(md);
    return SUCCESS;
  },
};

const dropCollectionFromAllowlist: Operation<string> = {
  write: true,
  parse: collectionArg,
  async run(ctx, name) {
    if (!ctx.metadata.allowlist.includes(name)) throw badRequest('not-exists', '$.args.collection', `collection "${name}" is not in the allow list`);
    const md = cloneMetadata(ctx.metadata);
    md.allowlist = md.allowlist.filter((n) => n !== name);
    ctx.apply(md);
    return SUCCESS;
  },
};

export const queryCollectionOperations: Record<string, Operation<unknown>> = {
  create_query_collection: op(createQueryCollection),
  drop_query_collection: op(dropQueryCollection),
  add_query_to_collection: op(addQueryToCollection),
  drop_query_from_collection: op(dropQueryFromCollection),
  add_collection_to_allowlist: op(addCollectionToAllowlist),
  drop_collection_from_allowlist: op(dropCollectionFromAllowlist),
};
