/** Remote schemas (issue 35): introspection, consistency, and forwarding of their root fields. */
export { introspected, introspectRemote, introspectRemotes, type Introspected } from './store.js';
export { remoteSchemaId, resolveRemotes } from './consistency.js';
export type { RemoteIntrospection, RemoteRoot } from './types.js';
export { runRemotes, type ForwardRequest, type RemoteRootPlan } from './forward.js';
export { remoteRelId, remoteRelPrefix, remoteRelRecord, resolveRemoteRels, type RemoteJoinSpec, type RemoteRel } from './relationships.js';
export { buildRoleRemote, inputHasPresets, roleRemote, type Preset, type Presets, type RoleRemote } from './role-schema.js';
export { runJoins, type JoinedStatement } from './joins.js';
export { parseToTable, resolveToTables, toTableId, toTableEntries, type TableJoin, type ToTableRel } from './to-table.js';
