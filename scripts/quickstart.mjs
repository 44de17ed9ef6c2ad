// `npm run quickstart`: the newcomer's path. Copies examples/quickstart, starts the embedded engine on a free port with a
// fresh data directory, and runs the project tool on it step by step — each step the real bin, printed before it runs.
// Usage: node scripts/quickstart.mjs [--dir DIR]   (default DIR: .quickstart/ in the repository, replaced on every run)
import { spawn } from 'node:child_process';
import { cpSync, existsSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SignJWT } from 'jose';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'engine.js');
const EXAMPLE = join(ROOT, 'examples', 'quickstart');
// A safety net for an engine that hangs, not a performance goal (npm run bench measures start-up): a first start
// initialises PostgreSQL, which takes far longer on a loaded machine.
const STARTUP_DEADLINE_MS = 120_000;
const SECRET = 'quickstart-secret';
// JWT mode (issue 17): end users send a token signed with this key; its claims are their role and session variables.
const JWT_KEY = 'quickstart-jwt-key-of-at-least-32-bytes';
const JWT_SECRET = JSON.stringify({ type: 'HS256', key: JWT_KEY });
const SEED = "INSERT INTO author (name, user_id) VALUES ('Ann', 'u1'), ('Bob', 'u2'); " +
  "INSERT INTO article (author_id, title, published) VALUES (1, 'Hello', true), (1, 'Draft by Ann', false), (2, 'Draft by Bob', false)";
const QUERY = '{ article(order_by: {id: asc}) { title published } }';
// The example's synchronous action, called through the engine once its generated handler runs.
const MUTATION = 'mutation { publishArticle(articleId: 1) { articleId publishedAt } }';

const SECOND_ACTION = `type Mutation {
  requestReview(articleId: Int!, note: String): ReviewRequest
}

type ReviewRequest {
  requestId: uuid!
  articleId: Int!
}
`;

const started = Date.now();
const argv = process.argv.slice(2);
const dirFlag = argv.indexOf('--dir');
const workDir = resolve(dirFlag >= 0 && argv[dirFlag + 1] ? argv[dirFlag + 1] : join(ROOT, '.quickstart'));
const project = join(workDir, 'project');
const shown = (p) => relative(process.cwd(), p) || '.';

const colour = process.stdout.isTTY && !process.env.NO_COLOR;
const bold = (s) => (colour ? `\x1b[1m${s}\x1b[22m` : s);
const dim = (s) => (colour ? `\x1b[2m${s}\x1b[22m` : s);
const say = (line = '') => process.stdout.write(`${line}\n`);
const command = (line) => say(`\n${bold(`$ ${line}`)}`);

// The children see what a user's shell would hold after the `export` lines printed below, and no other ENGINE_GRAPHQL_*.
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ENGINE_GRAPHQL_')));
env.ENGINE_ADMIN_SECRET = SECRET;
env.ENGINE_GRAPHQL_JWT_SECRET = JWT_SECRET;

/** Runs `engine <args>` in the project; resolves to its exit code. */
function engine(args, { input, expect = [0] } = {}) {
  command(`engine ${args.join(' ')}${input === undefined ? '' : " --sdl - <<'EOF'"}`);
  if (input !== undefined) process.stdout.write(`${input}EOF\n`);
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, ...args, ...(input === undefined ? [] : ['--sdl', '-'])], {
      cwd: project, env, stdio: [input === undefined ? 'ignore' : 'pipe', 'inherit', 'inherit'],
    });
    if (input !== undefined) child.stdin.end(input);
    child.on('error', fail);
    child.on('exit', (code, signal) => {
      if (expect.includes(code)) done(code);
      else fail(new Error(`engine ${args.join(' ')} exited with ${code ?? signal}`));
    });
  });
}

