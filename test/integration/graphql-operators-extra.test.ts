import { describe, expect, it } from 'vitest';
import { useTestEngine, type TestEngine } from '../helpers/engine.js';
import { as, gqlErr, q } from './graphql-fixture.js';

// Issue 30.4: _regex/_iregex/_nregex/_niregex, ltree operators, jsonb _cast, the statistical aggregates, each under
// the role's permissions (a column the role cannot see cannot be compared or aggregated).

const SQL = `
CREATE EXTENSION IF NOT EXISTS ltree;
CREATE TABLE place (id serial PRIMARY KEY, name text NOT NULL, path ltree NOT NULL, tags jsonb, score integer, weight numeric, secret text);
INSERT INTO place (name, path, tags, score, weight, secret) VALUES
  ('Durham', 'Top.Science.Astronomy', '["old"]', 1, 1.5, 'x1'),
  ('Framlingham', 'Top.Science.Astronomy.Stars', '["bestseller","latest"]', 2, 2.5, 'x2'),
  ('New York', 'Top.Hobbies', null, 3, 4.0, 'y3'),
  ('york', 'Top.Collections.Pictures', '{"a":1}', 6, 8.0, 'y4');
`;
const META = [
  { type: 'track_table', args: 'place' },
  { type: 'create_select_permission', args: { table: 'place', role: 'reader', permission: { columns: ['id', 'name', 'path', 'tags', 'score'], filter: { name: { _nregex: '^New' } }, allow_aggregations: true } } },
];
const e: TestEngine = useTestEngine({ setup: async (t) => { await t.sql(SQL); await t.ok({ type: 'bulk', args: META }); } });
const READER = as('reader');
const names = async (where: string, headers = {}): Promise<unknown> =>
  ((await q(e, `{ place(where: ${where}, order_by: {id: asc}) { name } }`, headers)) as { data?: { place: { name: string }[] } }).data?.place.map((p) => p.name);

describe('regular expressions', () => {
  it('_regex, _iregex, _nregex, _niregex', async () => {
    expect(await names('{name: {_regex: "ham$"}}')).toEqual(['Durham', 'Framlingham']);
    expect(await names('{name: {_regex: "^york"}}')).toEqual(['york']);
    expect(await names('{name: {_iregex: "^york"}}')).toEqual(['york']);
    expect(await names('{name: {_iregex: "YORK"}}')).toEqual(['New York', 'york']);
    expect(await names('{name: {_nregex: "ham"}}')).toEqual(['New York', 'york']);
    expect(await names('{name: {_niregex: "YORK|durham"}}')).toEqual(['Framlingham']);
  });

  it('in a permission filter, and not on a column the role cannot see', async () => {
    expect(await names('{}', READER)).toEqual(['Durham', 'Framlingham', 'york']);
    expect(await q(e, '{ place(where: {secret: {_regex: "^y"}}) { name } }', READER))
      .toEqual(gqlErr('field "secret" not found in type: \'place_bool_exp\'', '$.selectionSet.place.args.where.secret', 'validation-failed'));
  });

  it('an invalid pattern is a database error', async () => {
    const r = await q(e, '{ place(where: {name: {_regex: "("}}) { name } }') as { errors: { extensions: { code: string; path: string } }[] };
    expect(r.errors[0]?.extensions).toMatchObject({ code: 'data-exception', path: '$.selectionSet.place' });
  });
});

describe('ltree', () => {
  it('_ancestor, _descendant, _matches, _matches_fulltext and the _any forms', async () => {
    expect(await names('{path: {_ancestor: "Top.Science.Astronomy.Stars.Big"}}')).toEqual(['Durham', 'Framlingham']);
    expect(await names('{path: {_descendant: "Top.Science"}}')).toEqual(['Durham', 'Framlingham']);
    expect(await names('{path: {_ancestor_any: ["Top.Hobbies.X", "Top.Science.Astronomy"]}}')).toEqual(['Durham', 'New York']);
    expect(await names('{path: {_descendant_any: ["Top.Hobbies", "Top.Collections"]}}')).toEqual(['New York', 'york']);
    expect(await names('{path: {_matches: "*.Astronomy.*"}}')).toEqual(['Durham', 'Framlingham']);
    expect(await names('{path: {_matches_any: ["*.Stars", "*.Hobbies"]}}')).toEqual(['Framlingham', 'New York']);
    expect(await names('{path: {_matches_fulltext: "Astro* & !Stars"}}')).toEqual(['Durham']);
  });

  it('an operand that is not a label path is parse-failed', async () => {
    expect(await q(e, '{ place(where: {path: {_ancestor: "Top.Science."}}) { name } }')).toEqual(gqlErr(
      'Expecting label path: a sequence of zero or more labels separated by dots, for example L1.L2.L3', '$.selectionSet.place.args.where.path._ancestor', 'parse-failed'));
    expect(await q(e, '{ place(where: {path: {_descendant_any: ["Top", "a b"]}}) { name } }')).toEqual(gqlErr(
      'Expecting label path: a sequence of zero or more labels separated by dots, for example L1.L2.L3', '$.selectionSet.place.args.where.path._descendant_any[1]', 'parse-failed'));
  });

  it('types lquery and ltxtquery operands as the incumbent does', async () => {
    const r = await q(e, '{ __type(name: "ltree_comparison_exp") { inputFields { name type { name } } } }') as { data: { __type: { inputFields: { name: string; type: { name: string | null } }[] } } };
    const f = Object.fromEntries(r.data.__type.inputFields.map((x) => [x.name, x.type.name]));
    expect(f).toMatchObject({ _ancestor: 'ltree', _descendant: 'ltree', _matches: 'lquery', _matches_fulltext: 'ltxtquery', _ancestor_any: null, _matches_any: null });
  });
});

describe('jsonb _cast', () => {
  it('compares the value as text', async () => {
    expect(await names('{tags: {_cast: {String: {_like: "%bestseller%"}}}}')).toEqual(['Framlingham']);
    expect(await names('{tags: {_cast: {String: {_regex: "^\\\\["}}}}')).toEqual(['Durham', 'Framlingham']);
    expect(await names('{tags: {_cast: {String: {_like: "%a%"}}}}', READER)).toEqual(['Framlingham', 'york']);
  });
});

describe('statistical aggregates', () => {
  // numeric is a JSON number with every digit (issue 29.8): parsed here, so compared as a double.
  it('Float for integer columns, numeric for numeric columns', async () => {
    const r = await q(e, `{ place_aggregate(where: {id: {_lte: 2}}) { aggregate {
      stddev { score weight } stddev_pop { score } stddev_samp { score } var_pop { score weight } var_samp { score } variance { score } } } }`);
    expect(r).toEqual({ data: { place_aggregate: { aggregate: {
      stddev: { score: 0.7071067811865476, weight: 0.7071067811865476 }, stddev_pop: { score: 0.5 }, stddev_samp: { score: 0.7071067811865476 },
      var_pop: { score: 0.25, weight: 0.25 }, var_samp: { score: 0.5 }, variance: { score: 0.5 },
    } } } });
  });

  it('over the rows and columns the role may see', async () => {
    expect(await q(e, '{ place_aggregate { aggregate { variance { score } } } }', READER))
      .toEqual({ data: { place_aggregate: { aggregate: { variance: { score: 7 } } } } });
    expect(await q(e, '{ place_aggregate { aggregate { variance { weight } } } }', READER))
      .toEqual(gqlErr('field "weight" not found in type: \'place_variance_fields\'', '$.selectionSet.place_aggregate.selectionSet.aggregate.selectionSet.variance.selectionSet.weight', 'validation-failed'));
  });
});
