/**
 * End-to-end: failures of the real `engine` bin against a real engine that requires an admin secret — exit codes and
 * usage errors, JSON failures, connection and authentication errors, secrets, a rejected apply mapped back to the
 * project, concurrent applies, offline validation (cli.md §3, §5.3, §5.5, §6).
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  barrierProxy, cli, engineExport, initProject, jsonDoc, lineOf, lines, seedEngine, show, spawnCli, tempDir, useTestEngine, type CliResult,
} from './cli-helpers.js';

const SECRET = 'S3cret-e2e-7d1f0b';
const WRONG = 'wr0ng-e2e-9a2c44';
const NETWORK_HINT = "hint: start a local engine with 'engine serve', or set --endpoint / ENGINE_GRAPHQL_ENDPOINT";
const AUTH_HINT = 'pass --admin-secret or set ENGINE_GRAPHQL_ADMIN_SECRET (environment, .env, or admin_secret: ${VAR} in config.yaml)';
const DEAD = 'http://127.0.0.1:1';

const e = useTestEngine({ adminSecret: SECRET });

const seed = (): Promise<void> => seedEngine(e);

const engineVersion = async (): Promise<number> => (await engineExport(e)).version;

/** Runs the CLI with the admin secret in the environment (unless `env` overrides the environment). */
const run = (cwd: string, args: string[], env: Record<string, string> = { ENGINE_GRAPHQL_ADMIN_SECRET: SECRET }): Promise<CliResult> =>
  cli(args, { cwd, env });

/** A project pointing at the engine, with the engine's metadata exported into it. */
async function project(name = 'proj'): Promise<string> {
  const { dir } = await initProject(e.url, name, { ENGINE_GRAPHQL_ADMIN_SECRET: SECRET });
  const exp = await run(dir, ['metadata', 'export']);
  expect(exp.code, show(exp)).toBe(0);
  return dir;
}

