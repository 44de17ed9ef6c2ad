import {
  getNamedType, getNullableType, isInputObjectType, isListType, Kind, TypeInfo, valueFromAST, valueFromASTUntyped, visit,
  visitWithTypeInfo, type ArgumentNode, type DocumentNode, type GraphQLInputType, type GraphQLSchema,
} from 'graphql';
import { isSessionVariableName, sessionValue } from '../auth/session-names.js';
import { gqlError } from '../graphql/errors.js';
import { literal } from './literals.js';
import { inputHasPresets, type Preset, type Presets } from './role-schema.js';

/**
 * Presets (issue 35.2) written into a forwarded document: a preset argument is set (whatever the client could have
 * given: the role's schema has no such argument), and an input object of a type with preset fields gets them, where
 * the client gives one (as a literal or a variable: the value is written out as a literal then).
 */

/** A preset's value with its session variables read, coerced to the argument's type. */
function presetValue(p: Preset, type: GraphQLInputType, session: Record<string, string>): unknown {
  const raw = valueFromASTUntyped(p.value);
  return p.static ? raw : fromSession(raw, type, session);
}

function fromSession(v: unknown, type: GraphQLInputType | undefined, session: Record<string, string>): unknown {
  const t = type ? getNullableType(type) : undefined;
  if (isSessionVariableName(v)) {
    const s = sessionValue(session, v);
    if (s === undefined) throw gqlError('not-found', '$', `missing session variable: "${v.toLowerCase()}"`);
    const named = type ? getNamedType(type).name : '';
    if (t && isListType(t)) {
      try {
        return JSON.parse(s) as unknown;
      } catch {
        return [s];
      }
    }
    if (named === 'Int' || named === 'Float') return Number.isFinite(Number(s)) && s.trim() !== '' ? Number(s) : s;
    if (named === 'Boolean') return s.trim().toLowerCase() === 'true';
    return s;
  }
  if (Array.isArray(v)) return v.map((x) => fromSession(x, t && isListType(t) ? t.ofType as GraphQLInputType : undefined, session));
  if (typeof v === 'object' && v !== null) {
    const fields = t && isInputObjectType(t) ? t.getFields() : undefined;
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, fromSession(x, fields?.[k]?.type, session)]));
  }
  return v;
}

/** Sets the preset fields of every input object of a preset-bearing type inside `v`. */
function inject(v: unknown, type: GraphQLInputType, presets: Presets, session: Record<string, string>): unknown {
  if (v === null || v === undefined) return v;
  const t = getNullableType(type);
  if (isListType(t)) return Array.isArray(v) ? v.map((x) => inject(x, t.ofType as GraphQLInputType, presets, session)) : inject(v, t.ofType as GraphQLInputType, presets, session);
  if (!isInputObjectType(t) || typeof v !== 'object') return v;
  const out: Record<string, unknown> = { ...(v as Record<string, unknown>) };
  const fields = t.getFields();
  for (const [k, f] of Object.entries(fields)) {
    if (out[k] !== undefined && inputHasPresets(getNamedType(f.type), presets)) out[k] = inject(out[k], f.type, presets, session);
  }
  for (const [k, p] of presets.inputs.get(t.name) ?? []) {
    const f = fields[k];
    if (f) out[k] = presetValue(p, f.type, session);
  }
  return out;
}

const argument = (name: string, v: unknown, type: GraphQLInputType): ArgumentNode =>
  ({ kind: Kind.ARGUMENT, name: { kind: Kind.NAME, value: name }, value: literal(v, type) });

/** The document with the role's presets written in; `schema` is the remote's (customised) schema. */
export function applyPresets(doc: DocumentNode, schema: GraphQLSchema, presets: Presets, session: Record<string, string>, variables: Record<string, unknown>): DocumentNode {
  const info = new TypeInfo(schema);
  return visit(doc, visitWithTypeInfo(info, {
    Field(node) {
      const parent = info.getParentType();
      const def = info.getFieldDef();
      if (!parent || !def) return undefined;
      let changed = false;
      let args: ArgumentNode[] = (node.arguments ?? []).map((a) => {
        const ad = def.args.find((x) => x.name === a.name.value);
        if (!ad || !inputHasPresets(getNamedType(ad.type), presets)) return a;
        changed = true;
        return argument(a.name.value, inject(valueFromAST(a.value, ad.type, variables), ad.type, presets, session), ad.type);
      });
      for (const [name, p] of presets.args.get(`${parent.name}.${node.name.value}`) ?? []) {
        const ad = def.args.find((x) => x.name === name);
        if (!ad) continue;
        args = [...args.filter((a) => a.name.value !== name), argument(name, presetValue(p, ad.type, session), ad.type)];
        changed = true;
      }
      return changed ? { ...node, arguments: args } : undefined;
    },
  }));
}
