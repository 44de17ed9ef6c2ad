/**
 * The shapes of version.yaml, functions.yaml, the files of engine-api.md §6.5 (remote_schemas.yaml,
 * query_collections.yaml, allow_list.yaml, cron_triggers.yaml) and actions.yaml (cli.md §4.4), for the validator and
 * the JSON Schema (shapes-core.ts).
 */
import {
  bool, COMMENT, HEADERS, int, isObj, listOf, mapOf, named, object, oneOfValues, opt, qnameText, QNAME, req,
  str, anything, union, type ObjectShape, type Obj,
} from './shapes-core.js';
import { ROLE } from './shapes-tables.js';

/** version.yaml: `version: 2`; an empty file means version 2 (cli.md §4.1). */
export const VERSION_YAML = object({
  title: 'version.yaml',
  naming: { fixed: 'version.yaml' },
  keys: { version: req(oneOfValues([2], { onInvalid: 'metadataVersion' }), 'The metadata format version.') },
});

const functionNaming = (qname: (o: Obj) => unknown) => ({
  custom: (o: Obj, i: number) => {
    const text = qnameText(qname(o));
    return { thing: text === undefined ? `function #${i + 1}` : `function ${text}`, named: text !== undefined };
  },
});

/**
 * A function entry: a FunctionName (a string, or `{schema?, name}`), or `{function: FunctionName, configuration?}`.
 * A mapping with neither `function` nor `name` is read as the second form.
 */
export const FUNCTION = union({
  id: 'Function',
  title: 'function',
  description: 'A tracked function: its name, or {function, configuration}.',
  options: [
    str(),
    object({ title: 'function', naming: functionNaming((o) => o), keys: { name: req(str()), schema: opt(str(), 'Default: public.') } }),
    object({
      title: 'function',
      naming: functionNaming((o) => o['function']),
      keys: {
        function: req(QNAME),
        configuration: opt(object({ title: 'configuration', keys: { session_argument: opt(str()), exposed_as: opt(oneOfValues(['query'])) } })),
        permissions: opt(listOf(object({ title: 'function permission', keys: { role: req(str()) } })), 'Roles with a function permission.'),
      },
    }),
  ],
  pick: (v) => (typeof v === 'string' ? 0 : isObj(v) && !('function' in v) && 'name' in v ? 1 : 2),
});

const AFFIXES = {
  prefix: opt(str()),
  suffix: opt(str()),
  mapping: opt(mapOf(str(), { description: 'Remote name → name in the engine schema.' })),
};

export const REMOTE_SCHEMA = object({
  id: 'RemoteSchema',
  title: 'remote schema',
  naming: { entity: 'remote schema', by: 'name' },
  keys: {
    name: req(str()),
    definition: req(object({
      title: 'definition',
      keys: {
        url: opt(str({ format: 'urlTemplate' })),
        url_from_env: opt(str({ format: 'envName' })),
        timeout_seconds: opt(int(1)),
        forward_client_headers: opt(bool()),
        headers: HEADERS,
        customization: opt(object({
          title: 'customization',
          keys: {
            root_fields_namespace: opt(str(), 'The remote root fields go under this one field.'),
            type_names: opt(object({ title: 'type names', keys: AFFIXES })),
            field_names: opt(listOf(object({ title: 'field names', keys: { parent_type: req(str()), ...AFFIXES } }))),
          },
        })),
      },
      oneOf: [['url', 'url_from_env']],
    })),
    comment: COMMENT,
    permissions: opt(listOf(object({
      title: 'remote schema permission',
      keys: { role: req(str()), definition: req(object({ title: 'definition', keys: { schema: req(str(), 'The SDL subset the role sees.') } })), comment: COMMENT },
    }))),
    remote_relationships: opt(listOf(anything('A relationship of a remote schema type.'))),
  },
});

/** A query is named `query "q" in collection "c"`, or `… in collection #n` for a collection without a name. */
const QUERY = object({
  title: 'query',
  naming: {
    custom: (o, i, owner) => {
      const collection = owner?.value['name'];
      const which = typeof collection === 'string' ? `"${collection}"` : `#${(owner?.index ?? 0) + 1}`;
      return { thing: `${named('query', o['name'], i)} in collection ${which}`, named: typeof o['name'] === 'string' };
    },
  },
  keys: { name: req(str()), query: req(str({ format: 'graphqlQuery' })) },
});

export const QUERY_COLLECTION = object({
  id: 'QueryCollection',
  title: 'query collection',
  naming: { entity: 'query collection', by: 'name' },
  keys: {
    name: req(str()),
    definition: req(object({ title: 'definition', keys: { queries: req(listOf(QUERY)) } })),
    comment: COMMENT,
  },
});

export const ALLOW_LIST_ENTRY = object({
  id: 'AllowListEntry',
  title: 'allow list entry',
  naming: { entity: 'allow list entry', by: 'collection' },
  keys: { collection: req(str({ hook: 'collectionRef', description: 'A query collection of query_collections.yaml.' })) },
});

