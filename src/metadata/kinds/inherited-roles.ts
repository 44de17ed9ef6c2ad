import { badRequest, parseFailed } from '../../errors.js';
import { compareCodePoints, type JsonObject } from '../json.js';
import { arr, at, idx, obj, req, roleName } from '../reader.js';
import type { InheritedRole } from '../types.js';

/**
 * An inherited role (the incumbent's `inherited_roles`): a role whose permissions are the union of its member roles'
 * — a row or column is visible if any member role sees it. Members may themselves be inherited roles, without cycles.
 */
export function parseInheritedRole(v: unknown, path: string): InheritedRole {
  const o = obj(v, path);
  const role = roleName(req(o, 'role_name', path), at(path, 'role_name'));
  if (role === 'admin') throw badRequest('constraint-violation', at(path, 'role_name'), 'the role "admin" cannot be an inherited role');
  const setPath = at(path, 'role_set');
  const members = arr(req(o, 'role_set', path), setPath).map((r, i) => roleName(r, idx(setPath, i)));
  if (members.length === 0) throw parseFailed(setPath, 'the role set of an inherited role must not be empty');
  if (members.includes(role)) throw badRequest('constraint-violation', setPath, `the inherited role "${role}" cannot be a member of itself`);
  return { role_name: role, role_set: [...new Set(members)].sort(compareCodePoints) };
}

/** The first cycle among inherited roles (`a → b → a`), or null. */
export function inheritanceCycle(roles: readonly InheritedRole[]): string[] | null {
  const byName = new Map(roles.map((r) => [r.role_name, r]));
  const done = new Set<string>();
  const visit = (name: string, trail: string[]): string[] | null => {
    if (trail.includes(name)) return [...trail.slice(trail.indexOf(name)), name];
    if (done.has(name)) return null;
    const r = byName.get(name);
    for (const m of r?.role_set ?? []) {
      const c = visit(m, [...trail, name]);
      if (c) return c;
    }
    done.add(name);
    return null;
  };
  for (const r of [...roles].sort((a, b) => compareCodePoints(a.role_name, b.role_name))) {
    const c = visit(r.role_name, []);
    if (c) return c;
  }
  return null;
}

export function checkInheritance(roles: readonly InheritedRole[], path: string): void {
  const cycle = inheritanceCycle(roles);
  if (cycle) throw badRequest('constraint-violation', path, `inherited roles form a cycle: ${cycle.map((r) => `"${r}"`).join(' → ')}`);
}

export const inheritedRoleJson = (r: InheritedRole): JsonObject => ({ role_name: r.role_name, role_set: [...r.role_set] });
