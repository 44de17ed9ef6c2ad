import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.js';
import type { Json } from '../../src/metadata/json.js';
import type { QualifiedName } from '../../src/metadata/types.js';
import { arrayLiteral, compileBoolExp, quoteIdent } from '../../src/server/bool-exp/compile.js';
import { bindParams } from '../../src/server/graphql/compile/index.js';
import type { BoolExpSchema, BoolExpTable } from '../../src/server/bool-exp/schema.js';

// BoolExp compilation (graphql-api.md §4.2, §4.4; engine-api.md §4.4): values only ever travel as `$n::type`
// parameters, identifiers are always double-quoted, session variables are bound per request.

const qn = (name: string, schema = 'public'): QualifiedName => ({ schema, name });
function table(name: QualifiedName, columns: Record<string, string>, relationships: Record<string, [QualifiedName, [string, string][]]> = {}): BoolExpTable {
  return {
    name,
    columns: new Map(Object.entries(columns).map(([c, typeName]) => [c, { typeName }])),
    relationships: new Map(Object.entries(relationships).map(([r, [remote, mapping]]) => [r, { remote, mapping }])),
  };
}

const article = table(qn('article'), {
  id: 'integer', title: 'text', category: 'text', published: 'boolean', author_id: 'integer', tags: 'jsonb', created_at: 'timestamp with time zone',
}, { author: [qn('author'), [['author_id', 'id']]] });
const author = table(qn('author'), { id: 'integer', name: 'text' });
const invoice = table(qn('invoice', 'billing'), { id: 'integer', amount: 'numeric' });
// Identifiers an attacker might choose for a table, its columns and a relationship.
const H_COL = 'x" OR 1=1 --';
const weird = table(qn('we"ird; DROP TABLE x', 'sch"ema'), { [H_COL]: 'integer', 'col"umn': 'text', 'é✓𝄞': 'text', 'a;b': 'integer', $1: 'integer' },
  { 'rel"x': [qn('ta/*b*/le'), [['a;b', 'k"ey']]] });
const weirdRemote = table(qn('ta/*b*/le'), { 'k"ey': 'integer', "it's": 'text' });
const tables = [article, author, invoice, weird, weirdRemote];
const schema: BoolExpSchema = { table: (n) => tables.find((t) => t.name.schema === n.schema && t.name.name === n.name) };

const compile = (exp: Json, on: BoolExpTable = article, offset?: number) => compileBoolExp(exp, on, 't', schema, offset);
const values = (exp: Json, on: BoolExpTable = article) => compile(exp, on).params.map((p) => (p.kind === 'value' ? p.text : p.kind === 'session' ? `<session ${p.name}>` : p.kind === 'session-json' ? '<session>' : `<array ${JSON.stringify(p.items)}>`));

