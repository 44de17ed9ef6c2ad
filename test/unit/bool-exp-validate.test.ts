import { describe, expect, it } from 'vitest';
import type { Json } from '../../src/metadata/json.js';
import type { QualifiedName } from '../../src/metadata/types.js';
import type { BoolExpRefs as Refs, BoolExpSchema, BoolExpTable } from '../../src/server/bool-exp/schema.js';
import { validateBoolExp } from '../../src/server/bool-exp/validate.js';

// BoolExp validation (engine-api.md §4.4): the reasons of §4.4.4, the value rules of §4.4.3, the `$` forms of
// §4.4.1, session-variable references, first-failure order, and the references a valid expression makes (§3.5).

const qn = (name: string, schema = 'public'): QualifiedName => ({ schema, name });

function table(name: QualifiedName, columns: Record<string, string>, relationships: Record<string, [QualifiedName, [string, string][]]> = {}): BoolExpTable {
  return {
    name,
    columns: new Map(Object.entries(columns).map(([c, typeName]) => [c, { typeName }])),
    relationships: new Map(Object.entries(relationships).map(([r, [remote, mapping]]) => [r, { remote, mapping }])),
  };
}

const NUMERIC_TYPES = ['smallint', 'integer', 'bigint', 'numeric', 'real', 'double precision'];
const TEXT_TYPES = ['text', 'character varying', 'character', 'citext', 'name'];
const OTHER_TYPES = ['timestamp with time zone', 'uuid', 'date'];
// One column per type class (`c_<type with _>`), next to the columns of the running example.
const typeColumns = Object.fromEntries([...NUMERIC_TYPES, ...TEXT_TYPES, ...OTHER_TYPES, 'boolean', 'jsonb', 'json']
  .map((t) => [`c_${t.replace(/ /g, '_')}`, t]));
const col = (t: string): string => `c_${t.replace(/ /g, '_')}`;

const article = table(qn('article'), {
  id: 'integer', title: 'text', category: 'text', published: 'boolean', author_id: 'integer', views: 'bigint',
  tags: 'jsonb', meta: 'json', created_at: 'timestamp with time zone', ...typeColumns,
}, { author: [qn('author'), [['author_id', 'id']]] });
const author = table(qn('author'), { id: 'integer', name: 'text', active: 'boolean' }, { articles: [qn('article'), [['id', 'author_id']]] });
const invoice = table(qn('invoice', 'billing'), { id: 'integer', amount: 'numeric', customer_id: 'integer' }, { customer: [qn('author'), [['customer_id', 'id']]] });
const tables = [article, author, invoice];
const schema: BoolExpSchema = { table: (n) => tables.find((t) => t.name.schema === n.schema && t.name.name === n.name) };

const validate = (exp: Json, on: BoolExpTable = article) => validateBoolExp(exp, on, schema);
const reasonOf = (exp: Json, on: BoolExpTable = article): string | undefined => {
  const r = validate(exp, on);
  return 'reason' in r ? r.reason : undefined;
};
const expectValid = (exp: Json, on: BoolExpTable = article) => expect(validate(exp, on)).not.toHaveProperty('reason');
const expectReason = (exp: Json, reason: string, on: BoolExpTable = article) => expect(reasonOf(exp, on)).toBe(reason);

