export { planRelayOperation } from './plan.js';
export { buildRelaySchema, RelaySchemaStore } from './schema.js';