/** The SQL outside double-quoted identifiers: only keywords, operators, casts, `$n` and punctuation. */
const residue = (sql: string): string => sql.replace(/"(?:[^"]|"")*"/g, '');
const SAFE_RESIDUE = /^[A-Za-z0-9_ ()$:=<>!@?|&[\],.]*$/;
function expectSafe(sql: string) {
  const r = residue(sql);
  expect(r, sql).toMatch(SAFE_RESIDUE);
  expect(r).not.toMatch(/'|;|--|\/\*|\\/);
}
/** `$n` placeholders in order of appearance. */
const placeholders = (sql: string): number[] => [...residue(sql).matchAll(/\$(\d+)::/g)].map((m) => Number(m[1]));

describe('SQL shape', () => {
  it('constants: {} and _and: [] are true, _or: [] is false', () => {
    expect(compile({})).toEqual({ sql: 'true', params: [] });
    expect(compile({ _and: [] })).toEqual({ sql: 'true', params: [] });
    expect(compile({ _or: [] })).toEqual({ sql: 'false', params: [] });
  });
  it('values are parameters cast to the column type; identifiers are quoted and qualified', () => {
    const c = compile({ id: 1, title: { _eq: 'a' }, published: { _neq: true }, created_at: { _gt: '2024-01-01' } });
    expect(c.sql).toContain('"t"."id"');
    expect(c.sql).toContain('"t"."id" IS NOT DISTINCT FROM $2::integer');
    expect(c.sql).toContain('"t"."published" IS DISTINCT FROM $3::boolean');
    expect(c.sql).toContain('"t"."title" IS NOT DISTINCT FROM $4::text');
    expect(c.sql).toContain('"t"."created_at" > $1::timestamp with time zone');
    expect(values({ id: 1, title: { _eq: 'a' }, published: { _neq: true }, created_at: { _gt: '2024-01-01' } })).toEqual(['2024-01-01', '1', 'true', 'a']);
    expectSafe(c.sql);
  });
  it('_eq/_neq null and shorthand null are IS [NOT] NULL without parameters; _is_null likewise', () => {
    for (const [exp, frag] of [
      [{ id: null }, '"t"."id" IS NULL'], [{ id: { _eq: null } }, '"t"."id" IS NULL'], [{ id: { $eq: null } }, '"t"."id" IS NULL'],
      [{ id: { _neq: null } }, '"t"."id" IS NOT NULL'], [{ id: { _ne: null } }, '"t"."id" IS NOT NULL'],
      [{ id: { _is_null: true } }, '"t"."id" IS NULL'], [{ id: { _is_null: false } }, '"t"."id" IS NOT NULL'],
    ] as [Json, string][]) {
      const c = compile(exp);
      expect(c.sql, JSON.stringify(exp)).toBe(frag);
      expect(c.params).toEqual([]);
    }
  });
  it('_in/_nin bind one array parameter cast to type[]', () => {
    const c = compile({ id: { _in: [1, 2, null] }, title: { _nin: [] } });
    expect(c.sql).toContain('$1::integer[]');
    expect(c.sql).toContain('$2::text[]');
    expect(values({ id: { _in: [1, 2, null] }, title: { _nin: [] } })).toEqual([arrayLiteral(['1', '2', null]), '{}']);
  });
  it('column comparisons reference the same alias without parameters', () => {
    const c = compile({ id: { _ceq: 'author_id', _cgt: 'author_id' } });
    expect(c.sql).toContain('"t"."id" = "t"."author_id"');
    expect(c.sql).toContain('"t"."id" > "t"."author_id"');
    expect(c.params).toEqual([]);
  });
  it('jsonb operators', () => {
    const c = compile({ tags: { _contains: { lang: 'de' }, _has_key: 'a', _has_keys_all: ['b'], _has_keys_any: ['c', 'd'] } });
    expect(c.sql).toMatch(/"t"\."tags" @> \$1::jsonb/);
    expect(c.sql).toMatch(/"t"\."tags" \? \$2::text/);
    expect(c.sql).toMatch(/"t"\."tags" \?& \$3::text\[\]/);
    expect(c.sql).toMatch(/"t"\."tags" \?\| \$4::text\[\]/);
    expect(values({ tags: { _contains: { lang: 'de' }, _has_key: 'a', _has_keys_all: ['b'], _has_keys_any: ['c', 'd'] } }))
      .toEqual(['{"lang":"de"}', 'a', arrayLiteral(['b']), arrayLiteral(['c', 'd'])]);
    expect(values({ tags: 'a' })).toEqual(['"a"']); // a jsonb value is passed as JSON text
  });
  it('a relationship is EXISTS over the related rows with the join condition', () => {
    const c = compile({ author: { name: 'Ann' } });
    const m = /^EXISTS \(SELECT 1 FROM "public"\."author" AS ("[^"]+") WHERE (.*)\)$/.exec(c.sql);
    expect(m, c.sql).not.toBeNull();
    const a = m?.[1] ?? '';
    expect(m?.[2]).toContain(`${a}."id" = "t"."author_id"`);
    expect(m?.[2]).toContain(`${a}."name" IS NOT DISTINCT FROM $1::text`);
  });
  it('_exists is an uncorrelated EXISTS on the other table', () => {
    const c = compile({ _exists: { _table: { schema: 'billing', name: 'invoice' }, _where: { amount: { _gt: 5 } } } });
    expect(c.sql).toMatch(/^EXISTS \(SELECT 1 FROM "billing"\."invoice" AS "[^"]+" WHERE "[^"]+"\."amount" > \$1::numeric\)$/);
    expect(c.sql).not.toContain('"t"');
  });
  it('$ forms compile exactly like _ forms', () => {
    const pairs: [Json, Json][] = [
      [{ $or: [{ id: { $eq: 1 } }, { $not: { title: { $like: 'a%' } } }] }, { _or: [{ id: { _eq: 1 } }, { _not: { title: { _like: 'a%' } } }] }],
      [{ $and: [{ $exists: { _table: 'author', _where: { id: { $in: [1] } } } }] }, { _and: [{ _exists: { _table: 'author', _where: { id: { _in: [1] } } } }] }],
    ];
    for (const [d, u] of pairs) expect(compile(d)).toEqual(compile(u));
  });
});

const HOSTILE = ["'; DROP TABLE x; --", '$1', '"', 'é✓𝄞', '/* c */', '\\', '--', "a'b\"c;d\\e", '$$ $1::text $$', '\n\t\r', '{1,2}', 'NULL',
  ')) OR true --', '\'\'', 'x\u0000y', '\u2028'];
const HARMLESS = 'x';
/** Expressions with one string slot, and the text its first parameter must carry. */
const SLOTS: [string, (v: string) => Json, (v: string) => string][] = [
  ['shorthand', (v) => ({ title: v }), (v) => v],
  ['_eq', (v) => ({ title: { _eq: v } }), (v) => v],
  ['_neq', (v) => ({ category: { $neq: v } }), (v) => v],
  ['_gt', (v) => ({ title: { _gt: v } }), (v) => v],
  ['_like', (v) => ({ title: { _like: v } }), (v) => v],
  ['_nilike', (v) => ({ title: { _nilike: v } }), (v) => v],
  ['_similar', (v) => ({ title: { _similar: v } }), (v) => v],
  ['_in', (v) => ({ title: { _in: [v, 'y', null] } }), (v) => arrayLiteral([v, 'y', null])],
  ['_nin', (v) => ({ title: { _nin: [v] } }), (v) => arrayLiteral([v])],
  ['other type', (v) => ({ created_at: { _lte: v } }), (v) => v],
  ['_has_key', (v) => ({ tags: { _has_key: v } }), (v) => v],
  ['_has_keys_any', (v) => ({ tags: { _has_keys_any: [v] } }), (v) => arrayLiteral([v])],
  ['_contains key and value', (v) => ({ tags: { _contains: { [v]: [v] } } }), (v) => JSON.stringify({ [v]: [v] })],
  ['jsonb shorthand', (v) => ({ tags: v }), (v) => JSON.stringify(v)],
  ['relationship', (v) => ({ author: { name: v } }), (v) => v],
  ['_exists', (v) => ({ _exists: { _table: 'author', _where: { name: { _ilike: v } } } }), (v) => v],
  ['nested logic', (v): Json => ({ _or: [{ _not: { title: v } }, { _and: [] }] }), (v) => v],
];

describe('hostile values never reach the SQL text', () => {
  for (const [slot, exp, param] of SLOTS) {
    it(`${slot}: same SQL as for a harmless value, the value only in the parameters`, () => {
      const base = compile(exp(HARMLESS));
      for (const h of HOSTILE) {
        const c = compile(exp(h));
        expect(c.sql, JSON.stringify(h)).toBe(base.sql); // shape invariance
        expect(c.params.length).toBe(base.params.length);
        expect(c.params[0]).toEqual({ kind: 'value', text: param(h) });
        expectSafe(c.sql);
        if (h.length > 2) expect(c.sql).not.toContain(h);
      }
    });
  }
  it('holds for arbitrary strings (property)', () => {
    const str = fc.string({ unit: 'binary', maxLength: 40 }).filter((s) => !s.toLowerCase().startsWith('x-engine-'));
    fc.assert(fc.property(fc.constantFrom(...SLOTS), str, ([, exp, param], s) => {
      const c = compile(exp(s));
      expect(c.sql).toBe(compile(exp(HARMLESS)).sql);
      expect(c.params[0]).toEqual({ kind: 'value', text: param(s) });
    }), { seed: 4242, numRuns: 300 });
  });
  it('numbers and booleans are parameters too', () => {
    expect(compile({ id: 1 }).sql).toBe(compile({ id: -987654321 }).sql);
    expect(compile({ published: true }).sql).toBe(compile({ published: 'f' }).sql);
    expect(values({ id: { _gt: -0.5e3 } })).toEqual(['-500']);
  });
});

describe('identifiers are double-quoted with " doubled', () => {
  it('quoteIdent', () => {
    expect(quoteIdent('a')).toBe('"a"');
    expect(quoteIdent('a"b')).toBe('"a""b"');
    expect(quoteIdent('"')).toBe('""""');
    expect(quoteIdent('')).toBe('""');
    expect(quoteIdent('é✓𝄞; --')).toBe('"é✓𝄞; --"');
  });
  it('hostile table, schema, column, relationship and alias names', () => {
    const exp = { [H_COL]: 1, 'col"umn': { _like: 'a' }, 'é✓𝄞': { _ceq: 'col"umn' }, $1: { _in: [1] }, 'rel"x': { "it's": 'v' } };
    const c = compileBoolExp(exp, weird, 't"; --', schema);
    expect(c.sql).toContain(`"t""; --"."x"" OR 1=1 --" IS NOT DISTINCT FROM $`);
    expect(c.sql).toContain('"t""; --"."col""umn" LIKE $');
    expect(c.sql).toContain('"t""; --"."é✓𝄞" = "t""; --"."col""umn"');
    expect(c.sql).toContain('"t""; --"."$1" = ANY(');
    expect(c.sql).toContain('FROM "public"."ta/*b*/le" AS ');
    expect(c.sql).toMatch(/"[^"]+"\."k""ey" = "t""; --"\."a;b"/);
    expect(c.sql).toMatch(/"[^"]+"\."it's" IS NOT DISTINCT FROM \$\d+::text/);
    expectSafe(c.sql);
    expect(placeholders(c.sql).sort()).toEqual([1, 2, 3, 4]);
    const e = compileBoolExp({ _exists: { _table: { schema: 'sch"ema', name: 'we"ird; DROP TABLE x' }, _where: {} } }, article, 't', schema);
    expect(e.sql).toContain('FROM "sch""ema"."we""ird; DROP TABLE x" AS ');
    expectSafe(e.sql);
  });
  it('any column name (property)', () => {
    const name = fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }).filter((s) => !s.startsWith('_') && !s.startsWith('$'));
    fc.assert(fc.property(name, fc.constantFrom<Json>({ _gt: 1 }, { _ceq: 'c' }, { _in: [1] }, 5), (n, ops) => {
      const t = table(qn('tab'), { [n]: 'integer', c: 'integer' });
      const sql = compileBoolExp({ [n]: ops }, t, 't', schema).sql;
      const ref = compileBoolExp({ c: ops }, t, 't', schema).sql;
      expect(sql).toBe(ref.replace('"t"."c" ', () => `"t".${quoteIdent(n)} `));
      expectSafe(sql);
    }), { seed: 7, numRuns: 300 });
  });
});

