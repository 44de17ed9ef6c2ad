import type { Command } from 'commander';
import { EngineError } from '../errors.js';
import { VERSION } from '../version.js';
import type { CommandRunner } from './globals.js';

/** `engine version` (cli.md §5.18): always exit 0. */
export function registerVersion(program: Command, run: CommandRunner): void {
  const cmd = program.command('version').description('print the CLI version and the engine version');
  run(cmd, async (globals, out) => {
    const [{ loadEnvironment, setting }, { fetchServerVersion }] = await Promise.all([
      import('../project/config/environment.js'), import('../client/version.js'),
    ]);
    // A project that cannot be read (unset ${VAR}, bad YAML) must not make `version` fail: §5.18 always exits 0.
    let endpoint: string | null;
    let server: Awaited<ReturnType<typeof fetchServerVersion>>;
    try {
      const env = loadEnvironment({ project: globals.project, envfile: globals.envfile });
      endpoint = (setting(env, globals.endpoint, 'ENGINE_GRAPHQL_ENDPOINT', 'endpoint') ?? 'http://localhost:8080').replace(/\/$/, '');
      const { tlsSettings } = await import('../project/config/tls.js');
      server = await fetchServerVersion(endpoint, 5_000, tlsSettings(globals));
    } catch (e) {
      if (!(e instanceof EngineError)) throw e;
      endpoint = null;
      server = { version: null, error: { code: e.code, message: e.message } };
    }
    if (out.mode === 'json') {
      out.success({ cli: VERSION, server: server.version, endpoint, server_error: server.error });
      return 0;
    }
    out.data(`cli: ${VERSION}`);
    out.data(server.version !== null ? `server: ${server.version} (${endpoint ?? ''})` : `server: unavailable (${server.error?.message ?? ''})`);
    return 0;
  });
}
