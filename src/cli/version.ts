import type { Command } from 'commander';
import { VERSION } from '../version.js';
import type { CommandRunner } from './globals.js';

/** `engine version` (cli.md §5.18): always exit 0. */
export function registerVersion(program: Command, run: CommandRunner): void {
  const cmd = program.command('version').description('print the CLI version and the engine version');
  run(cmd, async (globals, out) => {
    const [{ loadEnvironment, setting }, { fetchServerVersion }] = await Promise.all([
      import('../project/environment.js'), import('../client/version.js'),
    ]);
    const env = loadEnvironment({ project: globals.project, envfile: globals.envfile });
    const endpoint = (setting(env, globals.endpoint, 'ENGINE_GRAPHQL_ENDPOINT', 'endpoint') ?? 'http://localhost:8080').replace(/\/$/, '');
    const server = await fetchServerVersion(endpoint, 5_000);
    if (out.mode === 'json') {
      out.success({ cli: VERSION, server: server.version, endpoint, server_error: server.error });
      return 0;
    }
    out.data(`cli: ${VERSION}`);
    out.data(server.version !== null ? `server: ${server.version} (${endpoint})` : `server: unavailable (${server.error?.message ?? ''})`);
    return 0;
  });
}