/** `engine serve` in the background; resolves once it prints the URL it listens on. */
function serve() {
  const args = ['serve', '--port', '0', '--data-dir', '.engine/data'];
  command(`engine ${args.join(' ')} &`);
  const child = spawn(process.execPath, [BIN, ...args], { cwd: project, env, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = new Promise((done, fail) => {
    let out = '';
    const timer = setTimeout(() => fail(new Error(`the engine did not start within ${STARTUP_DEADLINE_MS / 1000} s`)), STARTUP_DEADLINE_MS);
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      process.stdout.write(chunk);
      out += chunk;
      const m = /listening on (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        done(m[1]);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`the engine exited with ${code} before it was ready`));
    });
  });
  return { child, url };
}

/** A port that was free a moment ago: the handler will listen there, and the engine is told so at start-up. */
function freePort() {
  return new Promise((done, fail) => {
    const server = createServer();
    server.on('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

/** `PORT=<port> node handlers/<action>.js &`, the generated handler as its header says; resolves once it listens. */
function startHandler(action, port) {
  const file = join('handlers', `${action}.js`);
  command(`PORT=${port} node ${file} &`);
  const child = spawn(process.execPath, [file], { cwd: project, env: { ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'inherit'] });
  const ready = new Promise((done, fail) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      process.stdout.write(chunk);
      out += chunk;
      if (/listening on \d+/.test(out)) done();
    });
    child.on('exit', (code) => fail(new Error(`the handler exited with ${code} before it listened`)));
  });
  return { child, ready };
}

function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    child.once('exit', () => done());
    child.kill('SIGTERM');
  });
}

/** What exists on the engine, read from its own export. */
async function summary(url) {
  const res = await fetch(`${url}/v1/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-engine-admin-secret': SECRET },
    body: JSON.stringify({ type: 'export_metadata', args: {} }),
  });
  if (!res.ok) throw new Error(`export_metadata answered ${res.status}: ${await res.text()}`);
  const md = await res.json();
  const tables = md.tables ?? [];
  const count = (key) => tables.reduce((n, t) => n + (t[key]?.length ?? 0), 0);
  const permissions = ['insert', 'select', 'update', 'delete'].reduce((n, k) => n + count(`${k}_permissions`), 0);
  const customTypes = Object.values(md.custom_types ?? {}).reduce((n, list) => n + list.length, 0);
  const names = (list, name) => list.map(name).join(', ');
  const rows = [
    ['tables', tables.length, names(tables, (t) => `${t.table.schema}.${t.table.name}`)],
    ['relationships', count('object_relationships') + count('array_relationships'), ''],
    ['permissions', permissions, 'role user'],
    ['computed fields', count('computed_fields'), ''],
    ['event triggers', count('event_triggers'), names(tables.flatMap((t) => t.event_triggers ?? []), (e) => e.name)],
    ['actions', md.actions?.length ?? 0, names(md.actions ?? [], (a) => a.name)],
    ['custom types', customTypes, ''],
  ];
  say(`\n${bold(`What the engine at ${url} now holds:`)}`);
  for (const [what, n, detail] of rows) say(`  ${what.padEnd(16)}${String(n).padStart(3)}${detail ? `  ${dim(`(${detail})`)}` : ''}`);
}

/** POSTs `body` as the shown curl command would, printing the command and the answer. */
async function curl(url, path, headers, body, shownAs = headers) {
  const shownHeaders = Object.entries(shownAs).map(([k, v]) => ` -H "${k}: ${v}"`).join('');
  command(`curl -s $ENGINE_GRAPHQL_ENDPOINT${path}${shownHeaders} -d '${JSON.stringify(body).replace(/'/g, "'\\''")}'`);
  const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${path} answered ${res.status}: ${text}`);
  say(text);
}

/** The same query as the admin and as an end user with a JWT: the user's permissions filter the rows in SQL. */
async function queries(url) {
  const admin = { 'X-Engine-Admin-Secret': SECRET };
  await curl(url, '/v1/query', admin, { type: 'run_sql', args: { sql: SEED } });
  await curl(url, '/v1/graphql', admin, { query: QUERY });
  const claims = { 'x-engine-allowed-roles': ['user'], 'x-engine-default-role': 'user', 'x-engine-user-id': 'u2' };
  const token = await new SignJWT({ 'https://engine/jwt/claims': claims }).setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt().setExpirationTime('1h').sign(new TextEncoder().encode(JWT_KEY));
  say(dim(`\n# a token for user u2 (Bob), as your auth service would issue it: ${JSON.stringify(claims)}`));
  command(`TOKEN=${token}`);
  await curl(url, '/v1/graphql', { Authorization: `Bearer ${token}` }, { query: QUERY }, { Authorization: 'Bearer $TOKEN' });
}

