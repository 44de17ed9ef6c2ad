import type { Command } from 'commander';
import { CliError } from '../errors.js';
import type { CommandRunner } from './globals.js';
import { context } from './context.js';

/** `engine console`: the web console for the project's engine; edits go to the project's files first (issue 34). */
export function registerConsole(program: Command, run: CommandRunner): void {
  const cmd = program.command('console').description("open the web console of the project's engine; its metadata edits are written to metadata/ and applied")
    .option('--port <port>', 'TCP port of the console, 0 picks a free one (default 9695)')
    .option('--address <host>', 'interface to listen on (default 127.0.0.1)')
    .option('--no-browser', 'do not open a browser');
  run(cmd, async (g, out) => {
    const f = cmd.opts<{ port?: string; address?: string; browser: boolean }>();
    const port = f.port === undefined ? 9695 : Number(f.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError('invalid-flag', `--port must be a TCP port (0-65535), not "${f.port}"`, 64);
    const { config, client } = await context(g, out, { project: true, version2: true });
    const { startConsoleServer } = await import('../project/console/server.js');
    let server;
    try {
      server = await startConsoleServer({ config, client, logger: out.logger, port, ...(f.address ? { host: f.address } : {}) });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE') throw new CliError('port-in-use', `port ${port} is already in use`, 1, { hint: 'pass --port with another port, or 0 for a free one' });
      throw e;
    }
    out.data(`Console at ${server.url}`);
    if (f.browser) {
      const { openBrowser } = await import('../project/console/browser.js');
      if (!openBrowser(server.url)) out.warn('no-browser', `no browser could be started; open ${server.url}`);
    }
    return new Promise<number>((resolve) => {
      const stop = () => void server.close().then(() => resolve(0), (e: unknown) => resolve(out.fail(e)));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
  });
}
