import { describe, expect, it } from 'vitest';
import { renderWidenedText, widenedAccess } from '../../src/metadata/access.js';
import type { CanonicalDocument } from '../../src/metadata/objects.js';
import { T, uid, type Obj } from './diff-fixtures.js';

// Issue 27 item 5: the changes of a plan that widen access, for the plan's own "Access widened" section.

const doc = (table: Obj, more: Obj = {}): CanonicalDocument => ({ version: 2, tables: [{ table: T, ...table }], ...more });
const perm = (role: string, permission: Obj) => [{ role, permission }];

describe('widenedAccess', () => {
  it('a permission added, of any kind, and an action permission added', () => {
    const from = doc({}, { actions: [{ name: 'a', definition: { handler: 'http://h', output_type: 'O' } }] });
    const to = doc({
      insert_permissions: perm('user', { check: {} }), delete_permissions: perm('user', { filter: uid }),
    }, { actions: [{ name: 'a', definition: { handler: 'http://h', output_type: 'O' }, permissions: [{ role: 'user' }] }] });
    expect(widenedAccess(from, to)).toEqual([
      { kind: 'insert_permission', name: 'public.author.user', reasons: ['permission added'] },
      { kind: 'delete_permission', name: 'public.author.user', reasons: ['permission added'] },
      { kind: 'action_permission', name: 'a.user', reasons: ['permission added'] },
    ]);
  });

  it('a filter or check removed or changed; one added (narrowing) is not listed', () => {
    const from = doc({
      update_permissions: perm('u', { columns: ['name'], filter: uid, check: { id: { _gt: 0 } } }),
      delete_permissions: perm('u', { filter: {} }),
      insert_permissions: perm('u', { check: uid }),
    });
    const to = doc({
      update_permissions: perm('u', { columns: ['name'], filter: { id: uid } }),
      delete_permissions: perm('u', { filter: uid }),
      insert_permissions: perm('u', { check: {} }),
    });
    expect(widenedAccess(from, to)).toEqual([
      { kind: 'insert_permission', name: 'public.author.u', reasons: ['check removed'] },
      { kind: 'update_permission', name: 'public.author.u', reasons: ['filter changed: {"_eq":"X-Engine-User-Id"} → {"id":{"_eq":"X-Engine-User-Id"}}', 'check removed'] },
    ]);
  });

  it('columns, computed fields, limit, aggregations, presets and backend_only', () => {
    const from = doc({
      select_permissions: perm('s', { columns: ['id'], computed_fields: ['a'], filter: {}, limit: 5 }),
      insert_permissions: perm('i', { check: {}, columns: ['id'], set: { owner: 'X-Engine-User-Id', kind: 'x' }, backend_only: true }),
      update_permissions: perm('u', { columns: ['id', 'name'], filter: {}, set: { kind: 'x' } }),
    });
    const to = doc({
      select_permissions: perm('s', { columns: ['id', 'name'], computed_fields: ['a', 'b'], filter: {}, allow_aggregations: true }),
      insert_permissions: perm('i', { check: {}, set: { kind: 'y' } }),
      update_permissions: perm('u', { columns: '*', filter: {}, set: { kind: 'x' } }),
    });
    expect(widenedAccess(from, to)).toEqual([
      { kind: 'insert_permission', name: 'public.author.i', reasons: ['columns added: all (*)', 'presets removed or changed: owner, kind', 'no longer backend only'] },
      { kind: 'select_permission', name: 'public.author.s', reasons: ['columns added: name', 'computed fields added: b', 'limit removed', 'aggregations allowed'] },
      { kind: 'update_permission', name: 'public.author.u', reasons: ['columns added: all (*)'] },
    ]);
    const raised = widenedAccess(from, doc({ select_permissions: perm('s', { columns: ['id'], computed_fields: ['a'], filter: {}, limit: 50 }) }));
    expect(raised.find((w) => w.kind === 'select_permission')).toEqual({ kind: 'select_permission', name: 'public.author.s', reasons: ['limit raised: 5 → 50'] });
  });

  it('inherited roles added or given more roles', () => {
    const from = { version: 2, inherited_roles: [{ role_name: 'r', role_set: ['a'] }] };
    const to = { version: 2, inherited_roles: [{ role_name: 'r', role_set: ['a', 'b'] }, { role_name: 's', role_set: ['a', 'c'] }] };
    expect(widenedAccess(from, to)).toEqual([
      { kind: 'inherited_role', name: 'r', reasons: ['roles added: b'] },
      { kind: 'inherited_role', name: 's', reasons: ['inherited role added: a, c'] },
    ]);
  });

  it('nothing that narrows or does not touch access: removals, fewer columns, a lower limit, comments', () => {
    const from = doc({
      select_permissions: perm('s', { columns: '*', filter: {}, limit: 10, allow_aggregations: true }),
      delete_permissions: perm('d', { filter: {} }),
    });
    const to = doc({ select_permissions: [{ role: 's', permission: { columns: ['id'], filter: uid, limit: 5 }, comment: 'c' }] });
    expect(widenedAccess(from, to)).toEqual([]);
    expect(renderWidenedText([])).toEqual([]);
  });

  it('renders one line per object after a heading', () => {
    expect(renderWidenedText([{ kind: 'select_permission', name: 'public.author.s', reasons: ['filter removed', 'columns added: a'] }])).toEqual([
      '', 'Access widened (1):', '  ! select_permission public.author.s: filter removed; columns added: a',
    ]);
  });
});
