// Fuzzed request bodies for /v1/query (issue 11): every operation of engine-api.md §4.0 with plausible arguments,
// then mutated — random JSON types, NUL and lone surrogates, Object.prototype member names, huge numbers, deep
// nesting, invalid UTF-8 — so that the engine's answer to each must be a 4xx or a 200, never a 500.
// Deterministic: the same seed gives the same bodies. Used by bench/probe-fuzz.js and test/integration/fuzz.test.ts.

/** The tables the templates refer to; `SETUP_SQL` creates them. */
export const SETUP_SQL = `
CREATE TABLE IF NOT EXISTS author (id serial PRIMARY KEY, name text NOT NULL, "__proto__" int, info jsonb);
CREATE TABLE IF NOT EXISTS article (id serial PRIMARY KEY, title text, author_id int REFERENCES author(id), published boolean);
CREATE OR REPLACE FUNCTION author_full(a author) RETURNS text LANGUAGE sql STABLE AS $$ SELECT a.name $$;
CREATE OR REPLACE FUNCTION search_authors(q text) RETURNS SETOF author LANGUAGE sql STABLE AS $$ SELECT * FROM author WHERE name LIKE q $$;`;

/** Requests that bring the engine back to the probe's starting point (tables tracked, nothing else). */
export const SETUP_BODIES = [
  { type: 'run_sql', args: { sql: SETUP_SQL } },
  { type: 'replace_metadata', args: { version: 2, tables: [{ table: { schema: 'public', name: 'author' } }, { table: { schema: 'public', name: 'article' } }] } },
];

export const PROTO_NAMES = ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf',
  'propertyIsEnumerable', 'toLocaleString', '__defineGetter__', '__lookupSetter__', 'prototype'];

const HOOK = 'http://127.0.0.1:9/hook';
const perm = (kind, permission) => ({ type: `create_${kind}_permission`, args: { table: 'author', role: 'user', permission } });

/** One plausible request per operation of §4.0 (and a few variants). */
export const TEMPLATES = [
  { type: 'run_sql', args: { sql: 'SELECT 1 AS one', read_only: true } },
  { type: 'run_sql', args: { sql: "SELECT id, name FROM author WHERE name = 'x'", cascade: false, check_metadata_consistency: true } },
  { type: 'track_table', args: { table: 'article' } },
  { type: 'track_table', args: { table: { schema: 'public', name: 'author' }, configuration: { comment: 'c' } } },
  { type: 'untrack_table', args: { table: 'article', cascade: true } },
  { type: 'track_function', args: { function: 'search_authors' } },
  { type: 'untrack_function', args: { function: { schema: 'public', name: 'search_authors' } } },
  { type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
  { type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } },
  { type: 'create_object_relationship', args: { table: 'article', name: 'writer', using: { manual_configuration: { remote_table: 'author', column_mapping: { author_id: 'id' } } }, comment: 'm' } },
  { type: 'drop_relationship', args: { table: 'article', relationship: 'author', cascade: false } },
  perm('select', { columns: '*', filter: { id: { _eq: 'X-Engine-User-Id' } }, limit: 10, allow_aggregations: true }),
  perm('select', { columns: ['id', 'name', '__proto__'], filter: { ['__proto__']: { _gt: 1 }, _or: [{ name: { _like: 'a%' } }, { _not: { id: { _in: [1, 2] } } }] } }),
  perm('insert', { check: { name: { _ne: '' } }, set: { id: 'x-engine-user-id' }, columns: '*', backend_only: false }),
  perm('update', { columns: ['name'], filter: { _exists: { _table: 'article', _where: { published: { _eq: true } } } }, check: {} }),
  perm('delete', { filter: { info: { _contains: { a: 1 } } } }),
  { type: 'drop_select_permission', args: { table: 'author', role: 'user' } },
  { type: 'drop_insert_permission', args: { table: 'author', role: 'user' } },
  { type: 'set_permission_comment', args: { table: 'author', role: 'user', type: 'select', comment: 'hello' } },
  { type: 'add_computed_field', args: { table: 'author', name: 'full', definition: { function: 'author_full', table_argument: 'a' }, comment: null } },
  { type: 'drop_computed_field', args: { table: 'author', name: 'full', cascade: true } },
  { type: 'set_custom_types', args: { scalars: [{ name: 'Date' }], enums: [{ name: 'Color', values: [{ value: 'RED' }] }],
    input_objects: [{ name: 'In', fields: [{ name: 'a', type: 'String!' }] }], objects: [{ name: 'Out', fields: [{ name: 'id', type: 'Int!' }] }] } },
  { type: 'create_action', args: { name: 'doIt', definition: { handler: HOOK, output_type: 'Out', arguments: [{ name: 'a', type: 'In' }], kind: 'synchronous',
    headers: [{ name: 'x-h', value: 'v' }], timeout: 5 }, comment: 'a' } },
  { type: 'update_action', args: { name: 'doIt', definition: { handler: '{{BASE}}/x', output_type: '[Out!]!', forward_client_headers: true } } },
  { type: 'drop_action', args: { name: 'doIt', clear_data: true } },
  { type: 'create_action_permission', args: { action: 'doIt', role: 'user', comment: 'p' } },
  { type: 'drop_action_permission', args: { name: 'doIt', role: 'user' } },
  { type: 'create_event_trigger', args: { name: 'on-author', table: 'author', insert: { columns: '*' }, update: { columns: ['name'], payload: ['id'] },
    delete: { columns: '*' }, enable_manual: true, retry_conf: { num_retries: 0, interval_sec: 10, timeout_sec: 1 }, webhook: HOOK, headers: [{ name: 'k', value_from_env: 'K' }], replace: true } },
  { type: 'delete_event_trigger', args: { name: 'on-author' } },
  { type: 'invoke_event_trigger', args: { name: 'on-author', payload: { a: [1, 'b', null] } } },
  { type: 'redeliver_event', args: { event_id: '00000000-0000-4000-8000-000000000000' } },
  { type: 'export_metadata', args: {} },
  { type: 'replace_metadata', args: { metadata: { version: 2, tables: [{ table: { schema: 'public', name: 'author' }, select_permissions: [{ role: 'r', permission: { columns: '*', filter: {} } }] }] }, allow_inconsistent_metadata: true } },
  { type: 'replace_metadata', args: { version: 2, tables: [{ table: 'author' }, { table: 'nope' }] } },
  { type: 'clear_metadata', args: {} },
  { type: 'reload_metadata', args: {} },
  { type: 'get_inconsistent_metadata', args: {} },
  { type: 'drop_inconsistent_metadata', args: {} },
  { type: 'bulk', args: [{ type: 'export_metadata', args: {} }, { type: 'get_inconsistent_metadata', args: {} }] },
];

