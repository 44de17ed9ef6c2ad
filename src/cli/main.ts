import { VERSION } from '../version.js';

/**
 * The only module that touches the process. `engine --version` is answered before anything else is loaded:
 * CI runs it thousands of times, and it reads no configuration (cli.md §3.1).
 */
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  process.stdout.write(`${VERSION}\n`);
} else {
  // `engine serve` on the embedded database: its thread starts PGlite on the other core while the CLI's modules load
  // (issue 28: start-up). serve stops that thread if its settings say otherwise.
  if (argv[0] === 'serve') {
    void Promise.all([import('../project/config/serve-guess.js'), import('../db/pglite-prestart.js')]).then(
      ([{ guessEmbeddedDataDir }, { prestartPgliteWorker }]) => {
        const dataDir = guessEmbeddedDataDir(argv, process.env);
        if (dataDir !== null) prestartPgliteWorker(dataDir);
      },
    );
  }
  if (argv[0] !== 'serve' && argv[0] !== 'console' && argv[0] !== 'dev') {
    // Files are written through temporary siblings and renames, so stopping here leaves every file as it was.
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        process.stderr.write('error: interrupted\n');
        process.exit(1);
      });
    }
  }
  const { run, crash } = await import('./run.js');
  const code = await run(argv).catch(crash);
  // Output to a pipe is written asynchronously: exiting at once would cut a large document short.
  const flushed = (s: NodeJS.WriteStream) => new Promise<void>((done) => (s.writableLength === 0 ? done() : s.write('', () => done())));
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  process.exit(code);
}
