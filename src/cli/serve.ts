import type { Command } from 'commander';
import type { ServeFlags } from '../project/config/serve-settings.js';
import type { CommandRunner } from './globals.js';
import { untilStopped } from './until-stopped.js';

/** `engine serve` (cli.md §5.17): resolves when the server has stopped, with the exit status. */
export function registerServe(program: Command, run: CommandRunner): void {
  const cmd = program
    .command('serve')
    .description('start a local engine (embedded PostgreSQL unless --database-url is given)')
    .option('--port <port>', 'TCP port, 0 picks a free one (default 8080, env ENGINE_GRAPHQL_SERVER_PORT)')
    .option('--host <host>', 'interface to listen on (default 127.0.0.1, env ENGINE_GRAPHQL_SERVER_HOST)')
    .option('--database-url <url>', 'external PostgreSQL 13+ (env ENGINE_GRAPHQL_DATABASE_URL)')
    .option('--data-dir <dir>', 'data directory of the embedded PostgreSQL (default .engine/data, env ENGINE_GRAPHQL_DATA_DIR)')
    .option('--jwt-secret <json>', 'JWT mode: {"type", "key" | "jwk_url", …} (env ENGINE_GRAPHQL_JWT_SECRET); requires an admin secret')
    .option('--auth-hook <url>', 'auth hook mode: the URL that answers the session of a request (env ENGINE_GRAPHQL_AUTH_HOOK); requires an admin secret')
    .option('--auth-hook-mode <mode>', 'GET (default) or POST (env ENGINE_GRAPHQL_AUTH_HOOK_MODE)')
    .option('--session-variable-prefix <prefix>', 'prefix of session-variable names sent to action handlers, event webhooks and SQL: x-engine- (default) or x-hasura- (env ENGINE_GRAPHQL_SESSION_VARIABLE_PREFIX)')
    .option('--unauthorized-role <role>', 'role of requests without credentials (env ENGINE_GRAPHQL_UNAUTHORIZED_ROLE); requires an admin secret')
    .option('--node-limit <n>', 'most fields in one GraphQL operation, fragments expanded (default 10000, env ENGINE_GRAPHQL_NODE_LIMIT)')
    .option('--alias-limit <n>', 'most aliases in one GraphQL operation, fragments expanded (default 1000, env ENGINE_GRAPHQL_ALIAS_LIMIT)')
    .option('--enable-allowlist', 'non-admin GraphQL requests must send a query of an allow-listed collection (env ENGINE_GRAPHQL_ENABLE_ALLOWLIST=true)')
    .option('--query-timeout <seconds>', 'time limit of a GraphQL request, its statements cancelled after it; 0 for none (default 60, env ENGINE_GRAPHQL_QUERY_TIMEOUT)')
    .option('--live-queries-refetch-interval <ms>', 'live queries are also refetched this often, for changes no commit notification reports (a table read through a function); 0 for never (default 1000, env ENGINE_GRAPHQL_LIVE_QUERIES_MULTIPLEXED_REFETCH_INTERVAL)')
    .option('--live-queries-batch-size <n>', 'most live-query cohorts refetched by one SQL statement (default 100, env ENGINE_GRAPHQL_LIVE_QUERIES_MULTIPLEXED_BATCH_SIZE)')
    .option('--websocket-keepalive <seconds>', 'how often a graphql-ws (legacy protocol) socket is sent "ka"; 0 for never (default 5, env ENGINE_GRAPHQL_WEBSOCKET_KEEPALIVE)')
    .option('--websocket-connection-init-timeout <seconds>', 'a WebSocket without connection_init this long is closed (4408); 0 for no limit (default 10, env ENGINE_GRAPHQL_WEBSOCKET_CONNECTION_INIT_TIMEOUT)')
    .option('--websocket-max-connections <n>', 'most WebSockets at once; one more is closed with 1013 (default 20000, env ENGINE_GRAPHQL_WEBSOCKET_MAX_CONNECTIONS)')
    .option('--websocket-max-subscriptions <n>', 'most live queries and streams on one WebSocket (default 1000, env ENGINE_GRAPHQL_WEBSOCKET_MAX_SUBSCRIPTIONS)')
    .option('--max-subscriptions <n>', 'most live queries and streams on the server (default 100000, env ENGINE_GRAPHQL_MAX_SUBSCRIPTIONS)')
    .option('--websocket-send-buffer <bytes>', 'bytes that may wait to be sent to one WebSocket; a slower client is closed with 1013 (default 4194304, env ENGINE_GRAPHQL_WEBSOCKET_SEND_BUFFER)')
    .option('--graceful-shutdown-timeout <seconds>', 'on SIGTERM/SIGINT, how long requests may finish before their statements are cancelled (default 10, env ENGINE_GRAPHQL_GRACEFUL_SHUTDOWN_TIMEOUT)')
    // The pool settings apply to an external PostgreSQL and its replicas; the embedded one has a single session.
    .option('--pg-connections <n>', 'most connections to PostgreSQL at once, per database (default 10, env ENGINE_GRAPHQL_PG_CONNECTIONS; ignored by the embedded database)')
    .option('--pg-timeout <seconds>', 'an idle connection is closed after this long; 0 for never (default 180, env ENGINE_GRAPHQL_PG_TIMEOUT; ignored by the embedded database)')
    .option('--pg-conn-lifetime <seconds>', 'a connection is closed once this old, when next idle; 0 for never (default 600, env ENGINE_GRAPHQL_PG_CONN_LIFETIME; ignored by the embedded database)')
    .option('--pg-pool-timeout <seconds>', 'how long a request waits for a connection; 0 for no limit (default 10, env ENGINE_GRAPHQL_PG_POOL_TIMEOUT; ignored by the embedded database)')
    .option('--no-prepared-statements', 'for PgBouncer in transaction mode: no named prepared statements, no session settings (env ENGINE_GRAPHQL_USE_PREPARED_STATEMENTS=false; ignored by the embedded database)')
    .option('--read-replica-urls <urls>', 'comma-separated PostgreSQL URLs: GraphQL queries go to them in turn; mutations, metadata and events to --database-url (env ENGINE_GRAPHQL_READ_REPLICA_URLS)')
    .option('--cors-domain <origins>', 'origins browsers may call from: * (default) or a comma list of scheme://host[:port], host may start with *. (env ENGINE_GRAPHQL_CORS_DOMAIN)')
    .option('--enable-console', 'serve the web console at /console (default: on for the embedded database, off with --database-url; env ENGINE_GRAPHQL_ENABLE_CONSOLE=true|false)')
    .option('--disable-cors', 'no CORS headers and no preflight answers (env ENGINE_GRAPHQL_DISABLE_CORS=true)')
    .option('--enabled-log-types <types>', 'comma list of startup, http-log, query-log, webhook-log, websocket-log, event-trigger, health-check (default startup,http-log,webhook-log,websocket-log; env ENGINE_GRAPHQL_ENABLED_LOG_TYPES)')
    .option('--log-format <format>', 'json: one JSON object per line on stdout; text (default): the events as debug messages on stderr (env ENGINE_GRAPHQL_LOG_FORMAT)');
  run(cmd, async (globals, out) => {
    // The engine and its embedded database are loaded only by this command: `engine --version` stays instant.
    const [{ maskUrl }, { loadEnvironment, fallbackMessage }, { resolveServeSettings }, { withMetadataPool }] = await Promise.all([
      import('../db/database.js'), import('../project/config/environment.js'), import('../project/config/serve-settings.js'),
      import('../project/metadata-dir/layout-v3/serve-pool.js'),
    ]);
    const flags = cmd.opts<ServeFlags>();
    const env = loadEnvironment({ project: globals.project, envfile: globals.envfile });
    // A version 3 project's databases.yaml may set the pool (the incumbent's pool_settings, issue 29).
    const settings = await withMetadataPool(resolveServeSettings({ ...flags, adminSecret: globals.adminSecret }, env), env);
    // The database's thread loads its modules, and PGlite's files are read and compiled, while this thread loads the
    // engine's modules: started by main.ts on a guess, here again for the settings' directory (a no-op when it was
    // guessed right), or stopped when the settings name an external database.
    const prestart = import('../db/pglite-prestart.js');
    if (settings.databaseUrl) void prestart.then((m) => m.discardPrestartedWorker());
    else void prestart.then((m) => m.prestartPgliteWorker(settings.dataDir));
    const logger = out.logger;
    const fallbacks = fallbackMessage(env.fallbacks());
    if (fallbacks) logger.info(fallbacks);
    // Said at once, before the engine's modules load, so that nobody stares at a silent terminal (issue 18).
    const started = performance.now();
    if (settings.databaseUrl) logger.info(`Using PostgreSQL at ${maskUrl(settings.databaseUrl)}`);
    else logger.info(`Starting embedded PostgreSQL in ${settings.dataDir}…`);
    if (settings.readReplicaUrls) logger.info(`Read replicas for GraphQL queries: ${settings.readReplicaUrls.map((u) => maskUrl(u)).join(', ')}`);
    const { startServer } = await import('../server/index.js');
    const server = await startServer({ ...settings, logger, variable: env.variable });
    if (!settings.databaseUrl) logger.info(`Ready in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    if (!settings.adminSecret) out.warn('no-admin-secret', `no admin secret is set; anyone who can reach ${server.url} has admin access`);
    if (out.mode === 'json') out.success({ url: server.url, database: server.database, data_dir: server.dataDir });
    else out.data(`Engine listening on ${server.url}`);
    return untilStopped(out, logger, () => server.close());
  });
}
