import { isObject, type Json, type JsonObject } from '../../metadata/json.js';

/**
 * The incumbent's names (issue 19 item 3, issue 29): session variables `X-Hasura-…` (in any case) in permission filters,
 * checks and presets mean what `X-Engine-…` means, so they are renamed only on request (`--rename-session-variables`);
 * the config upgrade renames `HASURA_GRAPHQL_*` environment names.
 */

const SESSION = /^x-hasura-/i;
const ENV = /\bHASURA_GRAPHQL_([A-Z0-9_]+)/g;

/** `X-Hasura-User-Id` → `X-Engine-User-Id`, keeping the writer's case style of the prefix. */
export function engineSessionName(name: string): string {
  const prefix = name.slice(0, 'x-hasura-'.length);
  const rest = name.slice(prefix.length);
  const engine = prefix === prefix.toLowerCase() ? 'x-engine-' : prefix === prefix.toUpperCase() ? 'X-ENGINE-' : 'X-Engine-';
  return engine + rest;
}

const PERMISSION_LISTS = ['insert_permissions', 'select_permissions', 'update_permissions', 'delete_permissions'] as const;
/** The parts of a permission where session variables are read: bool expressions and presets. */
const SESSION_KEYS = ['filter', 'check', 'set'] as const;

type Path = (string | number)[];

/** Calls `found` with each incumbent session name below `v` (arrays and mappings) and its path; the path is copied on a hit only. */
function visit(v: unknown, path: Path, found: (name: string, path: Path) => void): void {
  if (typeof v === 'string') {
    if (SESSION.test(v)) found(v, [...path]);
  } else if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      path.push(i);
      visit(v[i], path, found);
      path.pop();
    }
  } else if (isObject(v)) {
    for (const k of Object.keys(v)) {
      path.push(k);
      visit(v[k], path, found);
      path.pop();
    }
  }
}

/** Each incumbent session variable of a tables list (a tables.yaml value or a document's `tables`), with its path. */
function sessionNames(tables: unknown): [string, Path][] {
  const out: [string, Path][] = [];
  if (!Array.isArray(tables)) return out;
  const found = (name: string, path: Path) => void out.push([name, path]);
  for (let t = 0; t < tables.length; t++) {
    const entry: unknown = tables[t];
    if (!isObject(entry)) continue;
    for (const list of PERMISSION_LISTS) {
      const perms = entry[list];
      if (!Array.isArray(perms)) continue;
      for (let p = 0; p < perms.length; p++) {
        const perm = perms[p];
        const body = isObject(perm) ? perm['permission'] : undefined;
        if (!isObject(body)) continue;
        for (const key of SESSION_KEYS) visit(body[key], [t, list, p, 'permission', key], found);
      }
    }
  }
  return out;
}

export interface SessionRename {
  table: string;
  path: string;
  from: string;
  to: string;
}

/** The document with every incumbent session variable of its permissions renamed, and the list of renames. */
export function renameSessionNames(doc: JsonObject): { doc: JsonObject; renamed: SessionRename[] } {
  const renamed: SessionRename[] = [];
  const copy = structuredClone(doc);
  const tables = copy['tables'];
  for (const [name, path] of sessionNames(tables)) {
    let parent = tables as unknown as Record<string | number, Json>;
    for (const k of path.slice(0, -1)) parent = parent[k] as unknown as Record<string | number, Json>;
    const to = engineSessionName(name);
    parent[path[path.length - 1] as string | number] = to;
    const table = (tables as JsonObject[])[path[0] as number]?.['table'];
    const qn = isObject(table) ? `${String(table['schema'])}.${String(table['name'])}` : String(table);
    renamed.push({ table: qn, path: path.slice(1).map((k) => (typeof k === 'number' ? `[${k}]` : `.${k}`)).join('').slice(1), from: name, to });
  }
  return { doc: copy, renamed };
}

export interface EnvRename {
  file: string;
  line: number;
  from: string;
  to: string;
}

/** `HASURA_GRAPHQL_X` → `ENGINE_GRAPHQL_X` (cli.md §2: our variables are `ENGINE_GRAPHQL_` + the key) in a text. */
export function renameEnvNames(text: string, file: string): { text: string; renamed: EnvRename[] } {
  const renamed: EnvRename[] = [];
  const lines = text.split('\n');
  const out = lines.map((l, i) => l.replace(ENV, (from: string, rest: string) => {
    const to = `ENGINE_GRAPHQL_${rest}`;
    renamed.push({ file, line: i + 1, from, to });
    return to;
  }));
  return { text: out.join('\n'), renamed };
}
