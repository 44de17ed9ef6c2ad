/**
 * `engine actions create` (cli.md §5.10) through the real bin (the BUILT code: run `npm run build` first) against a
 * real engine; `--derive-from` against a small GraphQL server of the test's own.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSchema, graphql } from 'graphql';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  BIN, childEnv, jsonDoc, SEED_ACTIONS_GRAPHQL, SEED_ACTIONS_YAML, seedEngine, show, snapshot, tempDir, useTestEngine, type CliResult,
} from './cli-helpers.js';

// Before useTestEngine, so that a stale build fails with this message rather than start an engine first.
beforeAll(() => {
  if (!existsSync(fileURLToPath(new URL('../../dist/cli/actions-create.js', import.meta.url)))) throw new Error('run `npm run build` first');
});
const e = useTestEngine();
// After the reset of useTestEngine: before hooks run in the order they were registered.
beforeEach(() => seedEngine(e));

/** Runs the bin with `input` on stdin (a pipe: never interactive). */
function run(cwd: string, args: string[], input = '', env: Record<string, string> = {}): Promise<CliResult> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env: childEnv({ NO_COLOR: '1', ...env }), stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdin.end(input);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** A version-2 project with the engine's metadata exported into metadata/. */
async function project(endpoint = e.url): Promise<string> {
  const dir = await tempDir('engine-create-');
  writeFileSync(join(dir, 'config.yaml'), `version: 2\nendpoint: ${endpoint}\nactions:\n  handler_webhook_baseurl: "{{ACTION_BASE_URL}}"\n`);
  const r = await run(dir, ['metadata', 'export']);
  expect(r.code, show(r)).toBe(0);
  expect(read(dir, 'actions.graphql')).toBe(SEED_ACTIONS_GRAPHQL);
  expect(read(dir, 'actions.yaml')).toBe(SEED_ACTIONS_YAML);
  return dir;
}

const read = (dir: string, file: string): string => readFileSync(join(dir, 'metadata', file), 'utf8');

async function engineMetadata(): Promise<{ actions: { name: string; definition: Record<string, unknown> }[]; custom_types: Record<string, { name: string }[]> }> {
  return e.ok({ type: 'export_metadata', args: {} });
}

const LOGIN_SDL = `# The login action
type Mutation {
  # Define your action as a mutation here
  login(arg1: SampleInput!): SampleOutput
}

type SampleOutput {
  accessToken: String!
}

"Credentials"
input SampleInput {
  username: String!
  password: String!
}
`;

