import { actionJson, namedType } from '../../metadata/kinds/actions.js';
import type { JsonObject } from '../../metadata/json.js';
import type { Action } from '../../metadata/types.js';
import { objectId, type InconsistentObject } from '../inconsistency.js';
import type { TypeKind } from './custom-types.js';

export const actionId = (name: string): string => objectId('action', null, name);
export const actionPermId = (action: string, role: string): string => objectId('action_permission', null, `${action}\u0000${role}`);
export const actionPrefix = (name: string): string => `in action "${name}": `;
export const actionPermPrefix = (action: string, role: string): string => `${actionPrefix(action)}in permission for role "${role}": `;

export function actionRecord(a: Action, reason: string): InconsistentObject {
  const { permissions: _omit, ...definition } = actionJson(a);
  return { id: actionId(a.name), type: 'action', definition: definition as JsonObject, reason: actionPrefix(a.name) + reason };
}

export function actionPermRecord(action: string, p: { role: string; comment: string | null }, reason: string): InconsistentObject {
  const definition: JsonObject = { action, role: p.role };
  if (p.comment !== null) definition['comment'] = p.comment;
  return { id: actionPermId(action, p.role), type: 'action_permission', definition, reason: actionPermPrefix(action, p.role) + reason };
}

/** Resolution reasons of an action (§4.6.2), first failure wins; `kinds` are the usable types. */
export function actionReason(a: Action, kinds: Map<string, TypeKind>): string | null {
  const seen = new Set<string>();
  for (const arg of a.definition.arguments) {
    if (seen.has(arg.name)) return `duplicate arguments: "${arg.name}"`;
    seen.add(arg.name);
  }
  for (const arg of a.definition.arguments) {
    const kind = kinds.get(namedType(arg.type));
    if (kind !== 'scalar' && kind !== 'enum' && kind !== 'input_object') {
      return `the type "${namedType(arg.type)}" of argument "${arg.name}" is not a scalar, enum or input object type`;
    }
  }
  const out = namedType(a.definition.output_type);
  if (kinds.get(out) !== 'object' || !isCustomObject(out, kinds)) return `the type "${out}" is not an object type defined in custom types`;
  return null;
}

const isCustomObject = (name: string, kinds: Map<string, TypeKind>): boolean => kinds.get(name) === 'object';