describe('parameter numbering', () => {
  const exp = { id: 1, title: 'a', author: { name: 'b' }, _exists: { _table: 'author', _where: { id: { _in: [2] } } } };
  it('placeholders are $1..$n, each once, in the order of the params', () => {
    for (const offset of [0, 3, 10]) {
      const c = compile(exp, article, offset);
      expect(c.params).toHaveLength(4);
      expect([...placeholders(c.sql)].sort((x, y) => x - y)).toEqual([1, 2, 3, 4].map((i) => i + offset));
      const at = (re: RegExp) => Number(re.exec(c.sql)?.[1]) - offset - 1;
      expect(c.params[at(/"t"\."id" IS NOT DISTINCT FROM \$(\d+)::integer/)]).toEqual({ kind: 'value', text: '1' });
      expect(c.params[at(/"t"\."title" IS NOT DISTINCT FROM \$(\d+)::text/)]).toEqual({ kind: 'value', text: 'a' });
      expect(c.params[at(/"name" IS NOT DISTINCT FROM \$(\d+)::text/)]).toEqual({ kind: 'value', text: 'b' });
      expect(c.params[at(/= ANY\(\$(\d+)::integer\[\]\)/)]).toEqual({ kind: 'value', text: arrayLiteral(['2']) });
    }
  });
  it('the default offset is 0 and the offset does not change the params', () => {
    expect(compile(exp).sql).toBe(compile(exp, article, 0).sql);
    expect(compile(exp, article, 7).params).toEqual(compile(exp).params);
    expect(compile(exp, article, 7).sql).toBe(compile(exp).sql.replace(/\$(\d)/g, (_m, d: string) => `$${Number(d) + 7}`));
  });
});