describe('engine actions create', () => {
  it('creates an action from an --sdl file: both files appended, the engine updated in one bulk', async () => {
    const dir = await project();
    writeFileSync(join(dir, 'login.graphql'), LOGIN_SDL);
    const r = await run(dir, ['actions', 'create', 'login', '--sdl', 'login.graphql']);
    expect(r.code, show(r)).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('Action "login" created (handler: {{ACTION_BASE_URL}}/login).\n');
    expect(read(dir, 'actions.graphql')).toBe(`${SEED_ACTIONS_GRAPHQL}\n${LOGIN_SDL}`);
    expect(read(dir, 'actions.yaml')).toBe(`actions:
  - name: createUser
    definition:
      kind: synchronous
      handler: "{{ACTION_BASE_URL}}/createUser"
    permissions:
      - role: user
  - name: login
    definition:
      kind: synchronous
      handler: "{{ACTION_BASE_URL}}/login"
custom_types:
  enums: []
  input_objects:
    - name: NewUser
    - name: SampleInput
  objects:
    - name: UserId
    - name: SampleOutput
  scalars: []
`);
    const md = await engineMetadata();
    expect(md.actions.map((a) => a.name)).toEqual(['createUser', 'login']);
    expect(md.actions[1]?.definition).toEqual({
      handler: '{{ACTION_BASE_URL}}/login', output_type: 'SampleOutput', arguments: [{ name: 'arg1', type: 'SampleInput!' }], kind: 'synchronous',
    });
    expect(md.custom_types['input_objects']?.map((t) => t.name)).toEqual(['NewUser', 'SampleInput']);
    expect(md.custom_types['objects']?.map((t) => t.name)).toEqual(['SampleOutput', 'UserId']);
    const diff = await run(dir, ['metadata', 'diff', '--exit-code']);
    expect(diff.code, show(diff)).toBe(0);
  });

  it('reads the SDL from stdin (-o json); an identical redefinition of an existing type is dropped', async () => {
    const dir = await project();
    const sdl = 'type Mutation {\n  deleteUser(id: Int!): UserId\n}\n\ntype UserId {\n  id: Int!\n}\n';
    const r = await run(dir, ['actions', 'create', 'deleteUser', '--sdl', '-', '--kind', 'asynchronous', '--webhook', 'http://example.com/del', '-o', 'json'], sdl);
    expect(r.code, show(r)).toBe(0);
    expect(jsonDoc(r)).toEqual({
      ok: true, action: { name: 'deleteUser', type: 'mutation', kind: 'asynchronous', handler: 'http://example.com/del' },
      files: ['metadata/actions.graphql', 'metadata/actions.yaml'], applied: true, codegen: null, warnings: [],
    });
    expect(read(dir, 'actions.graphql')).toBe(`${SEED_ACTIONS_GRAPHQL}\ntype Mutation {\n  deleteUser(id: Int!): UserId\n}\n`);
    expect(read(dir, 'actions.yaml')).toContain('  - name: deleteUser\n    definition:\n      kind: asynchronous\n      handler: http://example.com/del\ncustom_types:');
    const md = await engineMetadata();
    expect(md.actions.find((a) => a.name === 'deleteUser')?.definition).toMatchObject({ handler: 'http://example.com/del', kind: 'asynchronous' });
  });

  it('without a definition source in a non-interactive run: definition-required, exit 64, nothing written', async () => {
    const dir = await project();
    const before = snapshot(dir);
    const r = await run(dir, ['actions', 'create', 'login']);
    expect(r.code, show(r)).toBe(64);
    expect(r.stderr).toContain("error: no action definition: pass --sdl FILE (or --sdl - to read stdin) or --derive-from '<operation>'");
    expect(snapshot(dir)).toEqual(before);
  });

  it('without a name in a non-interactive run: missing-argument, exit 64, nothing written (issue 37 item 4)', async () => {
    const dir = await project();
    const before = snapshot(dir);
    writeFileSync(join(dir, 'ok.graphql'), 'type Mutation {\n  login(a: Int): Out\n}\n\ntype Out {\n  b: Int\n}\n');
    const r = await run(dir, ['actions', 'create', '--sdl', 'ok.graphql']);
    expect(r.code, show(r)).toBe(64);
    expect(r.stderr).toBe('error: missing required argument name\n');
    const j = await run(dir, ['actions', 'create', '--sdl', 'ok.graphql', '-o', 'json']);
    expect(j.code, show(j)).toBe(64);
    expect(jsonDoc(j)).toEqual({ ok: false, error: { code: 'missing-argument', message: 'missing required argument name' } });
    rmSync(join(dir, 'ok.graphql'));
    expect(snapshot(dir)).toEqual(before);
  });

  it('rejects bad names, missing files and conflicting flags', async () => {
    const dir = await project();
    const bad = await run(dir, ['actions', 'create', '__x', '--sdl', 'x.graphql']);
    expect(bad.code, show(bad)).toBe(64);
    expect(bad.stderr).toContain('error: invalid action name "__x": expected a GraphQL name');
    const missing = await run(dir, ['actions', 'create', 'x', '--sdl', 'nope.graphql']);
    expect(missing.code, show(missing)).toBe(1);
    expect(missing.stderr).toContain('error: file "nope.graphql" not found');
    const both = await run(dir, ['actions', 'create', 'x', '--sdl', 'a', '--derive-from', 'mutation { a }']);
    expect(both.code, show(both)).toBe(64);
  });

  it('a type the engine does not know is shown at file:line:col in the SDL with a did-you-mean; nothing changes (issue 37 item 1)', async () => {
    const dir = await project();
    const before = snapshot(join(dir, 'metadata'));
    const engineBefore = await engineMetadata();
    writeFileSync(join(dir, 'typo.graphql'), 'type Mutation {\n  login(username: String!, ok: Booleen): LoginOut\n}\n\ntype LoginOut {\n  token: String!\n}\n');
    const r = await run(dir, ['actions', 'create', 'login', '--sdl', 'typo.graphql']);
    expect(r.code, show(r)).toBe(1);
    expect(r.stderr).toBe('error: typo.graphql:2:32: the engine rejected create_action: in action "login": the type "Booleen" of argument "ok" is not a ' +
      'scalar, enum or input object type (did you mean "Boolean"?) [constraint-violation]; metadata/actions.graphql and metadata/actions.yaml were restored\n');
    // A field of a new output type, read from stdin: located in <stdin>; the database's scalars are candidates too.
    const field = 'type Mutation {\n  login(username: String!): LoginOut\n}\n\ntype LoginOut {\n  at: timestamptzz\n}\n';
    const j = await run(dir, ['actions', 'create', 'login', '--sdl', '-', '-o', 'json'], field);
    expect(j.code, show(j)).toBe(1);
    const doc = jsonDoc(j);
    expect(doc.error).toMatchObject({ code: 'server-error', file: '<stdin>', line: 6, column: 7 });
    expect(doc.error.message).toContain('the type "timestamptzz" for field "at" in object type "LoginOut" does not exist (did you mean "timestamptz"?)');
    expect(snapshot(join(dir, 'metadata'))).toEqual(before);
    expect(await engineMetadata()).toEqual(engineBefore);
  });

  it('an invalid definition is reported at its positions in the SDL source; nothing is written', async () => {
    const dir = await project();
    const before = snapshot(join(dir, 'metadata'));
    writeFileSync(join(dir, 'bad.graphql'), 'type Mutation {\n  login(a: Int): Missing\n}\n');
    const r = await run(dir, ['actions', 'create', 'login', '--sdl', 'bad.graphql']);
    expect(r.code, show(r)).toBe(1);
    expect(r.stderr).toContain('error: bad.graphql:2:18: unknown type "Missing" (used by action "login")');
    writeFileSync(join(dir, 'two.graphql'), 'type Mutation {\n  a: UserId\n  b: UserId\n}\n');
    const two = await run(dir, ['actions', 'create', 'a', '--sdl', 'two.graphql', '-o', 'json']);
    expect(two.code, show(two)).toBe(1);
    expect(jsonDoc(two).error).toEqual({
      code: 'definition-invalid', message: 'the definition must add exactly one field to type Mutation; found 2', file: 'two.graphql', line: 2, column: 3,
    });
    writeFileSync(join(dir, 'diff.graphql'), 'type Mutation {\n  a: UserId\n}\ntype UserId {\n  id: String\n}\n');
    const diff = await run(dir, ['actions', 'create', 'a', '--sdl', 'diff.graphql']);
    expect(diff.code, show(diff)).toBe(1);
    expect(diff.stderr).toContain('error: diff.graphql:4:1: type "UserId" is already defined differently at metadata/actions.graphql:9:1');
    const syntax = await run(dir, ['actions', 'create', 'a', '--sdl', '-'], 'type Mutation {\n  a(: X\n}\n');
    expect(syntax.code, show(syntax)).toBe(1);
    expect(syntax.stderr).toContain('error: <stdin>:2:5: Syntax Error');
    expect(snapshot(join(dir, 'metadata'))).toEqual(before);
  });

  it('an existing action name: action-exists with its position', async () => {
    const dir = await project();
    const r = await run(dir, ['actions', 'create', 'createUser', '--sdl', '-'], 'type Mutation { createUser: UserId }');
    expect(r.code, show(r)).toBe(1);
    expect(r.stderr).toContain('error: action "createUser" already exists (metadata/actions.graphql:2:3)');
  });

  it('an engine rejection restores both files byte for byte and leaves the engine unchanged', async () => {
    const dir = await project();
    const before = snapshot(dir);
    const state = await e.state();
    const r = await run(dir, ['actions', 'create', 'odd', '--sdl', '-'], 'type Mutation {\n  odd(x: no_such_pg_type): UserId\n}\n');
    expect(r.code, show(r)).toBe(1);
    // Located where the SDL names the type (issue 37 item 1).
    expect(r.stderr).toMatch(/error: <stdin>:2:10: the engine rejected create_action: .*; metadata\/actions\.graphql and metadata\/actions\.yaml were restored\n/);
    expect(snapshot(dir)).toEqual(before);
    expect(await e.state()).toEqual(state);
  });

  it('an action that exists only on the engine: the second create is rejected and the files restored', async () => {
    const dir = await project();
    const before = snapshot(dir);
    const sdl = 'type Mutation {\n  ping: PingOutput\n}\n\ntype PingOutput {\n  ok: Boolean\n}\n';
    const first = await run(dir, ['actions', 'create', 'ping', '--sdl', '-'], sdl);
    expect(first.code, show(first)).toBe(0);
    writeFileSync(join(dir, 'metadata', 'actions.graphql'), SEED_ACTIONS_GRAPHQL);
    writeFileSync(join(dir, 'metadata', 'actions.yaml'), SEED_ACTIONS_YAML);
    const second = await run(dir, ['actions', 'create', 'ping', '--sdl', '-', '-o', 'json'], sdl);
    expect(second.code, show(second)).toBe(1);
    const doc = jsonDoc(second);
    expect(doc.ok).toBe(false);
    expect(doc.error.message).toMatch(/action with name "ping" already exists.*; metadata\/actions\.graphql and metadata\/actions\.yaml were restored$/);
    expect(snapshot(dir)).toEqual(before);
  });

  it('--no-apply writes the files only', async () => {
    const dir = await project();
    const state = await e.state();
    const r = await run(dir, ['actions', 'create', 'login', '--sdl', '-', '--no-apply'], LOGIN_SDL);
    expect(r.code, show(r)).toBe(0);
    expect(r.stderr).toBe("Action \"login\" written to metadata; run 'engine metadata apply' to apply it.\n");
    expect(read(dir, 'actions.yaml')).toContain('handler: "{{ACTION_BASE_URL}}/login"');
    expect(await e.state()).toEqual(state);
    const apply = await run(dir, ['metadata', 'apply']);
    expect(apply.code, show(apply)).toBe(0);
    expect((await engineMetadata()).actions.find((a) => a.name === 'login')?.definition['handler']).toBe('{{ACTION_BASE_URL}}/login');
  });
});

