/**
 * The action flow as a user runs it (issue 16 item 4), with the real bin (the BUILT code: `npm run build` first):
 * `engine actions create` against a running `engine serve` → `engine actions codegen` with each bundled template →
 * the generated handler, completed by the user, started as a process on 127.0.0.1 → the mutation through the engine's
 * `/v1/graphql` → the handler's answer (and its 4xx error) comes back. TypeScript handlers are transpiled to ES modules
 * and mounted as their header comment shows, on the real express / fastify of this repository.
 */
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterEach, describe, expect, it } from 'vitest';
import { EXTERNAL_URL, post } from '../helpers/engine.js';
import { eventually } from '../helpers/webhook.js';
import { cli, show, tempDir } from './cli-helpers.js';
import { externalDatabase, freePort, run, runNode, stopAll, type Proc } from './process-helpers.js';

afterEach(stopAll);

const NODE_MODULES = fileURLToPath(new URL('../../node_modules', import.meta.url));
const LISTENING = /^Engine listening on (http:\/\/127\.0\.0\.1:\d+)$/m;

const SDL = `type Mutation {
  login(username: String!, password: String!): LoginOutput
}

type LoginOutput {
  accessToken: String!
}
`;
const GENERATED_BODY = '  void args;\n  void sessionVariables;\n  return {"accessToken":""};';
/** What the user writes in place of the generated body. */
const COMPLETED = `  if (args.password !== 'secret') throw Object.assign(new Error('invalid credentials'), { code: 'invalid-credentials' });
  return { accessToken: \`\${args.username}:\${sessionVariables['x-engine-role'] ?? ''}\` };`;

/** The header comment's usage, listening on PORT (as the user's app would) and saying so. */
const HOSTS: Record<string, string> = {
  'typescript-express': `import express from 'express';
import router from './handlers/login.js';
const server = express().use(router).listen(Number(process.env.PORT), '127.0.0.1', () => console.log(\`listening on \${server.address().port}\`));
`,
  'typescript-fastify': `import Fastify from 'fastify';
import plugin from './handlers/login.js';
const app = Fastify();
await app.register(plugin);
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
console.log(\`listening on \${app.server.address().port}\`);
`,
};

async function waitFor(p: Proc, re: RegExp, what: string): Promise<RegExpExecArray> {
  return eventually(() => {
    if (p.child.exitCode !== null || p.child.signalCode !== null) throw new Error(`${what} ended: ${p.out()}${p.err()}`);
    return re.exec(p.out()) ?? undefined;
  }, 45_000, what);
}

/** Starts the generated handler of `login` as a process listening on `port`. */
async function startHandler(fw: string, dir: string, port: number): Promise<Proc> {
  let p: Proc;
  if (fw === 'javascript-node-http') {
    p = runNode([join('handlers', 'login.js')], dir, { PORT: String(port) });
  } else {
    if (!existsSync(join(dir, 'node_modules'))) symlinkSync(NODE_MODULES, join(dir, 'node_modules'), 'dir');
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
    const out = ts.transpileModule(readFileSync(join(dir, 'handlers', 'login.ts'), 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true }, fileName: 'login.ts',
    });
    writeFileSync(join(dir, 'handlers', 'login.js'), out.outputText);
    writeFileSync(join(dir, 'host.mjs'), HOSTS[fw] as string);
    p = runNode(['host.mjs'], dir, { PORT: String(port) });
  }
  await waitFor(p, /listening on \d+/, 'the handler');
  return p;
}

const databases: [string, string, () => Promise<string[]>][] = [
  ...['javascript-node-http', 'typescript-express', 'typescript-fastify'].map((fw): [string, string, () => Promise<string[]>] =>
    [fw, 'embedded', async () => ['--data-dir', '.engine/data']]),
  ...(EXTERNAL_URL ? [['javascript-node-http', 'external', async () => ['--database-url', await externalDatabase('engine_e2e_flow')]] as [string, string, () => Promise<string[]>]] : []),
];

describe.each(databases)('%s handler, %s database', (fw, _, database) => {
  it('actions create → actions codegen → the handler started → the mutation through /v1/graphql answers the handler\'s answer', async () => {
    const root = await tempDir();
    const init = await cli(['init', 'proj'], { cwd: root });
    expect(init.code, show(init)).toBe(0);
    const dir = join(root, 'proj');
    const config = readFileSync(join(dir, 'config.yaml'), 'utf8');
    writeFileSync(join(dir, 'config.yaml'), config.replace('handler_webhook_baseurl: http://localhost:3000', 'handler_webhook_baseurl: "{{ACTION_BASE_URL}}"'));
    const port = await freePort();
    const engine = run(['serve', '--port', '0', ...(await database())], dir, { ACTION_BASE_URL: `http://127.0.0.1:${port}` });
    const url = (await waitFor(engine, LISTENING, 'engine serve'))[1] as string;
    const env = { ENGINE_GRAPHQL_ENDPOINT: url };

    writeFileSync(join(dir, 'login.graphql'), SDL);
    const created = await cli(['actions', 'create', 'login', '--sdl', 'login.graphql'], { cwd: dir, env });
    expect(created.code, show(created)).toBe(0);
    expect(created.stdout + created.stderr).toContain('Action "login" created (handler: {{ACTION_BASE_URL}}/login).');
    const generated = await cli(['actions', 'codegen', 'login', '--framework', fw, '--output-dir', 'handlers'], { cwd: dir, env });
    expect(generated.code, show(generated)).toBe(0);
    const file = join(dir, 'handlers', fw === 'javascript-node-http' ? 'login.js' : 'login.ts');
    const text = readFileSync(file, 'utf8');
    expect(text).toContain(GENERATED_BODY);

    // The stub as generated answers the output type's sample value.
    const stub = await startHandler(fw, dir, port);
    const mutation = (password: string) => ({ query: `mutation { login(username: "ann", password: "${password}") { accessToken } }` });
    expect((await post(`${url}/v1/graphql`, mutation('secret'))).body).toEqual({ data: { login: { accessToken: '' } } });
    stub.child.kill('SIGKILL');
    await stub.closed;

    writeFileSync(file, text.replace(GENERATED_BODY, COMPLETED));
    await startHandler(fw, dir, port);
    expect((await post(`${url}/v1/graphql`, mutation('secret'))).body).toEqual({ data: { login: { accessToken: 'ann:admin' } } });
    expect((await post(`${url}/v1/graphql`, mutation('wrong'))).body)
      .toEqual({ errors: [{ message: 'invalid credentials', extensions: { path: '$', code: 'invalid-credentials' } }] });
  }, 180_000); // three processes and four CLI runs: a loaded machine needs more than the default minute
});