describe('bindParams', () => {
  const bind = (exp: Json, sv: Record<string, string> = {}) => bindParams(compile(exp).params, sv);
  it('static values', () => {
    expect(bind({ id: { _in: [1, null] }, title: { _eq: 'a' }, published: 't' })).toEqual([arrayLiteral(['1', null]), 't', 'a']);
    expect(bind({})).toEqual([]);
  });
  it('session variables: referenced in any case, bound by lower-cased name', () => {
    for (const ref of ['X-Engine-User-Id', 'x-engine-user-id', 'X-ENGINE-USER-ID']) {
      const c = compile({ author_id: ref, title: { _like: 'x' } });
      expect(c.params[0]).toEqual({ kind: 'session', name: 'x-engine-user-id', array: false });
      expect(c.sql).toBe(compile({ author_id: 1, title: { _like: 'x' } }).sql);
      expect(bindParams(c.params, { 'x-engine-role': 'user', 'x-engine-user-id': '42' })).toEqual(['42', 'x']);
    }
    expect(bind({ tags: { _contains: 'X-Engine-Doc' } }, { 'x-engine-doc': '{"a":1}' })).toEqual(['{"a":1}']);
  });
  it('hostile session values are bound verbatim and do not change the SQL', () => {
    for (const h of HOSTILE) expect(bind({ title: 'x-engine-t' }, { 'x-engine-t': h })).toEqual([h]);
  });
  it('a missing session variable throws 400 not-found before any SQL', () => {
    let err: unknown;
    try {
      bind({ title: 'a', author_id: 'X-Engine-User-Id' }, { 'x-engine-role': 'user' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApiError);
    const a = err as ApiError;
    expect([a.status, a.code, a.path, a.message]).toEqual([400, 'not-found', '$', 'missing session variable: "x-engine-user-id"']);
    expect(() => bind({ id: { _in: 'x-engine-ids' } })).toThrow('missing session variable: "x-engine-ids"');
  });
  it('only referenced variables are required', () => {
    expect(bind({ id: 1 }, {})).toEqual(['1']);
    expect(bind({ id: 'x-engine-a' }, { 'x-engine-a': '1' })).toEqual(['1']);
  });
  it('_in/_nin with a session variable holding a JSON array or a PostgreSQL array literal', () => {
    const c = compile({ id: { _in: 'X-Engine-Ids' } });
    expect(c.sql).toContain('$1::integer[]');
    expect(c.params).toEqual([{ kind: 'session', name: 'x-engine-ids', array: true }]);
    const b = (v: string) => bindParams(c.params, { 'x-engine-ids': v })[0];
    expect(b('["1","2"]')).toBe(arrayLiteral(['1', '2']));
    expect(b('[1, 2, null]')).toBe(arrayLiteral(['1', '2', null]));
    expect(b(' ["a,b", "c\\"d{}", "\\\\"]')).toBe(arrayLiteral(['a,b', 'c"d{}', '\\']));
    expect(b('[]')).toBe('{}');
    expect(b('{1,2}')).toBe('{1,2}');
    expect(b('{}')).toBe('{}');
    expect(bind({ tags: { _has_keys_any: 'x-engine-k' } }, { 'x-engine-k': '["a","b"]' })).toEqual([arrayLiteral(['a', 'b'])]);
  });
  it('a reference inside an _in array is a session variable too (§4.4.3: wherever a Scalar is)', () => {
    const bound = bind({ id: { _in: ['X-Engine-User-Id', 5] } }, { 'x-engine-user-id': '7' });
    expect(JSON.stringify(bound)).not.toMatch(/x-engine/i);
    expect(JSON.stringify(bound)).toContain('7');
  });
});

/** A reader of PostgreSQL one-dimensional array literals, to check arrayLiteral round-trips. */
function parseArrayLiteral(s: string): (string | null)[] {
  expect(s.startsWith('{') && s.endsWith('}')).toBe(true);
  const body = s.slice(1, -1);
  const out: (string | null)[] = [];
  if (body === '') return out;
  let i = 0;
  for (;;) {
    if (body[i] === '"') {
      let v = '';
      for (i++; body[i] !== '"'; i++) v += body[i] === '\\' ? body[++i] : body[i];
      out.push(v);
      i++;
    } else {
      const end = body.indexOf(',', i) < 0 ? body.length : body.indexOf(',', i);
      const raw = body.slice(i, end);
      out.push(raw.toUpperCase() === 'NULL' ? null : raw);
      i = end;
    }
    if (i >= body.length) return out;
    expect(body[i]).toBe(',');
    i++;
  }
}

describe('arrayLiteral', () => {
  it('quotes every element; escapes quotes and backslashes; NULL stays unquoted', () => {
    expect(arrayLiteral([])).toBe('{}');
    expect(arrayLiteral(['a,b', '{c}', 'd"e', 'f\\g', null, 'NULL', '', ' x '])).toBe('{"a,b","{c}","d\\"e","f\\\\g",NULL,"NULL",""," x "}');
  });
  it('round-trips any list of strings and nulls (property)', () => {
    const el = fc.option(fc.string({ unit: fc.constantFrom('a', ',', '{', '}', '"', '\\', ' ', 'NULL', "'", 'é', '𝄞', '\n'), maxLength: 6 }));
    fc.assert(fc.property(fc.array(el, { maxLength: 6 }), (items) => {
      expect(parseArrayLiteral(arrayLiteral(items))).toEqual(items);
    }), { seed: 99, numRuns: 300 });
  });
});