describe('§4.4.4 validation reasons, one per row', () => {
  it('a BoolExp that is not an object', () => {
    const r = 'expecting an object for boolean expression';
    for (const e of [null, 1, 'x', true, [], [{}]] as Json[]) expectReason(e, r);
    expectReason({ _and: [{}, 1] }, r);
    expectReason({ _or: ['id'] }, r);
    expectReason({ $and: [null] }, r);
    expectReason({ _exists: { _table: 'author', _where: [] } }, r);
    expectReason({ author: { _or: [[]] } }, r);
  });
  it('_and/_or value not an array (key as written)', () => {
    expectReason({ _and: {} }, 'expecting an array for "_and"');
    expectReason({ _or: { id: 1 } }, 'expecting an array for "_or"');
    expectReason({ $and: 'x' }, 'expecting an array for "$and"');
    expectReason({ $or: null }, 'expecting an array for "$or"');
  });
  it('_not value not an object', () => {
    expectReason({ _not: [] }, 'expecting an object for "_not"');
    expectReason({ _not: null }, 'expecting an object for "_not"');
    expectReason({ $not: 1 }, 'expecting an object for "$not"');
  });
  it('_exists not an object with exactly _table and _where', () => {
    const shape = (k: string) => `expecting an object with keys "_table" and "_where" for "${k}"`;
    expectReason({ _exists: [] }, shape('_exists'));
    expectReason({ _exists: null }, shape('_exists'));
    expectReason({ _exists: { _table: 'author' } }, shape('_exists'));
    expectReason({ _exists: { _where: {} } }, shape('_exists'));
    expectReason({ _exists: { _table: 'author', _where: {}, extra: 1 } }, shape('_exists'));
    expectReason({ $exists: { table: 'author', where: {} } }, shape('$exists'));
  });
  it('_table not tracked', () => {
    expectReason({ _exists: { _table: 'nope', _where: {} } }, 'table "nope" does not exist');
    expectReason({ _exists: { _table: { schema: 'billing', name: 'nope' }, _where: {} } }, 'table "billing.nope" does not exist');
    expectReason({ _exists: { _table: { name: 'invoice' }, _where: {} } }, 'table "invoice" does not exist');
  });
  it('key is neither a column nor a relationship', () => {
    expectReason({ x: 1 }, 'column or relationship "x" does not exist in table "article"');
    expectReason({ author: { title: 'a' } }, 'column or relationship "title" does not exist in table "author"');
    expectReason({ Id: 1 }, 'column or relationship "Id" does not exist in table "article"');
  });
  it('relationship value not an object', () => {
    for (const v of [1, 'a', null, [], [{}]] as Json[]) expectReason({ author: v }, 'expecting an object for relationship "author"');
  });
  it('operator key unknown', () => {
    expectReason({ id: { _foo: 1 } }, 'unknown operator "_foo" for column "id"');
    expectReason({ id: { eq: 1 } }, 'unknown operator "eq" for column "id"');
    expectReason({ title: { $glob: 'a' } }, 'unknown operator "$glob" for column "title"');
    // The incumbent's regular-expression operators are known (issue 30.4).
    expectValid({ title: { _regex: 'a', $iregex: 'b', _nregex: 'c', _niregex: 'd' } });
    expectReason({ id: { _and: [] } }, 'unknown operator "_and" for column "id"');
  });
  it('operator not allowed for the column type', () => {
    expectReason({ id: { _like: '1' } }, 'operator "_like" cannot be used with column "id" of type "integer"');
    expectReason({ published: { _ilike: 'a' } }, 'operator "_ilike" cannot be used with column "published" of type "boolean"');
    expectReason({ title: { _contains: {} } }, 'operator "_contains" cannot be used with column "title" of type "text"');
    expectReason({ title: { _has_key: 'a' } }, 'operator "_has_key" cannot be used with column "title" of type "text"');
    expectReason({ tags: { _similar: 'a' } }, 'operator "_similar" cannot be used with column "tags" of type "jsonb"');
    expectReason({ meta: { _eq: 1 } }, 'operator "_eq" cannot be used with column "meta" of type "json"');
    expectReason({ meta: 'x' }, 'operator "_eq" cannot be used with column "meta" of type "json"'); // shorthand ≡ _eq
    expectReason({ meta: { _in: [] } }, 'operator "_in" cannot be used with column "meta" of type "json"');
    expectReason({ created_at: { _nlike: 'a' } }, 'operator "_nlike" cannot be used with column "created_at" of type "timestamp with time zone"');
    expectValid({ meta: { _is_null: true } }); // _is_null applies to all types
  });
  it('null operand where not allowed', () => {
    for (const op of ['_gt', '_lt', '_gte', '_lte', '_in', '_nin']) expectReason({ id: { [op]: null } }, `null is not allowed for operator "${op}"`);
    for (const op of ['_like', '_nilike', '_similar']) expectReason({ title: { [op]: null } }, `null is not allowed for operator "${op}"`);
    expectReason({ tags: { _contains: null } }, 'null is not allowed for operator "_contains"');
    expectReason({ tags: { _has_keys_all: null } }, 'null is not allowed for operator "_has_keys_all"');
    expectValid({ id: { _eq: null, _neq: null, _ne: null } });
    expectValid({ id: null });
  });
  it('_in/_nin operand not an array or reference', () => {
    expectReason({ id: { _in: 1 } }, 'expecting an array for operator "_in"');
    expectReason({ title: { _nin: 'abc' } }, 'expecting an array for operator "_nin"');
    expectReason({ id: { _in: { a: 1 } } }, 'expecting an array for operator "_in"');
  });
  it('_is_null operand not a boolean', () => {
    expectReason({ id: { _is_null: 'true' } }, 'expecting a boolean for operator "_is_null"');
    expectReason({ id: { _is_null: 1 } }, 'expecting a boolean for operator "_is_null"');
  });
  it('_has_key operand not a string', () => {
    expectReason({ tags: { _has_key: 1 } }, 'expecting a string for operator "_has_key"');
    expectReason({ tags: { _has_key: ['a'] } }, 'expecting a string for operator "_has_key"');
  });
  it('_has_keys_any/_has_keys_all operand invalid', () => {
    expectReason({ tags: { _has_keys_any: 'a' } }, 'expecting an array of strings for operator "_has_keys_any"');
    expectReason({ tags: { _has_keys_any: [1] } }, 'expecting an array of strings for operator "_has_keys_any"');
    expectReason({ tags: { _has_keys_all: ['a', null] } }, 'expecting an array of strings for operator "_has_keys_all"');
  });
  it('_c* operand not a string', () => {
    expectReason({ id: { _ceq: 1 } }, 'expecting a column name, [column] or ["$", column] for operator "_ceq"');
    expectReason({ id: { _cgt: ['author_id', 'id'] } }, 'expecting a column name, [column] or ["$", column] for operator "_cgt"');
    expectReason({ id: { _cgt: ['#', 'id'] } }, 'expecting a column name, [column] or ["$", column] for operator "_cgt"');
  });
  it('_c* operand names no column of the table', () => {
    expectReason({ id: { _ceq: 'nope' } }, 'column "nope" does not exist in table "article"');
    expectReason({ id: { _clt: 'author' } }, 'column "author" does not exist in table "article"'); // a relationship is no column
  });
  it('_c* columns of different types', () => {
    expectReason({ id: { _ceq: 'title' } }, 'incompatible column types: "id" is of type "integer", "title" is of type "text"');
    expectReason({ id: { _cneq: 'views' } }, 'incompatible column types: "id" is of type "integer", "views" is of type "bigint"');
  });
  it('value not valid for the column type (value JSON-encoded)', () => {
    expectReason({ id: 'abc' }, 'invalid value for column "id" of type "integer": "abc"');
    expectReason({ id: { _eq: true } }, 'invalid value for column "id" of type "integer": true');
    expectReason({ published: { _neq: 'yes' } }, 'invalid value for column "published" of type "boolean": "yes"');
    expectReason({ title: 5 }, 'invalid value for column "title" of type "text": 5');
    expectReason({ id: { _in: [1, 'x'] } }, 'invalid value for column "id" of type "integer": "x"');
    expectReason({ title: { _like: 1 } }, 'invalid value for column "title" of type "text": 1');
    expectReason({ created_at: { _gt: [1] } }, 'invalid value for column "created_at" of type "timestamp with time zone": [1]');
    expectReason({ created_at: { _eq: { a: 1 } } }, 'invalid value for column "created_at" of type "timestamp with time zone": {"a":1}');
  });
});

