import type { Json } from './json.js';

/** A schema-qualified name of a table or function; the metadata always stores this form. */
export interface QualifiedName {
  schema: string;
  name: string;
}

/** A foreign key of the remote table that references this one, as written: one `column` or a `columns` list. */
export type RemoteForeignKey = { table: QualifiedName; column: string } | { table: QualifiedName; columns: string[] };
/** A foreign key of this table (its column or columns, as written) or of the remote table (issue 29 point 5). */
export type ObjectForeignKey = string | string[] | RemoteForeignKey;

export type ObjectRelUsing =
  | { foreign_key_constraint_on: ObjectForeignKey }
  | { manual_configuration: ManualConfiguration };
export type ArrayRelUsing =
  | { foreign_key_constraint_on: RemoteForeignKey }
  | { manual_configuration: ManualConfiguration };

export interface ManualConfiguration {
  remote_table: QualifiedName;
  column_mapping: Record<string, string>;
  /** Object relationships: whether a nested insert writes the remote row before or after this one. */
  insertion_order?: 'before_parent' | 'after_parent';
}

export interface Relationship {
  name: string;
  using: ObjectRelUsing | ArrayRelUsing;
  comment: string | null;
}

export type RelKind = 'object' | 'array';

export type ColumnList = '*' | string[];
export type PermKind = 'insert' | 'select' | 'update' | 'delete';
export const PERM_KINDS: PermKind[] = ['insert', 'select', 'update', 'delete'];

/** One permission object; which keys matter depends on its kind (engine-api.md §4.3.2). */
export interface PermissionDef {
  /** insert: optional (absent = all columns); select/update: required. */
  columns?: ColumnList;
  computed_fields?: string[];
  filter?: Json;
  /** insert: required; update: null when absent. */
  check?: Json | null;
  set?: Record<string, Json>;
  limit?: number;
  allow_aggregations?: boolean;
  /** select: the query root fields the role gets (absent: all; [] none, the table is reached through relationships). */
  query_root_fields?: string[];
  /** select: the same for subscriptions. */
  subscription_root_fields?: string[];
  /** insert: only for requests that hold the admin secret and ask for backend-only permissions. */
  backend_only?: boolean;
}

export interface Permission {
  role: string;
  permission: PermissionDef;
  comment: string | null;
}

export interface ComputedField {
  name: string;
  definition: { function: QualifiedName; table_argument?: string; session_argument?: string };
  comment: string | null;
}

export type Header = { name: string; value: string } | { name: string; value_from_env: string };

export interface OperationSpec {
  columns: ColumnList;
  payload?: ColumnList;
}

export interface EventTrigger {
  name: string;
  definition: { enable_manual: boolean; insert?: OperationSpec; update?: OperationSpec; delete?: OperationSpec };
  retry_conf: { num_retries: number; interval_sec: number; timeout_sec: number };
  webhook?: string;
  webhook_from_env?: string;
  headers: Header[];
}

export interface TableEntry {
  table: QualifiedName;
  /** `is_enum` and `configuration`; `remote_relationships` only in the project tool (the engine refuses them). */
  extras?: import('./kinds/unsupported.js').TableExtras;
  object_relationships: Relationship[];
  array_relationships: Relationship[];
  computed_fields: ComputedField[];
  insert_permissions: Permission[];
  select_permissions: Permission[];
  update_permissions: Permission[];
  delete_permissions: Permission[];
  event_triggers: EventTrigger[];
}

export interface ActionArgument {
  name: string;
  type: string;
  description?: string;
}

export interface Action {
  name: string;
  definition: {
    handler: string;
    output_type: string;
    arguments: ActionArgument[];
    kind: 'synchronous' | 'asynchronous';
    /** A query action is a synchronous field of the query root; a mutation action (the default) of the mutation root. */
    type: 'mutation' | 'query';
    forward_client_headers: boolean;
    headers: Header[];
    timeout: number;
  };
  comment: string | null;
  permissions: { role: string; comment: string | null }[];
}

/** Custom types are kept in their canonical §6 JSON form, one array per section. */
export interface CustomTypes {
  input_objects: Json[];
  objects: Json[];
  scalars: Json[];
  enums: Json[];
  /** Object fields given non-empty `arguments` ([object, field]): invalid, reported by validation, never stored. */
  argumentFields: [string, string][];
}

export interface FunctionEntry {
  function: QualifiedName;
  configuration: { session_argument?: string };
  /**
   * Roles with a function permission (the incumbent's `permissions: [{role}]`), in the order given. Function root
   * fields follow the select permission of the returned table (the incumbent's inferred default), so these are kept.
   */
  permissions?: string[];
}

/** A role whose permissions are the union of its members' (`role_set`, sorted). */
export interface InheritedRole {
  role_name: string;
  role_set: string[];
}

/** The metadata document (engine-api.md §6) in memory. Entries are treated as immutable values. */
export interface Metadata {
  tables: Map<string, TableEntry>;
  functions: Map<string, FunctionEntry>;
  actions: Map<string, Action>;
  custom_types: CustomTypes;
  inherited_roles: Map<string, InheritedRole>;
  cron_triggers: Map<string, import('./kinds/cron-triggers.js').CronTrigger>;
  query_collections: Map<string, import('./kinds/query-collections.js').QueryCollection>;
  /** Collection names, in insertion order. */
  allowlist: string[];
  rest_endpoints: Map<string, import('./kinds/rest-endpoints.js').RestEndpoint>;
  remote_schemas: Map<string, import('./kinds/remote-schemas.js').RemoteSchema>;
  /** The incumbent's `api_limits` (issue 31): absent when none are set. */
  api_limits?: import('./kinds/api-limits.js').ApiLimits;
}
