import { describe, expect, it } from 'vitest';
import { useTestEngine } from '../helpers/engine.js';
import { expectErrorKeys } from '../helpers/assertions.js';

// Issue 12 item 4: inherited roles (the incumbent's `inherited_roles`) are metadata like any other: operations,
// replace_metadata, export, with their error rows. (Their GraphQL meaning comes with the GraphQL API.)

const e = useTestEngine();
const EXPORT = { type: 'export_metadata', args: {} };
const add = (role_name: unknown, role_set: unknown) => ({ type: 'add_inherited_role', args: { role_name, role_set } });

describe('inherited roles (issue 12 item 4)', () => {
  it('adds, exports in canonical form (members sorted, once), drops', async () => {
    await e.ok(add('staff', ['editor', 'author', 'editor']));
    await e.ok(add('boss', ['staff', 'auditor']));
    expect(((await e.ok(EXPORT)) as { inherited_roles: unknown }).inherited_roles).toEqual([
      { role_name: 'boss', role_set: ['auditor', 'staff'] },
      { role_name: 'staff', role_set: ['author', 'editor'] },
    ]);
    await e.ok({ type: 'drop_inherited_role', args: { role_name: 'boss' } });
    expect(((await e.ok(EXPORT)) as { inherited_roles: unknown }).inherited_roles).toEqual([{ role_name: 'staff', role_set: ['author', 'editor'] }]);
    await e.ok({ type: 'drop_inherited_role', args: { role_name: 'staff' } });
    expect(await e.ok(EXPORT)).toEqual({ version: 2, tables: [] });
  });

  it('round-trips through replace_metadata', async () => {
    const doc = { version: 2, tables: [], inherited_roles: [{ role_name: 'a', role_set: ['b', 'c'] }, { role_name: 'z', role_set: ['a'] }] };
    await e.ok({ type: 'replace_metadata', args: doc });
    expect(JSON.stringify(await e.ok(EXPORT))).toBe(JSON.stringify(doc));
  });

  it('refuses bad inherited roles at their path, changing nothing', async () => {
    await e.ok(add('staff', ['editor']));
    await expectErrorKeys(e, add('admin', ['x']), 400, { path: '$.args.role_name', error: 'the role "admin" cannot be an inherited role', code: 'constraint-violation' });
    await expectErrorKeys(e, add('x', []), 400, { path: '$.args.role_set', error: 'the role set of an inherited role must not be empty', code: 'parse-failed' });
    await expectErrorKeys(e, add('x', ['y', 'x']), 400, { path: '$.args.role_set', error: 'the inherited role "x" cannot be a member of itself', code: 'constraint-violation' });
    await expectErrorKeys(e, add('staff', ['y']), 400, { path: '$.args.role_name', error: 'the inherited role "staff" already exists', code: 'already-exists' });
    await expectErrorKeys(e, add('editor', ['staff']), 400, { path: '$.args', error: 'inherited roles form a cycle: "editor" → "staff" → "editor"', code: 'constraint-violation' });
    await expectErrorKeys(e, add('x', 'y'), 400, { path: '$.args.role_set', error: 'expected Array, encountered String', code: 'parse-failed' });
    await expectErrorKeys(e, { type: 'drop_inherited_role', args: { role_name: 'nope' } }, 400, { path: '$.args.role_name', error: 'the inherited role "nope" does not exist', code: 'not-exists' });
    await expectErrorKeys(e, { type: 'replace_metadata', args: { version: 2, tables: [], inherited_roles: [{ role_name: 'a', role_set: ['b'] }, { role_name: 'a', role_set: ['c'] }] } }, 400,
      { path: '$.args.inherited_roles', error: 'multiple declarations exist for the following inherited roles : "a"', code: 'already-exists' });
  });
});