describe('§4.4.3 value rules per type class', () => {
  const accepts = (t: string, values: Json[]) => {
    for (const v of values) expect(reasonOf({ [col(t)]: { _eq: v } }), `${t} ${JSON.stringify(v)}`).toBeUndefined();
  };
  const rejects = (t: string, values: Json[]) => {
    for (const v of values) expectReason({ [col(t)]: { _eq: v } }, `invalid value for column "${col(t)}" of type "${t}": ${JSON.stringify(v)}`);
  };
  it('numeric types accept numbers and numeric strings only', () => {
    for (const t of NUMERIC_TYPES) {
      accepts(t, [0, -7, 2.5, 1e3, '42', '-3.5', '1e3']);
      rejects(t, ['abc', '', '1a', true, false, [1], 'NaNx']);
    }
  });
  it('boolean accepts true/false and "true"/"false"/"t"/"f" only', () => {
    accepts('boolean', [true, false, 'true', 'false', 't', 'f']);
    rejects('boolean', [1, 0, 'yes', 'no', '1', '', [true]]);
  });
  it('text-like types accept strings only', () => {
    for (const t of TEXT_TYPES) {
      accepts(t, ['', 'abc', '123', 'true', 'é✓𝄞', "'; DROP TABLE x; --"]);
      rejects(t, [1, 0, true, false, ['a']]);
    }
  });
  it('jsonb accepts any JSON', () => {
    accepts('jsonb', [1, 'a', true, false, [], [1, 'a', null], { a: { b: [1] } }]);
    expectValid({ tags: { _contains: { lang: 'de' }, _contained_in: [1, 2] } });
  });
  it('other types accept a string, number or boolean', () => {
    for (const t of OTHER_TYPES) {
      accepts(t, ['2024-01-01', 'anything', 5, 1.5, true]);
      rejects(t, [[], ['2024-01-01'], { a: 1 }]);
    }
  });
  it('shorthand and every value-taking operator apply the same rules', () => {
    expectReason({ id: '1.2.3' }, 'invalid value for column "id" of type "integer": "1.2.3"');
    expectReason({ id: { _gte: 'x' } }, 'invalid value for column "id" of type "integer": "x"');
    expectReason({ id: { _nin: [1, false] } }, 'invalid value for column "id" of type "integer": false');
    expectReason({ published: { _in: ['t', 'maybe'] } }, 'invalid value for column "published" of type "boolean": "maybe"');
    expectValid({ id: '7', published: 't', views: { _in: ['1', 2, null] } });
  });
});

