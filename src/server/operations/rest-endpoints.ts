import { badRequest } from '../../errors.js';
import { cloneMetadata } from '../../metadata/document.js';
import { checkRestCollisions, parseRestEndpoint, type RestEndpoint } from '../../metadata/kinds/rest-endpoints.js';
import { at, obj, req, str } from '../../metadata/reader.js';
import { adminSchemaProblem } from '../graphql/request/index.js';
import { op, SUCCESS, type Operation } from './operation.js';

/** REST endpoints (issue 20): `create_rest_endpoint`, `drop_rest_endpoint`, as the incumbent names them. */

const createRestEndpoint: Operation<RestEndpoint> = {
  write: true,
  parse: (args, path) => parseRestEndpoint(args, path),
  async run(ctx, r) {
    if (ctx.metadata.rest_endpoints.has(r.name)) throw badRequest('already-exists', '$.args.name', `REST endpoint "${r.name}" already exists`);
    const c = ctx.metadata.query_collections.get(r.query.collection_name);
    if (!c) throw badRequest('not-exists', '$.args.definition.query.collection_name', `query collection "${r.query.collection_name}" does not exist`);
    const q = c.queries.find((x) => x.name === r.query.query_name);
    if (!q) throw badRequest('not-exists', '$.args.definition.query.query_name', `query "${r.query.query_name}" does not exist in collection "${c.name}"`);
    const others = [...ctx.metadata.rest_endpoints.values()];
    try {
      checkRestCollisions([...others, r], '$.args.url');
    } catch (e) {
      if (e instanceof Error) throw badRequest('already-exists', '$.args.url', e.message);
      throw e;
    }
    const problem = adminSchemaProblem(ctx.cache, q.query);
    if (problem) {
      throw badRequest('constraint-violation', '$.args', `in rest endpoint "${r.name}": query "${q.name}" of collection "${c.name}" is not valid: ${problem}`);
    }
    const md = cloneMetadata(ctx.metadata);
    md.rest_endpoints.set(r.name, r);
    ctx.apply(md);
    return SUCCESS;
  },
};

const dropRestEndpoint: Operation<string> = {
  write: true,
  parse: (args, path) => str(req(obj(args, path), 'name', path), at(path, 'name')),
  async run(ctx, name) {
    if (!ctx.metadata.rest_endpoints.has(name)) throw badRequest('not-exists', '$.args.name', `REST endpoint "${name}" does not exist`);
    const md = cloneMetadata(ctx.metadata);
    md.rest_endpoints.delete(name);
    ctx.apply(md);
    return SUCCESS;
  },
};

export const restEndpointOperations: Record<string, Operation<unknown>> = {
  create_rest_endpoint: op(createRestEndpoint),
  drop_rest_endpoint: op(dropRestEndpoint),
};