describe('engine actions create --derive-from', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    const schema = buildSchema(`
      scalar uuid
      enum Role { admin user }
      input AddressInput { city: String! zip: Int }
      input UserInput { name: String! role: Role address: AddressInput }
      type Address { city: String }
      type User { id: uuid! name: String! role: Role address: Address }
      type Query { user(id: uuid!): User }
      type Mutation { insertUser(user: UserInput!, note: String): User }
    `);
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        if (req.url !== '/v1/graphql') return void res.writeHead(404).end();
        void graphql({ schema, source: (JSON.parse(body) as { query: string }).query }).then((r) =>
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(r)));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('derives arguments, copied input types and enums, and an output type of the selected leaf fields', async () => {
    const dir = await project();
    const op = 'mutation ($user: UserInput!, $note: String = "hi") { insertUser(user: $user, note: $note) { id name role address { city } } }';
    const r = await run(dir, ['actions', 'create', 'addUser', '--derive-from', op, '--no-apply', '--endpoint', url]);
    expect(r.code, show(r)).toBe(0);
    expect(r.stderr).toContain('warning: the default value of variable "$note" ("hi") was dropped');
    expect(r.stderr).toContain('warning: the nested selection "address" was skipped');
    expect(read(dir, 'actions.graphql')).toBe(`${SEED_ACTIONS_GRAPHQL}
type Mutation {
  addUser(user: addUser_UserInput!, note: String): AddUserOutput
}

input addUser_UserInput {
  name: String!
  role: addUser_Role
  address: addUser_AddressInput
}

enum addUser_Role {
  admin
  user
}

input addUser_AddressInput {
  city: String!
  zip: Int
}

scalar uuid

type AddUserOutput {
  id: uuid!
  name: String!
  role: addUser_Role
}
`);
    const y = read(dir, 'actions.yaml');
    expect(y).toContain('  enums:\n    - name: addUser_Role\n');
    expect(y).toContain('  scalars:\n    - name: uuid\n');
    const build = await run(dir, ['metadata', 'build', '-o', 'json']);
    expect(build.code, show(build)).toBe(0);
  });

  it('a query or an unknown root field cannot be derived', async () => {
    const dir = await project();
    const q = await run(dir, ['actions', 'create', 'x', '--derive-from', 'query { user(id: "1") { id } }', '--no-apply', '--endpoint', url]);
    expect(q.code, show(q)).toBe(1);
    expect(q.stderr).toContain('error: cannot derive an action from the operation: expected a mutation, got a query');
    const u = await run(dir, ['actions', 'create', 'x', '--derive-from', 'mutation { nope { id } }', '--no-apply', '--endpoint', url]);
    expect(u.code, show(u)).toBe(1);
    expect(u.stderr).toContain('cannot derive an action from the operation: the engine\'s schema has no mutation field "nope"');
  });
});

