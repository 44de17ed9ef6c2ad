/**
 * The files that have a shape definition (shapes-*.ts), by the name of their JSON Schema (`schemas/<name>.schema.json`):
 * the root shape the validator walks and the schema describes.
 */
import { CONFIG } from './shapes-config.js';
import { listOf, type Shape } from './shapes-core.js';
import { ACTIONS_YAML, ALLOW_LIST_ENTRY, CRON_TRIGGER, FUNCTION, INHERITED_ROLE, QUERY_COLLECTION, REMOTE_SCHEMA, REST_ENDPOINT, VERSION_YAML } from './shapes-others.js';
import { TABLE } from './shapes-tables.js';

export interface FileShape {
  /** As the file is named in a project. */
  file: string;
  description: string;
  shape: Shape;
}

export const FILE_SHAPES = {
  config: { file: 'config.yaml', description: 'The configuration of an engine project (cli.md §2).', shape: CONFIG },
  version: { file: 'version.yaml', description: 'The metadata format version (cli.md §4.1).', shape: VERSION_YAML },
  tables: { file: 'tables.yaml', description: 'The tracked tables (engine-api.md §6.1).', shape: listOf(TABLE) },
  functions: { file: 'functions.yaml', description: 'The tracked functions (engine-api.md §6.1).', shape: listOf(FUNCTION) },
  actions: { file: 'actions.yaml', description: 'The actions\' keys that actions.graphql does not hold (cli.md §4.4).', shape: ACTIONS_YAML },
  allow_list: { file: 'allow_list.yaml', description: 'The allow list (engine-api.md §6.5).', shape: listOf(ALLOW_LIST_ENTRY) },
  remote_schemas: { file: 'remote_schemas.yaml', description: 'Remote schemas (engine-api.md §6.5).', shape: listOf(REMOTE_SCHEMA) },
  query_collections: {
    file: 'query_collections.yaml', description: 'Query collections (engine-api.md §6.5).', shape: listOf(QUERY_COLLECTION),
  },
  cron_triggers: { file: 'cron_triggers.yaml', description: 'Cron triggers (engine-api.md §6.5).', shape: listOf(CRON_TRIGGER) },
  rest_endpoints: { file: 'rest_endpoints.yaml', description: 'REST endpoints: stored queries served at /api/rest/<url>.', shape: listOf(REST_ENDPOINT) },
  inherited_roles: {
    file: 'inherited_roles.yaml', description: 'Inherited roles: each the union of its member roles\' permissions.', shape: listOf(INHERITED_ROLE),
  },
} as const satisfies Record<string, FileShape>;

export type SchemaName = keyof typeof FILE_SHAPES;
