import { Problems, type Problem } from '../../src/project/problems.js';
import { validateMetadata, type MetadataSources } from '../../src/project/validate/validate.js';
import { parseYaml } from '../../src/project/yaml-source.js';

/** The file each source is read from, as messages show it. */
export const FILES: Record<keyof MetadataSources, string> = {
  version: 'metadata/version.yaml',
  tables: 'metadata/tables.yaml',
  functions: 'metadata/functions.yaml',
  allowList: 'metadata/allow_list.yaml',
  remoteSchemas: 'metadata/remote_schemas.yaml',
  queryCollections: 'metadata/query_collections.yaml',
  cronTriggers: 'metadata/cron_triggers.yaml',
  inheritedRoles: 'metadata/inherited_roles.yaml',
  restEndpoints: 'metadata/rest_endpoints.yaml',
  apiLimits: 'metadata/api_limits.yaml',
};

export type Texts = Partial<Record<keyof MetadataSources, string>>;

export function sources(texts: Texts, problems = new Problems()): MetadataSources {
  const src: MetadataSources = {};
  for (const [key, text] of Object.entries(texts) as [keyof MetadataSources, string][]) {
    const parsed = parseYaml(FILES[key], text, problems);
    if (parsed) src[key] = parsed;
  }
  return src;
}

/** Every problem of the files, in the order of cli.md §5.5. */
export function validate(texts: Texts): Problem[] {
  const problems = new Problems();
  validateMetadata(sources(texts, problems), problems);
  return problems.sorted();
}

/** A problem as the tests spell it: `<code> <file-suffix>:<line>:<col> <message>`. */
export const show = (p: Problem): string => `${p.severity} ${p.code} ${(p.file ?? '').replace('metadata/', '')}:${p.line}:${p.column} ${p.message}`;

export const shown = (texts: Texts): string[] => validate(texts).map(show);

/** A realistic valid directory, file by file (every kind, the forms the build accepts); json-schema.test.ts runs it too. */
export const REALISTIC_TEXTS = {
  version: 'version: 2\n',
  tables: `# Tables of the blog.
- table:
    schema: public
    name: article
  object_relationships:
    - name: author
      using:
        foreign_key_constraint_on: author_id
    - name: editor
      using:
        manual_configuration:
          remote_table: author
          column_mapping:
            editor_id: id
      comment: the last editor
  select_permissions:
    - role: user
      permission:
        columns: [id, title]
        filter:
          author_id:
            _eq: X-Engine-User-Id
        limit: 10
      comment: own rows
    - role: anonymous
      permission:
        columns: "*"
        filter:
          $or:
            - published: true
            - category: {$neq: editorial}
          author: {active: {_eq: true}}
          _exists:
            _table: {schema: billing, name: subscription}
            _where: {active: {_eq: true}}
        allow_aggregations: true
  insert_permissions:
    - role: user
      permission:
        check: {author_id: {_eq: X-Engine-User-Id}}
        set: {author_id: X-Engine-User-Id, created_at: NOW()}
        columns: [title, body]
  update_permissions:
    - role: user
      permission:
        columns: [title]
        filter: {author_id: {_eq: X-Engine-User-Id}}
        check: null
  delete_permissions:
    - role: user
      permission:
        filter: {_and: [{author_id: {_eq: X-Engine-User-Id}}, {published: false}]}
  event_triggers:
    - name: article_events
      definition:
        enable_manual: true
        insert: {columns: "*"}
        update: {columns: [title], payload: [id, title]}
      retry_conf: {num_retries: 3, interval_sec: 10, timeout_sec: 60}
      webhook: "{{EVENTS_BASE_URL}}/article"
      headers:
        - name: x-token
          value_from_env: EVENTS_TOKEN
- table: author
  is_enum: false
  configuration: {custom_root_fields: {select: authors}}
  array_relationships:
    - name: articles
      using:
        foreign_key_constraint_on:
          table: {schema: public, name: article}
          column: author_id
  computed_fields:
    - name: full_name
      definition:
        function: {schema: public, name: author_full_name}
        table_argument: author_row
        session_argument: session
      comment: first and last name
  remote_relationships:
    - name: profile
      definition: {remote_schema: profiles, hasura_fields: [id]}
  select_permissions:
    - role: user
      permission:
        columns: "*"
        computed_fields: [full_name]
        filter: {}
  update_permissions:
    - role: user
      permission:
        columns: [name]
        filter: {id: {_eq: X-Engine-User-Id}}
- table: {schema: billing, name: subscription}
`,
  functions: '- search_articles\n- function: {schema: billing, name: active_subscriptions}\n  configuration: {session_argument: session}\n',
  remoteSchemas: `- name: profiles
  definition:
    url: "{{PROFILES_URL}}"
    timeout_seconds: 30
    forward_client_headers: true
    headers: [{name: x-api-key, value_from_env: PROFILES_KEY}]
  comment: profile service
- name: payments
  definition: {url_from_env: PAYMENTS_URL}
`,
  queryCollections: `- name: allowed-queries
  definition:
    queries:
      - name: articles
        query: |
          query articles($limit: Int) {
            article(limit: $limit) { id title author { full_name } }
          }
      - name: add
        query: "mutation { insert_article_one(object: {title: \\"x\\"}) { id } }"
`,
  allowList: '- collection: allowed-queries\n',
  cronTriggers: `- name: nightly-report
  webhook: https://reports.example.com/nightly
  schedule: "0 2 * * 1-5"
  include_in_metadata: true
  payload: {kind: daily}
  retry_conf: {num_retries: 2}
  headers: [{name: x-secret, value_from_env: REPORT_SECRET}]
  comment: weekdays at 02:00
`,
} satisfies Texts;