/** The failure document of JSON mode (cli.md §3.4), with nothing repeated on stderr. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function failure(r: CliResult, exit: number): any {
  expect(r.code, show(r)).toBe(exit);
  const doc = jsonDoc(r);
  expect(doc.ok).toBe(false);
  expect(r.stderr, 'the final error is not repeated on stderr').not.toMatch(/^error:/m);
  return doc;
}

describe('exit codes 64: bad usage (cli.md §3.5, §6)', () => {
  it('unknown command', async () => {
    const cwd = await tempDir();
    const r = await run(cwd, ['bogus']);
    expect(r.code, show(r)).toBe(64);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('error: unknown command "bogus" for "engine"\n');
    const j = await run(cwd, ['bogus', '-o', 'json']);
    expect(failure(j, 64).error).toEqual({ code: 'unknown-command', message: 'unknown command "bogus" for "engine"' });
  });

  it('unknown command close to a known one suggests it (distance ≤ 2)', async () => {
    const cwd = await tempDir();
    const r = await run(cwd, ['metdata']);
    expect(r.code, show(r)).toBe(64);
    expect(r.stdout).toBe('');
    expect(lines(r.stderr)[0]).toBe('error: unknown command "metdata" for "engine" Did you mean "metadata"?');
  });

  it('unknown subcommand names its parent command', async () => {
    const cwd = await tempDir();
    const r = await run(cwd, ['metadata', 'bogus']);
    expect(r.code, show(r)).toBe(64);
    expect(r.stdout).toBe('');
    expect(lines(r.stderr)[0]).toBe('error: unknown command "bogus" for "engine metadata"');
  });

  it('unknown flag, with the hint naming the command', async () => {
    const dir = await project();
    const r = await run(dir, ['metadata', 'diff', '--bogus']);
    expect(r.code, show(r)).toBe(64);
    expect(r.stdout).toBe('');
    expect(lines(r.stderr)[0]).toBe('error: unknown flag: --bogus');
    const j = await run(dir, ['metadata', 'diff', '--bogus', '-o', 'json']);
    expect(failure(j, 64).error).toMatchObject({ code: 'unknown-flag', message: 'unknown flag: --bogus' });
    // §6: hint `run '<command> --help' for usage`.
    expect(lines(r.stderr)[1]).toBe("hint: run 'engine metadata diff --help' for usage");
  });

  it('--exit-code without --dry-run is conflicting-flags; nothing is applied', async () => {
    await seed();
    const dir = await project();
    writeFileSync(join(dir, 'metadata/tables.yaml'), '[]\n');
    const before = await e.state();
    const r = await run(dir, ['metadata', 'apply', '--exit-code']);
    expect(r.code, show(r)).toBe(64);
    expect(r.stdout).toBe('');
    expect(lines(r.stderr)).toEqual(['error: --exit-code can only be used with --dry-run']);
    const j = await run(dir, ['metadata', 'apply', '--exit-code', '-o', 'json']);
    expect(failure(j, 64).error).toEqual({ code: 'conflicting-flags', message: '--exit-code can only be used with --dry-run' });
    expect(await e.state()).toEqual(before);
  });

  it('metadata export --prune with -o json|yaml is conflicting-flags; no file is touched', async () => {
    await seed();
    const dir = await project();
    writeFileSync(join(dir, 'metadata/tables.yaml'), '[]\n');
    const j = await run(dir, ['metadata', 'export', '--prune', '-o', 'json']);
    const err = failure(j, 64).error;
    expect(err.code).toBe('conflicting-flags');
    expect(err.message).toMatch(/^--prune and --output( json)? cannot be used together$/);
    const y = await run(dir, ['metadata', 'export', '--prune', '-o', 'yaml']);
    expect(y.code, show(y)).toBe(64);
    expect(y.stdout).toBe('');
    expect(y.stderr).toMatch(/^error: --prune and --output( yaml)? cannot be used together$/m);
    expect(readFileSync(join(dir, 'metadata/tables.yaml'), 'utf8')).toBe('[]\n');
    expect(existsSync(join(dir, 'metadata/functions.yaml'))).toBe(true);
  });

  it('metadata clear without --yes in a non-interactive run is confirmation-required; nothing is cleared', async () => {
    await seed();
    const cwd = await tempDir();
    const before = await e.state();
    const r = await run(cwd, ['metadata', 'clear', '--endpoint', e.url]);
    expect(r.code, show(r)).toBe(64);
    expect(r.stdout).toBe('');
    expect(lines(r.stderr)).toEqual(['error: refusing to clear metadata without confirmation; pass --yes']);
    const j = await run(cwd, ['metadata', 'clear', '--endpoint', e.url, '-o', 'json']);
    expect(failure(j, 64).error).toEqual({ code: 'confirmation-required', message: 'refusing to clear metadata without confirmation; pass --yes' });
    expect(await e.state()).toEqual(before);
  });

  it('init --config-version 1 and an invalid --output value are invalid-flag-value', async () => {
    const cwd = await tempDir();
    const r = await run(cwd, ['init', 'p', '--config-version', '1']);
    expect(r.code, show(r)).toBe(64);
    expect(r.stdout).toBe('');
    expect(lines(r.stderr)).toEqual(['error: invalid value "1" for --config-version: new projects use config version 2']);
    expect(existsSync(join(cwd, 'p'))).toBe(false);
    const j = await run(cwd, ['init', 'p', '--config-version', '1', '-o', 'json']);
    expect(failure(j, 64).error).toEqual({ code: 'invalid-flag-value', message: 'invalid value "1" for --config-version: new projects use config version 2' });
    expect(existsSync(join(cwd, 'p'))).toBe(false);
    // §3.4: -o yaml elsewhere than export/build.
    const yaml = await run(cwd, ['metadata', 'reload', '--endpoint', e.url, '-o', 'yaml']);
    expect(yaml.code, show(yaml)).toBe(64);
    expect(yaml.stdout).toBe('');
    expect(lines(yaml.stderr)[0]).toBe('error: invalid value "yaml" for --output: expected one of text, json');
  });
});

describe('engine connection errors (cli.md §3.6, §6)', () => {
  it('connection refused → network-error with its hint, exit 1', async () => {
    const dir = await project();
    const r = await run(dir, ['metadata', 'diff', '--endpoint', DEAD]);
    expect(r.code, show(r)).toBe(1);
    expect(r.stdout).toBe('');
    expect(lines(r.stderr)).toEqual([`error: cannot connect to the engine at ${DEAD} (connection refused)`, NETWORK_HINT]);
    const j = await run(dir, ['metadata', 'clear', '--yes', '--endpoint', DEAD, '-o', 'json']);
    expect(failure(j, 1).error).toEqual({
      code: 'network-error', message: `cannot connect to the engine at ${DEAD} (connection refused)`, hint: NETWORK_HINT.replace(/^hint: /, ''),
    });
  });

  it('a wrong admin secret → unauthorized "rejected the admin secret"; none → "requires an admin secret"', async () => {
    const dir = await project();
    const wrong = await run(dir, ['metadata', 'diff', '--admin-secret', WRONG]);
    expect(wrong.code, show(wrong)).toBe(1);
    expect(wrong.stdout).toBe('');
    expect(lines(wrong.stderr)).toEqual([`error: the engine at ${e.url} rejected the admin secret (HTTP 401)`, `hint: ${AUTH_HINT}`]);

    const none = await run(dir, ['metadata', 'diff'], {});
    expect(none.code, show(none)).toBe(1);
    expect(lines(none.stderr)).toEqual([`error: the engine at ${e.url} requires an admin secret (HTTP 401)`, `hint: ${AUTH_HINT}`]);

    const j = await run(dir, ['metadata', 'reload', '--admin-secret', WRONG, '-o', 'json']);
    expect(failure(j, 1).error).toMatchObject({
      code: 'unauthorized', message: `the engine at ${e.url} rejected the admin secret (HTTP 401)`, hint: AUTH_HINT,
    });
    const jn = await run(dir, ['metadata', 'apply', '-o', 'json'], {});
    expect(failure(jn, 1).error).toMatchObject({ code: 'unauthorized', message: `the engine at ${e.url} requires an admin secret (HTTP 401)` });
  });

  it('the admin secret never appears in output or project files, even with --log-level debug (cli.md §3.7)', async () => {
    await seed();
    const parent = await tempDir();
    const init = await run(parent, ['init', 'proj', '--endpoint', e.url, '--admin-secret', SECRET], {});
    expect(init.code, show(init)).toBe(0);
    const dir = join(parent, 'proj');
    expect(readFileSync(join(dir, '.env'), 'utf8')).toBe(`ENGINE_GRAPHQL_ADMIN_SECRET=${SECRET}\n`);
    expect(statSync(join(dir, '.env')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dir, 'config.yaml'), 'utf8')).not.toContain(SECRET);

    const runs: CliResult[] = [init];
    // The secret from .env (§2.3), from the flag, from the environment; successes and failures; text and JSON.
    const exp = await run(dir, ['metadata', 'export', '--log-level', 'debug'], {});
    expect(exp.code, show(exp)).toBe(0);
    expect(exp.stderr).toMatch(/^debug: /m);
    expect(exp.stderr).toContain('X-Engine-Admin-Secret: ***');
    runs.push(exp);
    const diff = await run(dir, ['metadata', 'diff', '--log-level', 'debug', '--admin-secret', SECRET], {});
    expect(diff.code, show(diff)).toBe(0);
    expect(diff.stdout).toBe('No differences.\n');
    expect(diff.stderr).toContain('X-Engine-Admin-Secret: ***');
    runs.push(diff);
    writeFileSync(join(dir, 'metadata/tables.yaml'), readFileSync(join(dir, 'metadata/tables.yaml'), 'utf8').replace('num_retries: 0', 'num_retries: 2'));
    const apply = await run(dir, ['metadata', 'apply', '--log-level', 'debug']);
    expect(apply.code, show(apply)).toBe(0);
    expect(lines(apply.stderr)).toContain('Metadata applied: 0 added, 0 removed, 1 changed.');
    runs.push(apply);
    runs.push(await run(dir, ['metadata', 'export', '-o', 'json', '--log-level', 'debug']));
    runs.push(await run(dir, ['metadata', 'reload', '-o', 'json', '--log-level', 'debug', '--admin-secret', SECRET], {}));
    const bad = await run(dir, ['metadata', 'diff', '--log-level', 'debug', '--admin-secret', WRONG], {});
    expect(bad.code, show(bad)).toBe(1);
    runs.push(bad, await run(dir, ['metadata', 'apply', '-o', 'json', '--log-level', 'debug', '--admin-secret', WRONG], {}));
    for (const r of runs) {
      for (const s of [SECRET, WRONG]) {
        expect(r.stdout, `stdout must not contain the secret\n${show(r)}`).not.toContain(s);
        expect(r.stderr, `stderr must not contain the secret\n${show(r)}`).not.toContain(s);
      }
    }
    for (const f of ['config.yaml', 'metadata/tables.yaml', 'metadata/actions.yaml', 'metadata/actions.graphql']) {
      expect(readFileSync(join(dir, f), 'utf8')).not.toContain(SECRET);
    }
  });
});

describe('a rejected apply is mapped back to the project (cli.md §5.3 step 8)', () => {
  it('prints the offending object with its own lines, exits 1 and changes nothing', async () => {
    await seed();
    const dir = await project();
    const file = join(dir, 'metadata/tables.yaml');
    const text = readFileSync(file, 'utf8').replace('          - title\n', '          - title\n          - nope\n');
    writeFileSync(file, text);
    const item = [
      '    - role: user',
      '      permission:',
      '        columns:',
      '          - id',
      '          - title',
      '          - nope',
      '        filter:',
      '          author_id:',
      '            _eq: X-Engine-User-Id',
    ];
    expect(text).toContain(`  select_permissions:\n${item.join('\n')}\n  event_triggers:\n`);
    // The error points at the unknown column inside the object (issue 19 item 1), in the format of validate.
    const line = lineOf(text, '          - nope');
    const before = await e.state();

    const r = await run(dir, ['metadata', 'apply']);
    expect(r.code, show(r)).toBe(1);
    expect(r.stdout).toBe('');
    const [first, ...rest] = lines(r.stderr);
    const m = new RegExp(`^metadata/tables\\.yaml:${line}:(\\d+): error: select_permission public\\.article\\.user: (.+) \\[constraint-violation\\]$`).exec(first ?? '');
    expect(m, show(r)).not.toBeNull();
    expect(m?.[1]).toBe('13');
    expect(m?.[2]).toContain('column "nope" does not exist in table "article"');
    expect(rest, 'the object\'s own lines, indented 4 spaces; never the whole metadata').toEqual(item.map((l) => `    ${l}`));
    expect(await e.state()).toEqual(before);

    const j = await run(dir, ['metadata', 'apply', '-o', 'json']);
    const doc = failure(j, 1);
    expect(doc.error).toMatchObject({ code: 'server-error', file: 'metadata/tables.yaml', line, column: Number(m?.[1]) });
    expect(doc.error.message).toMatch(/\[constraint-violation\]$/);
    expect(doc.objects).toEqual([{
      kind: 'select_permission', name: 'public.article.user', file: 'metadata/tables.yaml', line, column: Number(m?.[1]),
      reason: expect.stringContaining('column "nope" does not exist in table "article"'),
    }]);
    expect(await e.state()).toEqual(before);
  });
});

describe('concurrent applies (cli.md §1.5, §5.3 step 8, §6 metadata-conflict)', () => {
  it('two applies of different edits spawned at once: exactly one succeeds, the other fails with metadata-conflict', async () => {
    await seed();
    const a = await project('a');
    const b = await project('b');
    // Both CLIs talk to the engine through a proxy that releases their export_metadata requests together, so both
    // read the same resource version however the two processes are scheduled.
    const proxy = await barrierProxy(e.url, 2);
    const hint = "hint: run 'engine metadata diff' to review, then apply again";
    let conflicts = 0;
    try {
      for (let round = 1; round <= 3; round++) {
        // Both copies start from the engine's current metadata, then make different edits.
        for (const dir of [a, b]) {
          const exp = await run(dir, ['metadata', 'export']);
          expect(exp.code, show(exp)).toBe(0);
        }
        const edit = (dir: string, from: RegExp, to: string) => {
          const f = join(dir, 'metadata/tables.yaml');
          const t = readFileSync(f, 'utf8');
          expect(t).toMatch(from);
          writeFileSync(f, t.replace(from, to));
        };
        edit(a, /webhook: \S+/, `webhook: http://localhost:3000/a-${round}`);
        edit(b, /num_retries: \d+/, `num_retries: ${round}`);
        const version = await engineVersion();
        const before = JSON.parse((await e.state()).metadata).tables[0].event_triggers[0];
        const env = { ENGINE_GRAPHQL_ADMIN_SECRET: SECRET };

        // Spawned at once: project a in text mode, project b in JSON mode.
        const pa = spawnCli(['metadata', 'apply', '--endpoint', proxy.url], { cwd: a, env });
        const pb = spawnCli(['metadata', 'apply', '--endpoint', proxy.url, '-o', 'json'], { cwd: b, env });
        const [ra, rb] = await Promise.all([pa.done, pb.done]);
        expect(proxy.released(), 'both runs read the metadata through the barrier').toBe(2 * round);

        const conflictMessage = `the engine's metadata changed after it was read (resource version ${version}); nothing was applied`;
        const aOk = ra.code === 0;
        if (aOk) expect(lines(ra.stderr), show(ra)).toContain('Metadata applied: 0 added, 0 removed, 1 changed.');
        else {
          expect(ra.code, show(ra)).toBe(1);
          expect(ra.stdout).toBe('');
          const l = lines(ra.stderr);
          expect(l[0], show(ra)).toBe(`error: ${conflictMessage}`);
          expect(l.at(-1)).toBe(hint);
          for (const x of l.slice(1, -1)) expect(x, 'only an "  at <path>" line may come between (§3.6)').toMatch(/^ {2}at \$/);
        }
        const bOk = rb.code === 0;
        if (bOk) expect(jsonDoc(rb), show(rb)).toMatchObject({ ok: true, applied: true, resource_version: version + 1 });
        else {
          expect(failure(rb, 1).error).toMatchObject({ code: 'metadata-conflict', message: conflictMessage, hint: hint.replace(/^hint: /, '') });
        }
        expect(Number(aOk) + Number(bOk), `exactly one apply succeeds\n${show(ra)}\n${show(rb)}`).toBe(1);
        conflicts += 1;

        // Exactly one replace_metadata took effect: the winner's edit is in the engine, the loser's is not.
        expect(await engineVersion()).toBe(version + 1);
        const et = JSON.parse((await e.state()).metadata).tables[0].event_triggers[0];
        if (aOk) expect(et).toEqual({ ...before, webhook: `http://localhost:3000/a-${round}` });
        else expect(et).toEqual({ ...before, retry_conf: { ...before.retry_conf, num_retries: round } });
      }
    } finally {
      await proxy.close();
    }
    expect(conflicts).toBe(3);
  });
});

describe('metadata validate (cli.md §4.13, §5.5)', () => {
  it('prints each problem on stdout, the summary on stderr, exits 1; apply refuses without contacting the engine', async () => {
    const dir = await project();
    const clean = await run(dir, ['metadata', 'validate']);
    expect(clean.code, show(clean)).toBe(0);
    expect(clean.stdout).toBe('');
    expect(lines(clean.stderr)).toEqual(['No problems found.']);

    writeFileSync(join(dir, 'metadata/tables.yaml'), [
      '- table:',
      '    schema: public',
      '    name: article',
      '  select_permissions:',
      '    - role: user',
      '      permission:',
      '        columns: "*"',
      '        filter: {}',
      '        limit: 0',
      '        limt: 1',
      '',
    ].join('\n'));
    writeFileSync(join(dir, 'metadata/functions.yaml'), [
      '- function:',
      '    schema: public',
      '    name: f',
      '- function:',
      '    schema: public',
      '    name: f',
      '',
    ].join('\n'));
    const problems = [
      'metadata/functions.yaml:4:3: error: duplicate function public.f (first defined at metadata/functions.yaml:1:3) [duplicate-object]',
      'metadata/tables.yaml:9:16: error: "limit" must be an integer ≥ 1 [permission-invalid]',
      'metadata/tables.yaml:10:9: error: unknown key "limt" in select permission for role "user" on public.article (did you mean "limit"?) [metadata-unknown-key]',
    ];
    const r = await run(dir, ['metadata', 'validate']);
    expect(r.code, show(r)).toBe(1);
    expect(r.stdout).toBe(`${problems.join('\n')}\n`);
    expect(lines(r.stderr)).toEqual([
      'Found 3 error(s) and 0 warning(s).', 'hint: correct the key; pass --allow-unknown-keys only for keys of a newer incumbent (they are left out)',
    ]);

    const j = await run(dir, ['metadata', 'validate', '-o', 'json']);
    expect(j.code, show(j)).toBe(1);
    expect(jsonDoc(j)).toEqual({
      ok: false,
      problems: [
        { severity: 'error', code: 'duplicate-object', message: 'duplicate function public.f (first defined at metadata/functions.yaml:1:3)', file: 'metadata/functions.yaml', line: 4, column: 3 },
        { severity: 'error', code: 'permission-invalid', message: '"limit" must be an integer ≥ 1', file: 'metadata/tables.yaml', line: 9, column: 16 },
        {
          severity: 'error', code: 'metadata-unknown-key', file: 'metadata/tables.yaml', line: 10, column: 9,
          message: 'unknown key "limt" in select permission for role "user" on public.article (did you mean "limit"?)',
        },
      ],
      summary: { errors: 3, warnings: 0 },
      error: {
        code: 'metadata-invalid', message: '3 error(s) found', file: 'metadata/functions.yaml', line: 4, column: 3,
        hint: 'correct the key; pass --allow-unknown-keys only for keys of a newer incumbent (they are left out)',
      },
    });

    // §5.3 step 1: print the problems and exit 1 without contacting the engine (a dead endpoint is never reached).
    const apply = await run(dir, ['metadata', 'apply', '--endpoint', DEAD]);
    expect(apply.code, show(apply)).toBe(1);
    expect(apply.stdout).toBe('');
    const errs = lines(apply.stderr);
    expect(errs).toContain('metadata/functions.yaml:4:3: error: duplicate function public.f (first defined at metadata/functions.yaml:1:3) [duplicate-object]');
    expect(errs).toContain('metadata/tables.yaml:9:16: error: "limit" must be an integer ≥ 1 [permission-invalid]');
    expect(errs).toContain('metadata/tables.yaml:10:9: error: unknown key "limt" in select permission for role "user" on public.article (did you mean "limit"?) [metadata-unknown-key]');
    expect(apply.stderr).not.toContain('cannot connect');
    const applyJson = await run(dir, ['metadata', 'apply', '--endpoint', DEAD, '-o', 'json']);
    expect(applyJson.code, show(applyJson)).toBe(1);
    expect(jsonDoc(applyJson)).toMatchObject({ ok: false, error: { code: 'metadata-invalid' } });
  });
});
