import { parse, validate, type GraphQLSchema } from 'graphql';
import type { Metadata } from '../../../metadata/types.js';
import { normalQuery } from '../../../metadata/kinds/query-collections.js';
import type { SchemaCache } from '../../schema-cache.js';
import { validationFailed } from '../errors.js';
import { ENGINE_RULES } from './validate.js';
import { buildRoleSchema } from '../schema/index.js';

/**
 * The allow list (issue 20): with it enabled, a non-admin request must send a document of an allow-listed query
 * collection, compared after normalisation (graphql-js's print of the parsed document: whitespace, commas and
 * comments do not count).
 */

/** Per metadata (immutable): the normal forms of the allow-listed documents, and the answers already given. */
const allowed = new WeakMap<Metadata, { normal: Set<string>; seen: Map<string, boolean>; chars: number }>();
/** Answers remembered per metadata; beyond this, texts are normalised again (bounds memory under hostile input). */
const MAX_SEEN = 1000;
/** Characters of the remembered texts at most (issue 28: one text may be 50 MB; it is shared with the plan cache). */
const MAX_SEEN_CHARS = 16 * 1024 * 1024;

export function checkAllowlist(md: Metadata, text: string): void {
  let a = allowed.get(md);
  if (!a) {
    const normal = new Set<string>();
    for (const name of md.allowlist) {
      for (const q of md.query_collections.get(name)?.queries ?? []) {
        const n = normalQuery(q.query);
        if (n !== null) normal.add(n);
      }
    }
    a = { normal, seen: new Map(), chars: 0 };
    allowed.set(md, a);
  }
  let ok = a.seen.get(text);
  if (ok === undefined) {
    const n = normalQuery(text);
    ok = n !== null && a.normal.has(n);
    if (a.seen.size < MAX_SEEN && a.chars + text.length <= MAX_SEEN_CHARS) {
      a.seen.set(text, ok);
      a.chars += text.length;
    }
  }
  if (!ok) throw validationFailed('$', 'query is not allowed');
}

/** Why a document is not a valid operation of the admin schema, or null (collection queries, REST endpoints). */
export function adminSchemaProblem(cache: SchemaCache, text: string, schema: GraphQLSchema = buildRoleSchema(cache, 'admin')): string | null {
  let doc;
  try {
    doc = parse(text);
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
  const errors = validate(schema, doc, ENGINE_RULES);
  return errors[0]?.message ?? null;
}
