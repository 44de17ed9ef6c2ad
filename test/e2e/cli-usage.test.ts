import { describe, expect, it } from 'vitest';
import { cli, tempDir } from './cli-helpers.js';

// Issue 19 item 7, the small things that sting: a group command alone prints its help as a usage error, `-v` is
// `--version`, and a mistyped flag gets a "did you mean".

describe('usage (issue 19 item 7)', () => {
  it('a group command without its subcommand prints its help on stderr and exits 64', async () => {
    const r = await cli(['metadata'], { cwd: await tempDir() });
    expect(r.code).toBe(64);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^Usage: engine metadata \[options\] \[command\]\n/);
    expect(r.stderr).toContain('  apply [options]');
  });

  it('-v prints the version like --version', async () => {
    const cwd = await tempDir();
    const [short, long] = await Promise.all([cli(['-v'], { cwd }), cli(['--version'], { cwd })]);
    expect(short).toEqual(long);
    expect(short.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  it('suggests the nearest flag for a mistyped one', async () => {
    const r = await cli(['metadata', 'apply', '--dryrun'], { cwd: await tempDir() });
    expect({ code: r.code, stderr: r.stderr }).toEqual({
      code: 64, stderr: 'error: unknown flag: --dryrun Did you mean "--dry-run"?\nhint: run \'engine metadata apply --help\' for usage\n',
    });
  });

  it("accepts the incumbent's harmless --skip-update-check anywhere", async () => {
    const cwd = await tempDir();
    const [plain, skipped] = await Promise.all([cli(['metadata', 'validate'], { cwd }), cli(['--skip-update-check', 'metadata', 'validate', '--skip-update-check'], { cwd })]);
    expect(skipped).toEqual(plain);
    expect(plain.code).toBe(1);
  });
});
