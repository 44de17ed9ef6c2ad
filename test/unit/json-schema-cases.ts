import type { SchemaName } from '../../src/project/validate/shapes.js';
import { REALISTIC_TEXTS } from './validate-helpers.js';

// The inputs json-schema.test.ts runs through both the validator and the JSON Schemas: valid ones (besides the
// fixture directories), and invalid ones with the code of the problem the validator reports.

export type Input = [file: SchemaName, yaml: string];

/**
 * The realistic valid directory of validate.test.ts, file by file; not its allow list, which names collections of
 * query_collections.yaml and so is valid only beside it.
 */
const FILE_OF = {
  version: 'version', tables: 'tables', functions: 'functions', remoteSchemas: 'remote_schemas',
  queryCollections: 'query_collections', cronTriggers: 'cron_triggers',
} as const satisfies Partial<Record<keyof typeof REALISTIC_TEXTS, SchemaName>>;
const REALISTIC: Input[] = (Object.keys(FILE_OF) as (keyof typeof FILE_OF)[]).map((k) => [FILE_OF[k], REALISTIC_TEXTS[k]]);

/** Valid inputs of the validate*, actions-sdl and config tests. */
export const VALID: Input[] = [
  ...REALISTIC,
  ['version', 'version: 2\n'],
  ['version', '# nothing\n'],
  ['tables', '[]\n'],
  ['tables', '- table: member\n  object_relationships:\n    - {name: a, using: {foreign_key_constraint_on: [org, code]}}\n' +
    '    - {name: b, using: {foreign_key_constraint_on: {table: p, columns: [member_id]}}}\n    - {name: c, using: {foreign_key_constraint_on: {table: p, column: x}}}\n' +
    '    - {name: d, using: {manual_configuration: {remote_table: t, column_mapping: {org: org, code: code}, insertion_order: before_parent}}}\n' +
    '  array_relationships: [{name: e, using: {foreign_key_constraint_on: {table: m, columns: [org, code]}}}]\n'],
  ['tables', '- table: article\n  event_triggers:\n    - {name: e, definition: {}, webhook: "{{A}}/x"}\n'],
  ['tables', [
    '- table: article',
    '  event_triggers:',
    '    - name: article-events_1',
    '      definition: {enable_manual: false, insert: {columns: "*"}, update: {columns: [title], payload: [id, title]}}',
    '      retry_conf: {num_retries: 0, interval_sec: 1, timeout_sec: 60}',
    '      webhook: "{{ EVENTS_BASE_URL }}/article"',
    '      headers: [{name: x-token, value_from_env: EVENTS_TOKEN}, {name: x-static, value: abc}]',
    '',
  ].join('\n')],
  ['tables', '- table: author\n  computed_fields: [{name: full_name, definition: {function: f}}]\n  select_permissions:\n' +
    '    - {role: user, permission: {columns: [], filter: {}, limit: 1, allow_aggregations: true}}\n'],
  ['tables', '- table: author\n  select_permissions:\n    - role: user\n      permission:\n        columns: "*"\n        filter: ' +
    '{author_id: X-Engine-User-Id, $or: [{published: true}, {category: {$neq: editorial}}], _and: [], _not: {id: {_in: [1, 2]}}, ' +
    '_exists: {_table: {schema: s, name: t}, _where: {x: {_is_null: false}}}, tags: {_contains: {a: 1}, _has_keys_any: X-Engine-Keys}, ' +
    'a: {_ceq: b, _gt: 1, _like: "%x"}, _col: {_eq: 1}, rel: {_or: [{_col: 1}]}, ids: {_nin: x-engine-ids}}\n'],
  ['tables', '- table: a\n  insert_permissions: [{role: r, permission: {check: {}, set: {a: 1, b: true, c: null, d: NOW()}, backend_only: true}}]\n'],
  ['functions', '- search\n- {schema: s, name: f}\n- function: g\n- function: {schema: s, name: h}\n  configuration: {session_argument: session}\n'],
  ['cron_triggers', '- name: n\n  webhook: "{{CRON_URL}}/n"\n  schedule: "*/5 0-6,22 1 * 1-5/2"\n  include_in_metadata: true\n' +
    '  payload: {a: [1]}\n  retry_conf: {num_retries: 1}\n  headers: [{name: a, value: b}]\n  comment: c\n'],
  ['allow_list', '# none\n'],
  ['actions', 'actions: []\ncustom_types:\n  enums: []\n  input_objects: []\n  objects: []\n  scalars: []\n'],
  ['actions', 'actions:\n  - {name: login, definition: {kind: synchronous, handler: "{{AUTH_URL}}/login"}, permissions: [{role: anonymous}]}\n'],
  ['actions', `actions:
  - name: search
    definition: {handler: "{{SEARCH}}", kind: asynchronous, timeout: 5, forward_client_headers: true, headers: [{name: a, value: b}]}
    comment: finds users
    permissions: [{role: user, comment: all users}, {role: anonymous}]
  - name: createUser
    definition: {handler: "https://example.com/create"}
custom_types:
  scalars: [{name: Json, description: Any JSON}]
  objects:
    - name: UserOutput
      relationships: [{name: user, type: object, remote_table: {schema: auth, name: users}, field_mapping: {id: id}}]
`],
  ['config', 'version: 2\nendpoint: http://localhost:8080\nmetadata_directory: metadata\nmigrations_directory: migrations\n' +
    'actions:\n  kind: synchronous\n  handler_webhook_baseurl: http://localhost:3000\n'],
  ['config', ''],
  ['config', 'version: "1"\nendpoint: "https://h/engine//"\nadmin_secret: 0123\nactions:\n  codegen: {framework: typescript-express, output_dir: handlers}\n'],
  ['config', 'endpoint: HTTPS://H:1\nactions:\n  handler_webhook_baseurl: "http://{{ HOST }}/x"\n'],
  ['config', 'endpoint: http://healthz\nactions:\n  handler_webhook_baseurl: "prefix{{A_1}}"\n  kind:\n'],
  ['config', 'endpoint: http://h/v1/graphqlx\nactions:\n'],
  // ${VAR} references (cli.md §2.4), resolved from the environment the test gives the validator.
  ['config', 'version: ${CONFIG_VERSION}\nendpoint: https://${ENGINE_HOST}:8443\nadmin_secret: ${PROD_ADMIN_SECRET}\n' +
    'actions:\n  kind: ${ACTIONS_KIND}\n  handler_webhook_baseurl: ${HANDLER_URL}\n'],
];

