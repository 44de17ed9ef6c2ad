import { buildClientSchema, getIntrospectionQuery, type IntrospectionQuery } from 'graphql';
import type { Json, JsonObject } from '../../metadata/json.js';
import type { RemoteIntrospection } from './types.js';

/**
 * The remote's introspection answer, renamed by `customization` (type names: mapping, else prefix + name + suffix;
 * field names per parent type likewise) and built into a schema. The standard scalars and `__` types keep their
 * names: they are the same types on both sides.
 */

export const INTROSPECTION_QUERY = getIntrospectionQuery({ descriptions: true, inputValueDeprecation: false });

const FIXED = new Set(['Int', 'Float', 'String', 'Boolean', 'ID']);

interface Affixes {
  prefix?: string;
  suffix?: string;
  mapping?: Record<string, string>;
}

const rename = (name: string, a: Affixes | undefined): string =>
  a?.mapping?.[name] ?? `${a?.prefix ?? ''}${name}${a?.suffix ?? ''}`;

type Node = Record<string, unknown>;

/** Renames every type reference (`name` of a type or of an `ofType` chain) in place. */
function renameRef(ref: unknown, types: Map<string, string>): void {
  let r = ref as Node | null | undefined;
  while (r && typeof r === 'object') {
    if (typeof r['name'] === 'string' && r['kind'] !== undefined) r['name'] = types.get(r['name']) ?? r['name'];
    r = r['ofType'] as Node | null | undefined;
  }
}

export function customizedSchema(name: string, data: IntrospectionQuery, customization: JsonObject | undefined): RemoteIntrospection {
  const raw = JSON.parse(JSON.stringify(data)) as { __schema: Node };
  const s = raw.__schema;
  const typeAffixes = customization?.['type_names'] as Affixes | undefined;
  const fieldAffixes = new Map<string, Affixes>();
  for (const f of (customization?.['field_names'] as (Affixes & { parent_type: string })[] | undefined) ?? []) fieldAffixes.set(f.parent_type, f);
  const types = s['types'] as Node[];
  const typeForward = new Map<string, string>();
  const typeBack = new Map<string, string>();
  for (const t of types) {
    const n = t['name'] as string;
    const to = FIXED.has(n) || n.startsWith('__') || !typeAffixes ? n : rename(n, typeAffixes);
    typeForward.set(n, to);
    typeBack.set(to, n);
  }
  const fieldBack = new Map<string, string>();
  for (const t of types) {
    const original = t['name'] as string;
    const fa = fieldAffixes.get(original);
    for (const f of (t['fields'] as Node[] | null) ?? []) {
      if (fa) {
        const from = f['name'] as string;
        const to = rename(from, fa);
        f['name'] = to;
        if (to !== from) fieldBack.set(`${typeForward.get(original) ?? original}.${to}`, from);
      }
      renameRef(f['type'], typeForward);
      for (const a of (f['args'] as Node[] | null) ?? []) renameRef(a['type'], typeForward);
    }
    for (const f of (t['inputFields'] as Node[] | null) ?? []) renameRef(f['type'], typeForward);
    for (const i of (t['interfaces'] as Node[] | null) ?? []) renameRef(i, typeForward);
    for (const p of (t['possibleTypes'] as Node[] | null) ?? []) renameRef(p, typeForward);
    t['name'] = typeForward.get(original) ?? original;
  }
  for (const root of ['queryType', 'mutationType', 'subscriptionType']) {
    const r = s[root] as Node | null | undefined;
    if (r && typeof r['name'] === 'string') r['name'] = typeForward.get(r['name']) ?? r['name'];
  }
  for (const d of (s['directives'] as Node[] | undefined) ?? []) for (const a of (d['args'] as Node[] | null) ?? []) renameRef(a['type'], typeForward);
  const schema = buildClientSchema(raw as unknown as IntrospectionQuery, { assumeValid: false });
  const ns = customization?.['root_fields_namespace'];
  return { name, schema, typeBack, typeForward, fieldBack, ...(typeof ns === 'string' ? { namespace: ns } : {}) };
}

export const isIntrospection = (v: Json | undefined): v is JsonObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && typeof v['__schema'] === 'object' && v['__schema'] !== null;