/** mulberry32: small, fast, seedable. */
export function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n) => Math.floor(next() * n);
  return { next, int, pick: (xs) => xs[int(xs.length)], chance: (p) => next() < p };
}

const NASTY_STRINGS = ['', ' ', '\u0000', 'a\u0000b', '\ud800', 'x\udfff', '\udc00\ud800', '\ud83d\ude00', '*', '$', '.', "'", '"', '\\',
  'x-engine-user-id', 'X-Engine-Role', 'admin', 'public', 'author', 'article', 'id', 'name', 'nope', 'pg_catalog', 'engine_catalog',
  '{{ENGINE_GRAPHQL_ADMIN_SECRET}}', '{{X}}', 'http://127.0.0.1:9/', 'ftp://x', '00000000-0000-0000-0000-000000000000', 'String!', '[[Int!]!]',
  'a'.repeat(70), 'é', '\n', 'DROP TABLE nope', ...PROTO_NAMES];
const NASTY_NUMBERS = [0, -0, 1, -1, 0.5, 1e21, -1e21, 2 ** 53, 2 ** 53 + 2, 2 ** 31, -(2 ** 31) - 1, 1.7976931348623157e308, 5e-324, 1e-7];

function randomValue(r, depth) {
  switch (r.int(depth > 3 ? 5 : 7)) {
    case 0: return null;
    case 1: return r.chance(0.5);
    case 2: return r.pick(NASTY_NUMBERS);
    case 3:
    case 4: return r.pick(NASTY_STRINGS);
    case 5: return Array.from({ length: r.int(4) }, () => randomValue(r, depth + 1));
    default: {
      const o = {};
      for (let i = r.int(4); i > 0; i--) Object.defineProperty(o, r.pick(NASTY_STRINGS), { value: randomValue(r, depth + 1), enumerable: true, writable: true, configurable: true });
      return o;
    }
  }
}