export const CRON_TRIGGER = object({
  id: 'CronTrigger',
  title: 'cron trigger',
  naming: { entity: 'cron trigger', by: 'name' },
  keys: {
    name: req(str()),
    webhook: req(str({ format: 'urlTemplate' })),
    schedule: req(str({ format: 'cronSchedule' })),
    include_in_metadata: req(bool()),
    payload: opt(anything('Sent to the webhook as given.')),
    retry_conf: opt(object({
      title: 'retry_conf',
      keys: {
        num_retries: opt(int(0)), retry_interval_seconds: opt(int(1)), timeout_seconds: opt(int(1)), tolerance_seconds: opt(int(1)),
      },
    })),
    headers: HEADERS,
    comment: COMMENT,
  },
});

export const REST_ENDPOINT = object({
  id: 'RestEndpoint',
  title: 'REST endpoint',
  naming: { entity: 'REST endpoint', by: 'name' },
  keys: {
    name: req(str()),
    url: req(str({ description: 'Path under /api/rest/, with :name segments for variables.' })),
    methods: req(listOf(oneOfValues(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']))),
    definition: req(object({
      title: 'definition',
      keys: {
        query: req(object({ title: 'query', keys: { collection_name: req(str()), query_name: req(str()) } })),
      },
    })),
    comment: COMMENT,
  },
});

/** An inherited role (issue 12): a role that is the union of its members' permissions. */
export const INHERITED_ROLE = object({
  title: 'inherited role',
  naming: { entity: 'inherited role', by: 'role_name' },
  keys: {
    role_name: req(ROLE, 'The inherited role.'),
    role_set: req(listOf(ROLE, { description: 'Its member roles (inherited roles too, without cycles).' })),
  },
});

const ACTION_PERMISSION = object({
  title: 'action permission',
  hook: 'actionPermission',
  naming: {
    custom: (o, i, owner) => ({
      thing: typeof o['role'] === 'string'
        ? `permission for role "${o['role']}" of ${owner?.thing ?? ''}`
        : `permission #${i + 1} of ${owner?.thing ?? ''}`,
      named: typeof o['role'] === 'string',
    }),
  },
  keys: { role: req(ROLE), comment: COMMENT },
});

/** The non-SDL keys of an action (cli.md §4.4), in the order actions.yaml is written in (§4.9). */
const ACTION = object({
  id: 'Action',
  title: 'action',
  hook: 'action',
  naming: { entity: 'action', by: 'name' },
  keys: {
    name: req(str(), 'An action field of actions.graphql.'),
    definition: {
      shape: object({
        title: 'definition',
        sdlOwned: { keys: ['arguments', 'output_type', 'type'], prefix: 'definition.' },
        keys: {
          kind: opt(oneOfValues(['synchronous', 'asynchronous', ''], { onInvalid: 'actionKind' }), 'Default: synchronous ("" as the incumbent writes it for query actions).'),
          handler: { shape: str({ format: 'urlTemplate' }), requiredBy: 'cli.md §4.6 step 4 (action-not-in-yaml)' },
          forward_client_headers: opt(bool()),
          headers: HEADERS,
          timeout: opt(int(1), 'Seconds; default 30.'),
        },
      }),
      requiredBy: 'cli.md §4.6 step 4 (action-not-in-yaml)',
    },
    permissions: opt(listOf(ACTION_PERMISSION)),
    comment: COMMENT,
  },
});

const CUSTOM_TYPE_RELATIONSHIP = object({
  title: 'relationship',
  hook: 'customTypeRelationship',
  naming: { entity: 'relationship', by: 'name' },
  keys: {
    name: req(str({ format: 'graphqlName', nameOf: 'relationship' })),
    type: req(oneOfValues(['object', 'array'])),
    source: opt(oneOfValues(['default']), 'The database of the remote table; engine has one, "default".'),
    remote_table: req({ ...QNAME, hook: 'tableRef' }, 'A table of tables.yaml.'),
    field_mapping: req(mapOf(str(), { description: 'Field of the object type → column of the remote table.' })),
  },
});

const CUSTOM_TYPE_GROUPS = ['enums', 'input_objects', 'objects', 'scalars'] as const;

const customType = (group: (typeof CUSTOM_TYPE_GROUPS)[number]): ObjectShape => object({
  id: group === 'objects' ? 'ObjectType' : 'CustomType',
  title: group === 'objects' ? 'object type' : 'custom type',
  hook: 'customType',
  naming: { entity: 'custom type', by: 'name' },
  sdlOwned: { keys: ['fields', 'values'], prefix: '' },
  keys: {
    name: req(str(), 'A type of actions.graphql.'),
    description: opt(str(), 'Used only when actions.graphql has none.'),
    ...(group === 'objects' ? { relationships: opt(listOf(CUSTOM_TYPE_RELATIONSHIP)) } : {}),
  },
});

export const ACTIONS_YAML = object({
  title: 'actions.yaml',
  naming: { fixed: 'actions.yaml' },
  keys: {
    actions: opt(listOf(ACTION)),
    custom_types: opt(object({
      title: 'custom_types',
      naming: { fixed: 'custom_types' },
      keys: Object.fromEntries(CUSTOM_TYPE_GROUPS.map((g) => [g, opt(listOf(customType(g)))])),
    })),
  },
});
