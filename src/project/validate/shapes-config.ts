/**
 * The shape of config.yaml (cli.md §2.1, §2.5): its keys by level for config-validate.ts (unknown keys, the allowed
 * values) and the JSON Schema. Its values are checked on their text where they are used (config.ts), after `${VAR}`
 * interpolation (§2.4), so a string holding a reference is only known then.
 */
import { object, opt, text } from './shapes-core.js';

export const CONFIG_VERSIONS = ['1', '2', '3'] as const;
export const ACTION_KINDS = ['synchronous', 'asynchronous'] as const;
/** The engine's own paths (engine-api.md §1.1): an endpoint must be the base URL in front of them. */
export const ENGINE_PATHS = ['/v1/query', '/v1/metadata', '/v1/graphql', '/v1/version', '/healthz'] as const;

/** A `${NAME}` reference of cli.md §2.4. */
export const VAR_REF_PATTERN = '\\$\\{[A-Za-z_][A-Za-z0-9_]*\\}';

const HTTP = '[Hh][Tt][Tt][Pp][Ss]?://';

export const CONFIG = object({
  title: 'config.yaml',
  description: 'The project configuration (cli.md §2). Any string value may hold ${VAR} references to the environment or .env.',
  keys: {
    version: opt(text({ values: CONFIG_VERSIONS }), 'The config version: 1 when absent; engine init writes 2; 3 is the layout with metadata/databases/.'),
    endpoint: opt(text({
      pattern: `^${HTTP}[^\\s/?#]+[^\\s?#]*$`,
      notPattern: `^[^:]*://[^/]+.*(?:${ENGINE_PATHS.join('|')})/*$`,
      description: "The engine's base URL, without query or fragment, not an API path (default http://localhost:8080).",
    })),
    admin_secret: opt(text(), 'Keep it out of git with a reference, e.g. ${PROD_ADMIN_SECRET}, or set ENGINE_GRAPHQL_ADMIN_SECRET in .env.'),
    jwt_secret: opt(text(), 'engine serve: JWT mode, the JSON {"type", "key" | "jwk_url", …} (env ENGINE_GRAPHQL_JWT_SECRET); requires admin_secret.'),
    auth_hook: opt(text(), 'engine serve: auth hook mode, the URL that answers the session of a request (env ENGINE_GRAPHQL_AUTH_HOOK); requires admin_secret.'),
    auth_hook_mode: opt(text({ values: ['GET', 'POST'] }), 'engine serve: how the auth hook is called, GET (default) or POST (env ENGINE_GRAPHQL_AUTH_HOOK_MODE).'),
    unauthorized_role: opt(text(), 'engine serve: the role of requests without credentials (env ENGINE_GRAPHQL_UNAUTHORIZED_ROLE); requires admin_secret.'),
    metadata_directory: opt(text({ nonBlank: true }), 'Relative to the project directory (default metadata).'),
    migrations_directory: opt(text({ nonBlank: true }), 'Relative to the project directory (default migrations).'),
    actions: opt(object({
      title: 'actions',
      keys: {
        kind: opt(text({ values: ACTION_KINDS }), 'The kind of actions created by engine actions create (default synchronous).'),
        handler_webhook_baseurl: opt(text({
          pattern: `\\{\\{\\s*[A-Za-z_][A-Za-z0-9_]*\\s*\\}\\}|^${HTTP}\\S+$`,
          description: 'An http(s) URL or a value with a {{NAME}} template, kept verbatim (default http://localhost:3000).',
        })),
        codegen: opt(object({
          title: 'codegen',
          keys: {
            framework: opt(text(), 'A framework of templates/codegen/.'),
            output_dir: opt(text({ nonBlank: true }), 'Where engine actions codegen writes handler stubs.'),
          },
        })),
      },
    })),
  },
});