/** Every (container, key) pair of a JSON value, for picking a spot to mutate. */
function spots(v, out = []) {
  if (Array.isArray(v)) v.forEach((x, i) => { out.push([v, i]); spots(x, out); });
  else if (v && typeof v === 'object') for (const k of Object.keys(v)) { out.push([v, k]); spots(v[k], out); }
  return out;
}

const defineOwn = (o, k, v) => Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });

function mutate(r, body) {
  const all = spots(body);
  if (all.length === 0) return body;
  const [c, k] = r.pick(all);
  switch (r.int(6)) {
    case 0: // replace a value
      c[k] = randomValue(r, 0);
      break;
    case 1: // delete a key / element
      if (Array.isArray(c)) c.splice(k, 1);
      else delete c[k];
      break;
    case 2: // add a key (prototype names included)
      if (!Array.isArray(c)) defineOwn(c, r.pick(NASTY_STRINGS), randomValue(r, 1));
      else c.push(randomValue(r, 1));
      break;
    case 3: // a string with a NUL or a surrogate inside
      c[k] = `${typeof c[k] === 'string' ? c[k] : 'v'}${r.pick(['\u0000', '\ud800', '\udfff', '\u0000\ud800'])}`;
      break;
    case 4: // rename a key
      if (!Array.isArray(c)) {
        const v = c[k];
        delete c[k];
        defineOwn(c, r.pick(NASTY_STRINGS), v);
      }
      break;
    default: // wrap in arrays / objects
      c[k] = r.chance(0.5) ? [c[k]] : { _and: [c[k]] };
  }
  return body;
}

const clone = (v) => JSON.parse(JSON.stringify(v));

function nest(depth, open, close) {
  return open.repeat(depth) + close.repeat(depth);
}

/** One fuzzed body: a string (JSON or not) or a Buffer (invalid UTF-8). */
export function fuzzBody(seed) {
  const r = rng(seed);
  const kind = r.int(100);
  if (kind < 4) { // deep nesting, around the 512 limit
    const d = r.pick([100, 505, 511, 512, 513, 2000, 100000]);
    if (r.chance(0.5)) return `{"type":"bulk","args":${nest(d, '[', ']')}}`;
    const filter = '{"_not":'.repeat(d) + '{"id":{"_eq":1}}' + '}'.repeat(d);
    return `{"type":"create_select_permission","args":{"table":"author","role":"deep","permission":{"columns":"*","filter":${filter}}}}`;
  }
  if (kind < 8) { // invalid UTF-8 and control bytes inside strings
    const t = JSON.stringify(clone(r.pick(TEMPLATES)));
    const at = t.indexOf('"', t.indexOf('"args"') + 7) + 1 || 1;
    const bad = Buffer.from(r.pick([[0xff], [0xc3], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0x00], [0xe2, 0x82]]));
    return Buffer.concat([Buffer.from(t.slice(0, at)), bad, Buffer.from(t.slice(at))]);
  }
  if (kind < 12) { // huge numbers and numeric edge cases as raw text
    const n = r.pick(['1e400', '-1e400', '1e-400', '123456789012345678901234567890', '-0', '0.0000000000000000000001', '1E+308']);
    const t = JSON.stringify(clone(r.pick(TEMPLATES)));
    const spot = r.pick(['"limit":10', '"timeout":5', '"num_retries":0', '"version":2', '"interval_sec":10']);
    return t.includes(spot) ? t.replace(spot, spot.replace(/\d+$/, n)) : `{"type":"export_metadata","args":{},"version":${n}}`;
  }
  if (kind < 16) { // truncated or garbled JSON
    const t = JSON.stringify(clone(r.pick(TEMPLATES)));
    return r.chance(0.5) ? t.slice(0, r.int(t.length)) : t.replace(/[,:]/, r.pick(['', ';', '::']));
  }
  let body = clone(r.pick(TEMPLATES));
  if (kind < 26) body.type = r.pick([...PROTO_NAMES, ...NASTY_STRINGS, 'Run_Sql', 'bulk ']);
  const rounds = r.int(4);
  for (let i = 0; i < rounds; i++) body = mutate(r, body);
  if (r.chance(0.1)) body = { type: 'bulk', args: [body, ...(r.chance(0.5) ? [clone(r.pick(TEMPLATES))] : [])] };
  if (r.chance(0.03)) body = randomValue(r, 0);
  return JSON.stringify(body);
}

/** `count` bodies from `seed` on. */
export function fuzzBodies(seed, count) {
  return Array.from({ length: count }, (_, i) => fuzzBody(seed + i));
}