describe('session-variable references', () => {
  it('are accepted wherever a Scalar is, in any case', () => {
    for (const ref of ['X-Engine-User-Id', 'x-engine-user-id', 'X-ENGINE-USER-ID', 'x-EnGiNe-anything']) {
      expectValid({ id: ref });
      expectValid({ author_id: { _eq: ref, _neq: ref, _gt: ref, _lt: ref, _gte: ref, _lte: ref } });
      expectValid({ published: ref, title: { _like: ref, _nilike: ref, _similar: ref } });
      expectValid({ id: { _in: ref, _nin: ref }, created_at: { _gt: ref } });
      expectValid({ id: { _in: [ref, 1] } });
      expectValid({ tags: { _contains: ref, _contained_in: ref, _has_key: ref, _has_keys_any: ref, _has_keys_all: ref } });
      expectValid({ author: { active: ref } });
      for (const t of [...NUMERIC_TYPES, ...TEXT_TYPES, ...OTHER_TYPES, 'boolean', 'jsonb']) expectValid({ [col(t)]: ref });
    }
  });
  it('a string without the prefix is a literal and must fit the type', () => {
    expectReason({ id: 'x-engin-user-id' }, 'invalid value for column "id" of type "integer": "x-engin-user-id"');
    expectReason({ id: { _in: 'engine-ids' } }, 'expecting an array for operator "_in"');
  });
});

describe('$-prefixed forms (§4.4.1)', () => {
  it('every logical key and operator has a $ form', () => {
    expectValid({ $and: [{ id: { $eq: 1 } }], $or: [{ title: { $neq: 'a' } }, { title: { $ne: 'b' } }], $not: { id: { $in: [1] } } });
    expectValid({ $exists: { _table: 'author', _where: { name: { $ilike: 'a%' } } } });
    expectValid({ id: { $gt: 1, $lt: 2, $gte: 1, $lte: 2, $nin: [], $is_null: false, $ceq: 'author_id', $cne: 'author_id', $cgt: 'author_id', $clte: 'author_id' } });
    expectValid({ title: { $like: 'a', $nlike: 'b', $nilike: 'c', $similar: 'd', $nsimilar: 'e' } });
    expectValid({ tags: { $contains: {}, $contained_in: [], $has_key: 'a', $has_keys_any: ['a'], $has_keys_all: [] } });
  });
  it('the $ forms are validated like the _ forms', () => {
    expectReason({ id: { $neq: 'abc' } }, 'invalid value for column "id" of type "integer": "abc"');
    expectReason({ $or: [{ nope: 1 }] }, 'column or relationship "nope" does not exist in table "article"');
    expectReason({ $exists: { _table: 'nope', _where: {} } }, 'table "nope" does not exist');
    expectReason({ id: { $ceq: 'title' } }, 'incompatible column types: "id" is of type "integer", "title" is of type "text"');
  });
});