/** The variables the `${VAR}` config input refers to. */
export const CONFIG_ENV = {
  CONFIG_VERSION: '2', ENGINE_HOST: 'engine.example.com', PROD_ADMIN_SECRET: 's3cret', ACTIONS_KIND: 'asynchronous',
  HANDLER_URL: 'http://handlers:3000',
};

/** An invalid input, the code the validator reports for it, and why. */
export type Invalid = [why: string, file: SchemaName, yaml: string, code: string];

const table = (rest: string): string => `- table: author\n${rest}`;
const trigger = (et: string): string => table(`  event_triggers:\n    - ${et}\n`);
const select = (perm: string): string => table(`  select_permissions:\n    - role: user\n      permission: ${perm}\n`);
const filter = (f: string): string => select(`{columns: "*", filter: ${f}}`);

/**
 * Structural errors: the validator reports them (an unknown key as a warning), the schema rejects them. The semantic
 * rules a schema cannot express are listed in json-schema.test.ts.
 */
export const INVALID: Invalid[] = [
  ['version not 2', 'version', 'version: 3\n', 'metadata-version-unsupported'],
  ['version a string', 'version', 'version: "2"\n', 'metadata-version-unsupported'],
  ['version key misspelt', 'version', 'verison: 2\n', 'metadata-unknown-key'],
  ['version.yaml not a mapping', 'version', '[2]\n', 'metadata-invalid'],
  ['tables.yaml not a list', 'tables', 'table: author\n', 'metadata-invalid'],
  ['a table entry not a mapping', 'tables', '- author\n', 'metadata-invalid'],
  ['table missing', 'tables', '- is_enum: false\n', 'metadata-invalid'],
  ['table null', 'tables', '- table:\n', 'metadata-invalid'],
  ['is_enum not a boolean', 'tables', table('  is_enum: "yes"\n'), 'metadata-invalid'],
  ['configuration not a mapping', 'tables', table('  configuration: []\n'), 'metadata-invalid'],
  ['relationships not a list', 'tables', table('  object_relationships: {}\n'), 'metadata-invalid'],
  ['QName schema not a string', 'tables', '- table: {schema: 1, name: x}\n', 'metadata-invalid'],
  ['QName without name', 'tables', '- table: {schema: s}\n', 'metadata-invalid'],
  ['QName unknown key', 'tables', '- table: {name: x, nam: y}\n', 'metadata-unknown-key'],
  ['QName a number', 'tables', '- table: 7\n', 'metadata-invalid'],
  ['unknown table key', 'tables', table('  colour: red\n'), 'metadata-unknown-key'],
  ['using both', 'tables', table('  object_relationships:\n    - {name: a, using: {foreign_key_constraint_on: x, manual_configuration: {remote_table: t, column_mapping: {a: b}}}}\n'), 'metadata-invalid'],
  ['using neither', 'tables', table('  object_relationships: [{name: a, using: {}}]\n'), 'metadata-invalid'],
  ['object fk a mapping without its column', 'tables', table('  object_relationships: [{name: a, using: {foreign_key_constraint_on: {table: x}}}]\n'), 'metadata-invalid'],
  ['object fk an empty list', 'tables', table('  object_relationships: [{name: a, using: {foreign_key_constraint_on: []}}]\n'), 'metadata-invalid'],
  ['array fk without column', 'tables', table('  array_relationships: [{name: b, using: {foreign_key_constraint_on: {table: article}}}]\n'), 'metadata-invalid'],
  ['column_mapping to a number', 'tables', table('  array_relationships: [{name: c, using: {manual_configuration: {remote_table: a, column_mapping: {id: 1}}}}]\n'), 'metadata-invalid'],
  ['relationship without name', 'tables', table('  array_relationships: [{using: {foreign_key_constraint_on: {table: a, column: b}}}]\n'), 'metadata-invalid'],
  ['relationship name not GraphQL', 'tables', table('  object_relationships: [{name: my-rel, using: {foreign_key_constraint_on: x}}]\n'), 'name-invalid'],
  ['computed field name', 'tables', table('  computed_fields: [{name: 1st, definition: {function: f}}]\n'), 'name-invalid'],
  ['computed field without function', 'tables', table('  computed_fields: [{name: f, definition: {table_argument: a}}]\n'), 'metadata-invalid'],
  ['table_argument a number', 'tables', table('  computed_fields: [{name: f, definition: {function: f, table_argument: 3}}]\n'), 'metadata-invalid'],
  ['comment a number', 'tables', table('  computed_fields: [{name: f, definition: {function: f}, comment: 5}]\n'), 'metadata-invalid'],
  ['remote relationship name', 'tables', table('  remote_relationships: [{name: "a b", definition: {}}]\n'), 'name-invalid'],
  ['remote relationship definition', 'tables', table('  remote_relationships: [{name: a, definition: 1}]\n'), 'metadata-invalid'],
  ['admin role', 'tables', select('{columns: "*", filter: {}}').replace('role: user', 'role: admin'), 'permission-invalid'],
  ['empty role', 'tables', select('{columns: "*", filter: {}}').replace('role: user', 'role: ""'), 'metadata-invalid'],
  ['permission without permission', 'tables', table('  select_permissions: [{role: user}]\n'), 'metadata-invalid'],
  ['columns a name', 'tables', select('{columns: id, filter: {}}'), 'permission-invalid'],
  ['columns with a number', 'tables', select('{columns: [id, 2], filter: {}}'), 'permission-invalid'],
  ['limit 0', 'tables', select('{columns: "*", filter: {}, limit: 0}'), 'permission-invalid'],
  ['limit 1.5', 'tables', select('{columns: "*", filter: {}, limit: 1.5}'), 'permission-invalid'],
  ['limit a string', 'tables', select('{columns: "*", filter: {}, limit: "10"}'), 'permission-invalid'],
  ['select without columns', 'tables', select('{filter: {}}'), 'metadata-invalid'],
  ['select key misspelt', 'tables', select('{columns: "*", filter: {}, limt: 5}'), 'metadata-unknown-key'],
  ['computed_fields not a list', 'tables', select('{columns: "*", filter: {}, computed_fields: x}'), 'metadata-invalid'],
  ['insert without check', 'tables', table('  insert_permissions: [{role: a, permission: {columns: "*"}}]\n'), 'metadata-invalid'],
  ['set a list', 'tables', table('  update_permissions: [{role: a, permission: {columns: [t], filter: {}, set: [a]}}]\n'), 'permission-invalid'],
  ['set to a list', 'tables', table('  insert_permissions: [{role: a, permission: {check: {}, set: {tags: [a]}}}]\n'), 'permission-invalid'],
  ['backend_only a number', 'tables', table('  insert_permissions: [{role: a, permission: {check: {}, backend_only: 1}}]\n'), 'metadata-invalid'],
  ['delete with columns', 'tables', table('  delete_permissions: [{role: a, permission: {filter: {}, columns: "*"}}]\n'), 'metadata-unknown-key'],
  ['filter a list', 'tables', filter('[]'), 'bool-exp-invalid'],
  ['_and a mapping', 'tables', filter('{$and: {a: 1}}'), 'bool-exp-invalid'],
  ['_or item not a mapping', 'tables', filter('{_or: [{a: 1}, 3]}'), 'bool-exp-invalid'],
  ['_not a string', 'tables', filter('{_not: x}'), 'bool-exp-invalid'],
  ['_exists without _where', 'tables', filter('{_exists: {_table: t}}'), 'bool-exp-invalid'],
  ['trigger name', 'tables', trigger('{name: 1st, definition: {}, webhook: "http://x"}'), 'name-invalid'],
  ['trigger name too long', 'tables', trigger(`{name: ${'a'.repeat(43)}, definition: {}, webhook: "http://x"}`), 'name-invalid'],
  ['trigger without webhook', 'tables', trigger('{name: e, definition: {}}'), 'metadata-invalid'],
  ['trigger with both webhooks', 'tables', trigger('{name: e, definition: {}, webhook: "http://x", webhook_from_env: URL}'), 'metadata-invalid'],
  ['trigger without definition', 'tables', trigger('{name: e, webhook: "http://x"}'), 'metadata-invalid'],
  ['no operation', 'tables', trigger('{name: e, definition: {enable_manual: false}, webhook: "http://x"}'), 'event-trigger-invalid'],
  ['webhook not http', 'tables', trigger('{name: e, definition: {}, webhook: "ftp://x/y"}'), 'url-invalid'],
  ['webhook relative', 'tables', trigger('{name: e, definition: {}, webhook: "/relative"}'), 'url-invalid'],
  ['webhook template broken', 'tables', trigger('{name: e, definition: {}, webhook: "{{BASE}/x"}'), 'url-invalid'],
  ['webhook reserved template', 'tables', trigger('{name: e, definition: {}, webhook: "{{engine_graphql_secret}}/x"}'), 'metadata-invalid'],
  ['webhook_from_env reserved', 'tables', trigger('{name: e, definition: {}, webhook_from_env: ENGINE_GRAPHQL_URL}'), 'metadata-invalid'],
  ['columns empty', 'tables', trigger('{name: e, definition: {insert: {columns: []}}, webhook: "http://x"}'), 'metadata-invalid'],
  ['payload empty', 'tables', trigger('{name: e, definition: {update: {columns: "*", payload: []}}, webhook: "http://x"}'), 'metadata-invalid'],
  ['columns a name', 'tables', trigger('{name: e, definition: {update: {columns: x}}, webhook: "http://x"}'), 'metadata-invalid'],
  ['columns with a number', 'tables', trigger('{name: e, definition: {delete: {columns: [1]}}, webhook: "http://x"}'), 'metadata-invalid'],
  ['operation without columns', 'tables', trigger('{name: e, definition: {delete: {payload: "*"}}, webhook: "http://x"}'), 'metadata-invalid'],
  ['num_retries -1', 'tables', trigger('{name: e, definition: {}, retry_conf: {num_retries: -1}, webhook: "http://x"}'), 'metadata-invalid'],
  ['interval_sec 0', 'tables', trigger('{name: e, definition: {}, retry_conf: {interval_sec: 0}, webhook: "http://x"}'), 'metadata-invalid'],
  ['timeout_sec 1.5', 'tables', trigger('{name: e, definition: {}, retry_conf: {timeout_sec: 1.5}, webhook: "http://x"}'), 'metadata-invalid'],
  ['retry_conf key misspelt', 'tables', trigger('{name: e, definition: {}, retry_conf: {backoff: 2}, webhook: "http://x"}'), 'metadata-unknown-key'],
  ['header without value', 'tables', trigger('{name: e, definition: {}, webhook: "http://x", headers: [{name: a}]}'), 'metadata-invalid'],
  ['header with both values', 'tables', trigger('{name: e, definition: {}, webhook: "http://x", headers: [{name: a, value: b, value_from_env: B}]}'), 'metadata-invalid'],
  ['header name empty', 'tables', trigger('{name: e, definition: {}, webhook: "http://x", headers: [{name: "", value: b}]}'), 'metadata-invalid'],
  ['header value a number', 'tables', trigger('{name: e, definition: {}, webhook: "http://x", headers: [{name: a, value: 1}]}'), 'metadata-invalid'],
  ['header not a mapping', 'tables', trigger('{name: e, definition: {}, webhook: "http://x", headers: [x]}'), 'metadata-invalid'],
  ['function a number', 'functions', '- 1\n', 'metadata-invalid'],
  ['function misspelt', 'functions', '- {funtion: f}\n', 'metadata-invalid'],
  ['function configuration key', 'functions', '- function: g\n  configuration: {session_arg: s}\n', 'metadata-unknown-key'],
  ['function short form key', 'functions', '- {name: f, shema: s}\n', 'metadata-unknown-key'],
  ['function both forms', 'functions', '- {function: f, name: g}\n', 'metadata-unknown-key'],
  ['remote schema both urls', 'remote_schemas', '- name: b\n  definition: {url: "http://a", url_from_env: B}\n', 'metadata-invalid'],
  ['remote schema no url', 'remote_schemas', '- name: n\n  definition: {timeout_seconds: 5}\n', 'metadata-invalid'],
  ['timeout_seconds 0', 'remote_schemas', '- name: n\n  definition: {url: "http://a", timeout_seconds: 0}\n', 'metadata-invalid'],
  ['url_from_env reserved', 'remote_schemas', '- name: e\n  definition: {url_from_env: ENGINE_GRAPHQL_X}\n', 'metadata-invalid'],
  ['url without scheme', 'remote_schemas', '- name: b\n  definition: {url: "remote:80"}\n', 'url-invalid'],
  ['remote schema definition a number', 'remote_schemas', '- name: b\n  definition: 3\n', 'metadata-invalid'],
  ['remote schema without name', 'remote_schemas', '- definition: {url: "http://a"}\n', 'metadata-invalid'],
  ['query without query', 'query_collections', '- name: c\n  definition: {queries: [{name: q}]}\n', 'metadata-invalid'],
  ['collection definition key', 'query_collections', '- name: c\n  definition: {queries: [], extra: 1}\n', 'metadata-unknown-key'],
  ['queries not a list', 'query_collections', '- name: c\n  definition: {queries: q}\n', 'metadata-invalid'],
  ['allow-list entry empty', 'allow_list', '- {}\n', 'metadata-invalid'],
  ['allow-list collection a number', 'allow_list', '- collection: 5\n', 'metadata-invalid'],
  ['cron without webhook', 'cron_triggers', '- name: n\n  schedule: "* * * * *"\n  include_in_metadata: true\n', 'metadata-invalid'],
  ['include_in_metadata a string', 'cron_triggers', '- {name: m, webhook: "http://x", schedule: "* * * * *", include_in_metadata: yes}\n', 'metadata-invalid'],
  ['schedule of four fields', 'cron_triggers', '- {name: m, webhook: "http://x", schedule: "* * * *", include_in_metadata: true}\n', 'cron-schedule-invalid'],
  ['schedule not cron syntax', 'cron_triggers', '- {name: m, webhook: "http://x", schedule: "a * * * *", include_in_metadata: true}\n', 'cron-schedule-invalid'],
  ['cron retry_conf a list', 'cron_triggers', '- {name: m, webhook: "http://x", schedule: "* * * * *", include_in_metadata: true, retry_conf: []}\n', 'metadata-invalid'],
  ['actions.yaml a list', 'actions', '- name: a\n', 'metadata-invalid'],
  ['actions a mapping', 'actions', 'actions: {name: a}\n', 'metadata-invalid'],
  ['action without name', 'actions', 'actions: [{definition: {handler: "http://x"}}]\n', 'metadata-invalid'],
  ['action kind', 'actions', 'actions: [{name: a, definition: {handler: "http://x", kind: sync}}]\n', 'action-kind-invalid'],
  ['action handler', 'actions', 'actions: [{name: a, definition: {handler: "ftp://x"}}]\n', 'url-invalid'],
  ['action timeout 0', 'actions', 'actions: [{name: a, definition: {handler: "http://x", timeout: 0}}]\n', 'metadata-invalid'],
  ['forward_client_headers a string', 'actions', 'actions: [{name: a, definition: {handler: "http://x", forward_client_headers: "yes"}}]\n', 'metadata-invalid'],
  ['SDL-owned arguments', 'actions', 'actions: [{name: a, definition: {handler: "http://x", arguments: []}}]\n', 'sdl-key-ignored'],
  ['action definition key misspelt', 'actions', 'actions: [{name: a, definition: {handler: "http://x", timout: 5}}]\n', 'metadata-unknown-key'],
  ['action permission for admin', 'actions', 'actions: [{name: a, definition: {handler: "http://x"}, permissions: [{role: admin}]}]\n', 'permission-invalid'],
  ['action permission without role', 'actions', 'actions: [{name: a, definition: {handler: "http://x"}, permissions: [{comment: c}]}]\n', 'metadata-invalid'],
  ['custom type without name', 'actions', 'custom_types:\n  scalars: [{description: d}]\n', 'metadata-invalid'],
  ['SDL-owned fields', 'actions', 'custom_types:\n  objects: [{name: O, fields: []}]\n', 'sdl-key-ignored'],
  ['relationships on an enum', 'actions', 'custom_types:\n  enums: [{name: E, relationships: []}]\n', 'metadata-unknown-key'],
  ['custom-type group misspelt', 'actions', 'custom_types:\n  object: []\n', 'metadata-unknown-key'],
  ['relationship type', 'actions', 'custom_types:\n  objects: [{name: O, relationships: [{name: r, type: one, remote_table: t, field_mapping: {a: b}}]}]\n', 'metadata-invalid'],
  ['relationship name', 'actions', 'custom_types:\n  objects: [{name: O, relationships: [{name: 1r, type: object, remote_table: t, field_mapping: {a: b}}]}]\n', 'name-invalid'],
  ['field_mapping to a number', 'actions', 'custom_types:\n  objects: [{name: O, relationships: [{name: r, type: object, remote_table: t, field_mapping: {a: 1}}]}]\n', 'metadata-invalid'],
  ['relationship without field_mapping', 'actions', 'custom_types:\n  objects: [{name: O, relationships: [{name: r, type: array, remote_table: t}]}]\n', 'metadata-invalid'],
  ['config version 4', 'config', 'version: 4\n', 'config-invalid'],
  ['config version a list', 'config', 'version: [2]\n', 'config-invalid'],
  ['endpoint not http', 'config', 'endpoint: ftp://x\n', 'config-invalid'],
  ['endpoint an API path', 'config', 'endpoint: http://h/v1/graphql\n', 'config-invalid'],
  ['endpoint with a query', 'config', 'endpoint: "http://h/?a=1"\n', 'config-invalid'],
  ['endpoint a mapping', 'config', 'endpoint: {a: 1}\n', 'config-invalid'],
  ['actions.kind', 'config', 'actions:\n  kind: sync\n', 'config-invalid'],
  ['metadata_directory empty', 'config', 'metadata_directory: ""\n', 'config-invalid'],
  ['migrations_directory blank', 'config', 'migrations_directory: "  "\n', 'config-invalid'],
  ['output_dir empty', 'config', 'actions:\n  codegen:\n    output_dir: ""\n', 'config-invalid'],
  ['actions a list', 'config', 'actions: [1]\n', 'config-invalid'],
  ['codegen a string', 'config', 'actions:\n  codegen: typescript\n', 'config-invalid'],
  ['handler_webhook_baseurl', 'config', 'actions:\n  handler_webhook_baseurl: localhost:3000\n', 'config-invalid'],
  ['config a list', 'config', '- a\n', 'config-invalid'],
  ['config key misspelt', 'config', 'endpoit: http://x\n', 'config-unknown-key'],
  ['actions key misspelt', 'config', 'actions:\n  kid: synchronous\n', 'config-unknown-key'],
];
