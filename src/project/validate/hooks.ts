/**
 * The semantic rules the shape definitions name as hooks (shapes-core.ts) and the validator runs once a value has
 * its shape: the ones without state; the rules needing the other files (allow-list collections, custom-type tables)
 * or building a result (actions.yaml) are closures of validate.ts and metadata-dir/actions-yaml.ts.
 */
import { EVENT_OPS } from './shapes-tables.js';
import { isObj, present } from './core.js';
import type { Hooks } from './walk.js';

const computedFieldNames = (table: Record<string, unknown>): Set<string> => {
  const list = Array.isArray(table['computed_fields']) ? (table['computed_fields'] as unknown[]) : [];
  return new Set(list.filter(isObj).map((cf) => cf['name']).filter((n): n is string => typeof n === 'string'));
};

export const STATIC_HOOKS: Hooks = {
  /** cli.md §4.13 "Permissions": admin has unrestricted access. */
  adminRole: (w, v, path) => {
    if (v === 'admin') w.c.error('permission-invalid', 'cannot define a permission for the admin role', path);
  },

  /** A select permission's `computed_fields` exist on its table (checked when the table has a name). */
  computedFieldRef: (w, v, path, scope) => {
    const table = scope.entity?.parent;
    if (!table?.named || computedFieldNames(table.value).has(v as string)) return;
    w.c.error('permission-invalid', `computed field "${v as string}" is not defined on table ${table.ownerText}`, path);
  },

  /** At least one operation or `enable_manual`, checked when the trigger has a name to report (else its absence is). */
  eventTriggerOps: (w, v, path, scope) => {
    const d = v as Record<string, unknown>;
    const name = scope.entity?.value['name'];
    if (typeof name === 'string' && d['enable_manual'] === false && !EVENT_OPS.some((op) => present(d[op]))) {
      w.c.error('event-trigger-invalid', `event trigger "${name}" must enable at least one of insert, update, delete or enable_manual`, path);
    }
  },

  metadataVersion: (w, v, path, _scope, shape) => {
    const shown = typeof v === 'number' ? String(v) : JSON.stringify(v);
    const expected = shape.kind === 'enum' ? shape.values.join(' or ') : '';
    w.c.error('metadata-version-unsupported', `unsupported metadata version ${shown}: expected ${expected}`, path);
  },

  actionKind: (w, v, path, scope, shape) => {
    // `""` is accepted (the incumbent's query actions) but not suggested.
    const expected = shape.kind === 'enum' ? shape.values.filter((x) => x !== '').map((x) => JSON.stringify(x)).join(' or ') : '';
    w.c.error('action-kind-invalid', `invalid kind "${String(v)}" for ${scope.entity?.thing ?? ''}: expected ${expected}`, path);
  },
};