describe('first failure wins: ascending code-point order, depth first', () => {
  it('reports the smallest key first', () => {
    expectReason({ zz: 1, aa: 1 }, 'column or relationship "aa" does not exist in table "article"');
    expectReason({ _or: 1, $and: 1 }, 'expecting an array for "$and"'); // "$" (U+0024) < "_" (U+005F)
    expectReason({ b_unknown: 1, _and: 1 }, 'expecting an array for "_and"'); // "_" < "b"
    expectReason({ _and: 1, Zed: 1 }, 'column or relationship "Zed" does not exist in table "article"'); // "Z" < "_"
    // Code points, not UTF-16 units: U+FF61 < U+1F600 although the latter's first unit (0xD83D) is smaller.
    expectReason({ '\u{1F600}': 1, '\u{FF61}': 1 }, 'column or relationship "\u{FF61}" does not exist in table "article"');
  });
  it('finishes a nested expression before the next key', () => {
    expectReason({ aa: 1, _and: [{ zz: 1 }] }, 'column or relationship "zz" does not exist in table "article"');
    expectReason({ title: 5, author: { zzz: 1 } }, 'column or relationship "zzz" does not exist in table "author"');
    expectReason({ _not: { id: 'x' }, _and: [{}, { title: 1 }] }, 'invalid value for column "title" of type "text": 1');
    expectReason({ title: 5, _exists: { _table: 'author', _where: { name: 1 } } }, 'invalid value for column "name" of type "text": 1');
  });
  it('orders the operators of one column too', () => {
    expectReason({ id: { _lt: null, _gt: 'y' } }, 'invalid value for column "id" of type "integer": "y"');
    expectReason({ title: { _gt: 1, _foo: 1 } }, 'unknown operator "_foo" for column "title"');
    expectReason({ id: { _nin: 1, _in: 2 } }, 'expecting an array for operator "_in"');
  });
});

describe('references of a valid expression', () => {
  const refsOf = (exp: Json, on: BoolExpTable = article): Refs => {
    const r = validate(exp, on);
    if (!('refs' in r)) throw new Error(`unexpectedly invalid: ${r.reason}`);
    return r.refs;
  };
  const key = (t: QualifiedName, n?: string) => `${t.schema}.${t.name}${n === undefined ? '' : `.${n}`}`;
  const set = (r: Refs) => ({
    columns: [...new Set(r.columns.map((c) => key(c.table, c.column)))].sort(),
    relationships: [...new Set(r.relationships.map((x) => key(x.table, x.name)))].sort(),
    tables: [...new Set(r.tables.map((t) => key(t)))].sort(),
  });
  it('the spec example', () => {
    const exp: Json = { author_id: 'X-Engine-User-Id', $or: [{ published: true }, { category: { $neq: 'editorial' } }], author: { active: { _eq: true } } };
    expect(set(refsOf(exp))).toEqual({
      columns: ['public.article.author_id', 'public.article.category', 'public.article.published', 'public.author.active'],
      relationships: ['public.article.author'],
      tables: [],
    });
  });
  it('columns incl. _c* operands, relationships traversed, _exists tables', () => {
    const exp = {
      id: { _ceq: 'author_id' },
      _not: { author: { articles: { views: { _gt: 1 } } } },
      $exists: { _table: { schema: 'billing', name: 'invoice' }, _where: { amount: { _gt: 0 }, customer: { name: { _is_null: false } } } },
    };
    expect(set(refsOf(exp))).toEqual({
      columns: ['billing.invoice.amount', 'public.article.author_id', 'public.article.id', 'public.article.views', 'public.author.name'],
      relationships: ['billing.invoice.customer', 'public.article.author', 'public.author.articles'],
      tables: ['billing.invoice'],
    });
  });
  it('empty and trivial expressions reference nothing', () => {
    for (const e of [{}, { _and: [] }, { _or: [] }, { _not: {} }, { $and: [{}, {}] }] as Json[]) {
      expect(set(refsOf(e))).toEqual({ columns: [], relationships: [], tables: [] });
    }
    expect(set(refsOf({ _exists: { _table: 'author', _where: {} } }))).toEqual({ columns: [], relationships: [], tables: ['public.author'] });
  });
});

describe('tables outside schema public print as "schema.name"', () => {
  it('in every reason naming the table', () => {
    expectReason({ nope: 1 }, 'column or relationship "nope" does not exist in table "billing.invoice"', invoice);
    expectReason({ id: { _ceq: 'nope' } }, 'column "nope" does not exist in table "billing.invoice"', invoice);
    expectReason({ _exists: { _table: { schema: 'billing', name: 'x' }, _where: {} } }, 'table "billing.x" does not exist', invoice);
    expectReason({ customer: { nope: 1 } }, 'column or relationship "nope" does not exist in table "author"', invoice);
    expectReason({ _exists: { _table: { schema: 'billing', name: 'invoice' }, _where: { x: 1 } } }, 'column or relationship "x" does not exist in table "billing.invoice"');
  });
});
