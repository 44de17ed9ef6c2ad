import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CliError } from '../../src/errors.js';
import { loadEnvironment } from '../../src/project/config/environment.js';
import { resolveServeSettings, type ServeFlags } from '../../src/project/config/serve-settings.js';
import { buildMetadata } from '../../src/project/metadata-dir/build.js';
import { withMetadataPool } from '../../src/project/metadata-dir/layout-v3/serve-pool.js';

// Issue 29 (the incumbent's projects unedited): the pool written in a config version 3 project's
// databases/databases.yaml (`connection_info.pool_settings`, `use_prepared_statements`) is the pool `engine serve`
// uses where no flag or variable sets one; settings engine has no use for are warned about, bad values refused.

let root = '';
afterEach(() => rmSync(root, { recursive: true, force: true }));

const DB = (connection: string) => `- name: default
  kind: postgres
  configuration:
    connection_info:
      database_url: {from_env: PG_DATABASE_URL}
${connection}  tables: []
`;

function project(version: number, databases: string | null): string {
  root = mkdtempSync(join(tmpdir(), 'engine-pool-'));
  const files: Record<string, string> = { 'config.yaml': `version: ${version}\n` };
  if (version === 3) files['metadata/version.yaml'] = 'version: 3\n';
  if (databases !== null) files['metadata/databases/databases.yaml'] = databases;
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, name)), { recursive: true });
    writeFileSync(join(root, name), text);
  }
  return root;
}

const serve = (dir: string, vars: Record<string, string> = {}, flags: ServeFlags = {}) => {
  const env = loadEnvironment({ cwd: dir, env: vars });
  return withMetadataPool(resolveServeSettings(flags, env), env, dir);
};

const POOL = `      pool_settings:
        max_connections: 20
        idle_timeout: 30
        pool_timeout: 2.5
        connection_lifetime: 0
        retries: 1
      use_prepared_statements: false
`;

describe('pool_settings of databases.yaml', () => {
  it('are the pool of engine serve, in seconds as the incumbent writes them', async () => {
    const dir = project(3, DB(POOL));
    expect((await serve(dir)).pool).toEqual({ max: 20, idleTimeoutMs: 30_000, acquireTimeoutMs: 2500, lifetimeMs: 0, preparedStatements: false });
  });

  it('flags and variables win over them, setting by setting', async () => {
    const dir = project(3, DB(POOL));
    expect((await serve(dir, { ENGINE_GRAPHQL_PG_CONNECTIONS: '3' }, { pgTimeout: '1' })).pool)
      .toEqual({ max: 3, idleTimeoutMs: 1000, acquireTimeoutMs: 2500, lifetimeMs: 0, preparedStatements: false });
    expect((await serve(dir, { HASURA_GRAPHQL_PG_CONNECTIONS: '4' })).pool).toMatchObject({ max: 4, idleTimeoutMs: 30_000 });
  });

  it('leave the pool alone without them, and in a version 2 project', async () => {
    expect((await serve(project(3, DB('')))).pool).toBeUndefined();
    expect((await serve(project(3, null))).pool).toBeUndefined();
    expect((await serve(project(2, DB(POOL)))).pool).toBeUndefined();
  });

  it('a bad value stops engine serve with config-invalid, naming the setting and the file', async () => {
    const dir = project(3, DB('      pool_settings: {max_connections: 0}\n'));
    let caught: unknown;
    try {
      await serve(dir);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(CliError);
    expect(caught).toMatchObject({ code: 'config-invalid', exitCode: 1, message: 'invalid value for "pool_settings.max_connections" in metadata/databases/databases.yaml: expected a positive integer' });
  });

  it('metadata validation: honoured settings pass, others are warned about, bad values are errors at their position', () => {
    const dir = project(3, DB(`      pool_settings: {max_connections: 5, idle_timeout: -1, retries: 1}
      use_prepared_statements: false
      isolation_level: read-committed
`));
    const problems = buildMetadata(join(dir, 'metadata'), dir, 3).problems.sorted().map((p) => `${p.severity} ${p.code} ${p.file}:${p.line}:${p.column} ${p.message}`);
    expect(problems).toEqual([
      'error metadata-invalid metadata/databases/databases.yaml:6:57 invalid value for "pool_settings.idle_timeout" of database "default": expected a number of seconds ≥ 0',
      'warning database-setting-ignored metadata/databases/databases.yaml:6:61 setting "connection_info.pool_settings.retries" of database "default" has no effect: engine uses the database it is started with (engine serve --database-url); the setting is kept as written',
      'warning database-setting-ignored metadata/databases/databases.yaml:8:7 setting "connection_info.isolation_level" of database "default" has no effect: engine uses the database it is started with (engine serve --database-url); the setting is kept as written',
    ]);
  });
});
