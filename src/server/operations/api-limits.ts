import { badRequest } from '../../errors.js';
import { cloneMetadata } from '../../metadata/document.js';
import { parseApiLimits, type ApiLimits } from '../../metadata/kinds/api-limits.js';
import { obj } from '../../metadata/reader.js';
import { op, SUCCESS, type Operation } from './operation.js';

/** `set_api_limits {…}`: the incumbent's operation; the arguments replace every limit at once. */
const setApiLimits: Operation<ApiLimits> = {
  write: true,
  parse: (args, path) => parseApiLimits(args, path),
  async run(ctx, limits) {
    const md = cloneMetadata(ctx.metadata);
    md.api_limits = limits;
    ctx.apply(md);
    return SUCCESS;
  },
};

/** `remove_api_limits {}`: as the incumbent, removing limits that are not there is `not-exists`. */
const removeApiLimits: Operation<null> = {
  write: true,
  parse(args, path) {
    if (args !== null && args !== undefined) obj(args, path);
    return null;
  },
  async run(ctx) {
    if (!ctx.metadata.api_limits) throw badRequest('not-exists', '$.args', 'api limits are not defined');
    const md = cloneMetadata(ctx.metadata);
    delete md.api_limits;
    ctx.apply(md);
    return SUCCESS;
  },
};

export const apiLimitOperations: Record<string, Operation<unknown>> = {
  set_api_limits: op(setApiLimits),
  remove_api_limits: op(removeApiLimits),
};
