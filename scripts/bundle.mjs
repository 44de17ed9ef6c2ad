// The second step of `npm run build`: tsc's output (dist/) bundled into dist/bundle/, which the bin loads. Node 20
// spends most of a short command resolving, reading and compiling ~150 module files one by one (ours, graphql's,
// commander's, yaml's); a handful of chunks load in two thirds of the time (issue 18). Dynamic imports stay dynamic
// (one chunk each), so a command still loads only what it uses. Packages that find their own files at run time
// (PGlite's and libpg-query's WebAssembly, undici's modules loaded by path) or load lazily anyway stay outside.
import { build } from 'esbuild';
import { copyFileSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = `${root}dist/bundle`;
rmSync(outdir, { recursive: true, force: true });
const result = await build({
  // The embedded database's worker thread is an entry of its own (src/db/pglite-remote.ts finds it beside its chunk).
  entryPoints: { main: `${root}dist/cli/main.js`, 'pglite-worker': `${root}dist/db/pglite-worker.js` },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'chunk-[hash]',
  sourcemap: 'linked',
  logLevel: 'warning',
  external: ['@electric-sql/*', 'libpg-query', 'undici', 'ws', 'pg', 'pg-native', 'tar', 'jose', '@inquirer/*', 'pino', 'prom-client', '@opentelemetry/*'],
  // graphql-js checks every instanceof against copies from other realms unless NODE_ENV is production (a dev aid that
  // cost ~2 µs of a cheap request, and more per nested-insert object); the bundle holds one copy of graphql.
  define: { 'process.env.NODE_ENV': '"production"' },
  // CommonJS packages in the bundle (commander) call require() for Node's own modules.
  banner: { js: "import { createRequire as __engineRequire } from 'node:module'; const require = __engineRequire(import.meta.url);" },
});
if (result.errors.length > 0 || result.warnings.length > 0) process.exit(1);
// A CommonJS package imported with import() becomes a chunk whose namespace holds only `default` (Node's own loader
// would give its named exports too): such an import must go through one of our modules instead.
for (const file of readdirSync(outdir).filter((f) => f.endsWith('.js'))) {
  if (/^export default require_\w+\(\);$/m.test(readFileSync(join(outdir, file), 'utf8'))) {
    console.error(`bundle: ${file} is a CommonJS package imported with import(); import it statically from one of our modules`);
    process.exit(1);
  }
}

// The web console (issue 34): a browser bundle of its own in dist/console/, built offline from node_modules. The
// GraphiQL view and its stylesheet are separate files, so the first view loads only the small app.
const consoleDir = `${root}dist/console`;
rmSync(consoleDir, { recursive: true, force: true });
const web = await build({
  entryPoints: {
    app: `${root}console/src/main.tsx`,
    'app-style': `${root}console/src/styles.css`,
    graphiql: `${root}console/src/graphiql.css`,
  },
  outdir: consoleDir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'browser',
  target: ['chrome110', 'firefox110', 'safari16'],
  chunkNames: 'chunk-[hash]',
  minify: true,
  legalComments: 'linked',
  jsx: 'automatic',
  define: { 'process.env.NODE_ENV': '"production"' },
  logLevel: 'warning',
});
if (web.errors.length > 0 || web.warnings.length > 0) process.exit(1);
renameSync(join(consoleDir, 'app-style.css'), join(consoleDir, 'app.css'));
copyFileSync(`${root}console/index.html`, join(consoleDir, 'index.html'));
