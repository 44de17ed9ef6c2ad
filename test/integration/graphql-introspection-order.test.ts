import { describe, expect, it } from 'vitest';
import { printType } from 'graphql';
import { useTestEngine } from '../helpers/engine.js';
import { buildRoleSchema } from '../../src/server/graphql/schema/index.js';
import { q } from './graphql-fixture.js';

// Issue 30: introspection lists as the incumbent orders them (its Introspect module sorts by name): a type's fields,
// interfaces, possible types, enum values and input fields, a field's arguments and the schema's types; directives and
// their arguments as declared. The schema itself (SDL, printSchema) keeps its declaration order.

const e = useTestEngine({ setup: async (t) => {
  await t.sql(`CREATE TABLE t (zeta int, alpha text, mid int, PRIMARY KEY (zeta, alpha));
    INSERT INTO t VALUES (1, 'a', 2);`);
  await t.ok({ type: 'track_table', args: 't' });
} });

const names = (xs: { name: string }[]): string[] => xs.map((x) => x.name);
const TYPE = 'query ($n: String!) { __type(name: $n) { fields { name args { name } } enumValues { name } inputFields { name } } }';
type TypeAnswer = { data: { __type: { fields: { name: string; args: { name: string }[] }[] | null; enumValues: { name: string }[] | null; inputFields: { name: string }[] | null } } };

describe('introspection in the incumbent\'s order', () => {
  it('a type\'s fields, a field\'s arguments, enum values and input fields are sorted by name', async () => {
    const t = await q(e, TYPE, {}, { n: 't' }) as TypeAnswer;
    expect(names(t.data.__type.fields ?? [])).toEqual(['alpha', 'mid', 'zeta']);
    const root = await q(e, TYPE, {}, { n: 'query_root' }) as TypeAnswer;
    expect(root.data.__type.fields?.find((f) => f.name === 't_by_pk')?.args.map((a) => a.name)).toEqual(['alpha', 'zeta']);
    const sel = await q(e, TYPE, {}, { n: 't_select_column' }) as TypeAnswer;
    expect(names(sel.data.__type.enumValues ?? [])).toEqual(['alpha', 'mid', 'zeta']);
    const ins = await q(e, TYPE, {}, { n: 't_insert_input' }) as TypeAnswer;
    expect(names(ins.data.__type.inputFields ?? [])).toEqual(['alpha', 'mid', 'zeta']);
    // Code-point order, as the incumbent's (graphql-js's own declaration order is SCALAR, OBJECT, …).
    expect(await q(e, '{ __type(name: "__TypeKind") { enumValues { name } } }')).toEqual({ data: { __type: { enumValues:
      ['ENUM', 'INPUT_OBJECT', 'INTERFACE', 'LIST', 'NON_NULL', 'OBJECT', 'SCALAR', 'UNION'].map((name) => ({ name })) } } });
  });

  it('the schema\'s types are sorted; directives and their arguments keep their declaration order', async () => {
    const r = await q(e, '{ __schema { types { name } directives { name args { name } } } }') as { data: { __schema: { types: { name: string }[]; directives: { name: string; args: { name: string }[] }[] } } };
    const types = names(r.data.__schema.types);
    expect(types).toEqual([...types].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(types.indexOf('Boolean')).toBeLessThan(types.indexOf('t'));
    expect(types.indexOf('__Type')).toBeLessThan(types.indexOf('t'));
    expect(r.data.__schema.directives.map((d) => d.name)).toEqual(['include', 'skip', 'deprecated', 'specifiedBy']);
  });

  it('lists are sorted when `name` is not selected, through fragments and aliases, and no extra key is answered', async () => {
    const r = await q(e, `{ __type(name: "t") { ...F } }
      fragment F on __Type { a: fields { type { ofType { name } } } b: fields { description } }`) as { data: { __type: { a: unknown[]; b: unknown[] } } };
    expect(r.data.__type.a).toEqual([{ type: { ofType: { name: 'String' } } }, { type: { ofType: null } }, { type: { ofType: { name: 'Int' } } }]);
    expect(r.data.__type.b).toEqual([{ description: null }, { description: null }, { description: null }]);
    const nested = await q(e, '{ __schema { queryType { fields { args { type { kind } } } } } }');
    expect(JSON.stringify(nested)).not.toContain('__engine');
  });

  it('the role\'s schema and its SDL keep the declaration order', async () => {
    const schema = buildRoleSchema(e.engine.schemaCache, 'admin');
    expect(printType(schema.getType('t') as never)).toBe('type t {\n  zeta: Int!\n  alpha: String!\n  mid: Int\n}');
    expect(printType(schema.getType('query_root') as never)).toContain('t_by_pk(zeta: Int!, alpha: String!): t');
    // Queries answer in selection order as before.
    expect(JSON.stringify(await q(e, '{ t { zeta alpha mid } }'))).toBe('{"data":{"t":[{"zeta":1,"alpha":"a","mid":2}]}}');
  });
});