/** The example's action end to end: its handler generated, started, and called through the engine. */
async function action(url, port) {
  await engine(['actions', 'codegen', 'publishArticle', '--framework', 'javascript-node-http', '--output-dir', 'handlers']);
  const handler = startHandler('publishArticle', port);
  try {
    await handler.ready;
    say(dim('\n# the engine POSTs {action, input, session_variables, request_query} to the handler; the generated stub answers sample values'));
    await curl(url, '/v1/graphql', { 'X-Engine-Admin-Secret': SECRET }, { query: MUTATION });
  } finally {
    command('kill %2   ' + dim('# stop the handler'));
    await stop(handler.child);
  }
}

async function main() {
  if (!existsSync(join(ROOT, 'dist', 'cli', 'main.js'))) throw new Error('the CLI is not built: run `npm run build` first');
  say(bold('engine quickstart') + dim(` — "engine" below is node ${shown(BIN)}; once installed, npx engine`));
  rmSync(workDir, { recursive: true, force: true });
  cpSync(EXAMPLE, project, { recursive: true });
  say(dim(`\nCopied ${shown(EXAMPLE)} to ${shown(project)}; the commands run there.`));
  command(`export ENGINE_ADMIN_SECRET=${SECRET}   ${dim('# config.yaml reads it: admin_secret: ${ENGINE_ADMIN_SECRET}')}`);
  command(`export ENGINE_GRAPHQL_JWT_SECRET='${JWT_SECRET}'   ${dim('# end users authenticate with tokens signed by this key')}`);
  const handlerPort = await freePort();
  env.ACTION_BASE_URL = `http://127.0.0.1:${handlerPort}`;
  command(`export ACTION_BASE_URL=${env.ACTION_BASE_URL}   ${dim('# the engine calls action handlers at {{ACTION_BASE_URL}}/<action>')}`);

  const engineProcess = serve();
  try {
    const url = await engineProcess.url;
    command(`export ENGINE_GRAPHQL_ENDPOINT=${url}`);
    env.ENGINE_GRAPHQL_ENDPOINT = url;
    await engine(['migrate', 'apply']);
    await engine(['metadata', 'apply']);
    await engine(['metadata', 'diff', '--exit-code']);
    await engine(['actions', 'create', 'requestReview'], { input: SECOND_ACTION });
    await engine(['metadata', 'export']);
    await engine(['migrate', 'status']);
    await queries(url);
    await action(url, handlerPort);
    await summary(url);
  } finally {
    command('kill %1   ' + dim('# stop the engine'));
    await stop(engineProcess.child);
  }
  const rel = (p) => shown(join(p, 'metadata'));
  say(`\n${bold('Done')} in ${((Date.now() - started) / 1000).toFixed(1)} s. The project is in ${shown(project)}:`);
  say(`  git diff --no-index ${rel(EXAMPLE)} ${rel(project)}   ${dim('# what the run changed')}`);
  say(`  cd ${shown(project)} && ENGINE_ADMIN_SECRET=${SECRET} node ${BIN} serve   ${dim('# the engine again, same data')}`);
}

main().catch((e) => {
  process.stderr.write(`\nquickstart failed: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
});
