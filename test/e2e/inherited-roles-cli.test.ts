import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, initProject, show, useTestEngine } from './cli-helpers.js';

// Issue 12 item 4: inherited roles live in metadata/inherited_roles.yaml, a file written only when it holds
// something or already exists; validate, apply, export and diff handle it like any other.

const e = useTestEngine();

describe('inherited_roles.yaml (issue 12 item 4)', () => {
  it('is not created by init or by exporting an engine without inherited roles', async () => {
    const { dir } = await initProject(e.url);
    expect(existsSync(join(dir, 'metadata', 'inherited_roles.yaml'))).toBe(false);
    const r = await cli(['metadata', 'export'], { cwd: dir });
    expect(r.code, show(r)).toBe(0);
    expect(existsSync(join(dir, 'metadata', 'inherited_roles.yaml'))).toBe(false);
  });

  it('validates at positions, applies, exports and diffs clean', async () => {
    const { dir } = await initProject(e.url);
    const file = join(dir, 'metadata', 'inherited_roles.yaml');
    writeFileSync(file, '- role_name: staff\n  role_set: [author, editor]\n- role_name: admin\n  role_set: [x]\n- role_name: staff\n  role_set: [y]\n');
    const bad = await cli(['metadata', 'validate'], { cwd: dir });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain('metadata/inherited_roles.yaml:3:14: error:');
    expect(bad.stdout).toContain('metadata/inherited_roles.yaml:5:3: error: duplicate inherited_role staff (first defined at metadata/inherited_roles.yaml:1:3) [duplicate-object]');

    const text = '- role_name: staff\n  role_set:\n    - author\n    - editor\n';
    writeFileSync(file, text);
    const apply = await cli(['metadata', 'apply'], { cwd: dir });
    expect(apply.code, show(apply)).toBe(0);
    expect(((await e.ok({ type: 'export_metadata', args: {} })) as { inherited_roles: unknown }).inherited_roles)
      .toEqual([{ role_name: 'staff', role_set: ['author', 'editor'] }]);
    const exported = await cli(['metadata', 'export'], { cwd: dir });
    expect(exported.code, show(exported)).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(text);
    const diff = await cli(['metadata', 'diff', '--exit-code'], { cwd: dir });
    expect(diff.code, show(diff)).toBe(0);

    // Emptied: the engine's roles are removed, and the existing file is kept, empty.
    writeFileSync(file, '[]\n');
    const plan = await cli(['metadata', 'apply', '--dry-run'], { cwd: dir });
    expect(plan.stdout).toContain('- inherited_role staff');
    expect((await cli(['metadata', 'apply', '--allow-empty'], { cwd: dir })).code).toBe(0);
    expect(await e.ok({ type: 'export_metadata', args: {} })).toEqual({ version: 2, tables: [] });
    expect((await cli(['metadata', 'export'], { cwd: dir })).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe('[]\n');
  });
});