/** `script` (util-linux) gives the CLI a pseudo-terminal, so the run is interactive and opens $EDITOR. */
const SCRIPT = ['/usr/bin/script', '/bin/script'].find((p) => existsSync(p));

describe.skipIf(!SCRIPT)('engine actions create in an interactive run (editor)', () => {
  /** Runs the bin under a pseudo-terminal with CI unset and EDITOR set to a shell script of `body` ($1 = the file). */
  async function interactive(dir: string, args: string[], body: string): Promise<CliResult> {
    const editor = join(dir, 'editor.sh');
    writeFileSync(editor, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    const env = childEnv({ NO_COLOR: '1', EDITOR: editor });
    delete env['CI'];
    delete env['VISUAL'];
    const cmd = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    const child = spawn(SCRIPT as string, ['-qec', cmd, '/dev/null'], { cwd: dir, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    // The questions before and after the editor (issue 19 item 8): "Open the editor" (the first choice), then no codegen.
    const answers: [string, string][] = [['How do you want to define the action?', '\r'], ['Generate handler code', 'n\r']];
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      const next = answers[0];
      if (next && stdout.includes(next[0])) {
        answers.shift();
        child.stdin.write(next[1]);
      }
    });
    return new Promise((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code, signal) => {
        child.stdin.destroy();
        resolve({ code, signal, stdout: stdout.replace(/\r\n/g, '\n'), stderr: '' });
      });
    });
  }

  it('opens the editor seeded from the template and creates the action from what was saved', async () => {
    const dir = await project();
    const r = await interactive(dir, ['actions', 'create', 'hello', '--no-apply'],
      `grep -q 'hello(arg1: SampleInput!): SampleOutput' "$1" || exit 3\nsed -i 's/SampleOutput/HelloOutput/g; s/SampleInput/HelloInput/g' "$1"`);
    expect(r.code, show(r)).toBe(0);
    expect(r.stdout).toContain('Action "hello" written to metadata');
    expect(read(dir, 'actions.graphql')).toContain('  # Define your action as a mutation here\n  hello(arg1: HelloInput!): HelloOutput\n}\n\ntype HelloOutput {');
  });

  it('an unchanged definition aborts; a failing editor is editor-failed; an invalid one is kept with a hint', async () => {
    const dir = await project();
    const before = snapshot(join(dir, 'metadata'));
    const same = await interactive(dir, ['actions', 'create', 'hello'], 'true');
    expect(same.code, show(same)).toBe(1);
    expect(same.stdout).toContain('error: aborted: the action definition was empty or unchanged');
    const failed = await interactive(dir, ['actions', 'create', 'hello'], 'exit 7');
    expect(failed.code, show(failed)).toBe(1);
    expect(failed.stdout).toMatch(/error: editor ".*editor\.sh" exited with status 7; no action was created/);
    const invalid = await interactive(dir, ['actions', 'create', 'hello'], 'printf "type Mutation {\\n  hello: Nope\\n}\\n" > "$1"');
    expect(invalid.code, show(invalid)).toBe(1);
    const kept = /hint: your definition was kept in (\S+); fix it and run: engine actions create hello --sdl \1/.exec(invalid.stdout);
    expect(kept, show(invalid)).not.toBeNull();
    expect(readFileSync(kept?.[1] as string, 'utf8')).toBe('type Mutation {\n  hello: Nope\n}\n');
    rmSync(kept?.[1] as string, { force: true });
    expect(snapshot(join(dir, 'metadata'))).toEqual(before);
  });
});

describe('engine actions create --with-codegen', () => {
  it('generates the handler files of the new action', async () => {
    const dir = await project();
    writeFileSync(join(dir, 'config.yaml'), `${readFileSync(join(dir, 'config.yaml'), 'utf8')}  codegen:\n    framework: javascript-node-http\n    output_dir: handlers\n`);
    const r = await run(dir, ['actions', 'create', 'login', '--sdl', '-', '--with-codegen', '-o', 'json'], LOGIN_SDL);
    expect(r.code, show(r)).toBe(0);
    const doc = jsonDoc(r);
    expect(doc.codegen.files.length).toBeGreaterThan(0);
    for (const f of doc.codegen.files as string[]) expect(existsSync(join(dir, f)), f).toBe(true);
  });

  it('without a configured framework nothing happens: codegen-not-configured', async () => {
    const dir = await project();
    const before = snapshot(join(dir, 'metadata'));
    const r = await run(dir, ['actions', 'create', 'login', '--sdl', '-', '--with-codegen'], LOGIN_SDL);
    expect(r.code, show(r)).toBe(1);
    expect(r.stderr).toContain('error: no codegen framework configured');
    expect(snapshot(join(dir, 'metadata'))).toEqual(before);
  });
});
