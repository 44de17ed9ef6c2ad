import { describe, expect, it } from 'vitest';
import { useTestEngine } from '../helpers/engine.js';
import { err, expectError, exported, qt, write, inconsistentError } from '../helpers/assertions.js';

// engine-api.md §4.6.1 (set_custom_types), §3.4 rules 1–2, §6.1–§6.3 (custom_types export), §1.7 (reason lists),
// §7 rows 8, 10, 11, 22, 51, 52.

const e = useTestEngine({ setup: async () => {
  await e.sql(`create table author (id int primary key, name text);
    create table article (id int primary key, author_id int, title text);
    create table draft (id int primary key);
    create type mood as enum ('up', 'down');
    create domain posint as int check (value > 0)`);
  await e.ok({ type: 'bulk', args: [{ type: 'track_table', args: 'author' }, { type: 'track_table', args: 'article' }] });
} });

type Obj = Record<string, unknown>;
const set = (args: unknown) => ({ type: 'set_custom_types', args });
const byName = (a: Obj, b: Obj) => (String(a['name']) < String(b['name']) ? -1 : String(a['name']) > String(b['name']) ? 1 : 0);

/** §6.1 form of custom types whose elements are already canonical: sections in format order, sorted, non-empty only. */
function canon(ct: Record<string, Obj[] | undefined>): Obj {
  const out: Obj = {};
  for (const k of ['input_objects', 'objects', 'scalars', 'enums']) {
    const s = ct[k];
    if (s && s.length > 0) out[k] = [...s].sort(byName);
  }
  return out;
}

const HEAD = 'validation for the given custom types failed';
/** §7 row 51 with one reason; `definition` is the given custom types in §6 form. */
function invalid(args: Record<string, Obj[] | undefined>, reason: string, definition: Obj = canon(args)) {
  const error = `${HEAD} because ${reason}`;
  return { path: '$.args', error, code: 'constraint-violation', internal: [{ definition, reason: error, type: 'custom_types' }] };
}

const TABLES = [{ table: qt('article') }, { table: qt('author') }];
const doc = (customTypes?: Obj, actions?: Obj[]) =>
  JSON.stringify({ version: 2, tables: TABLES, ...(actions ? { actions } : {}), ...(customTypes ? { custom_types: customTypes } : {}) });

describe('set_custom_types succeeds', () => {
  it('stores every kind of type and exports it in the §6 shape, sorted, with arguments and defaults omitted', async () => {
    await write(e, set({
      objects: [
        { name: 'User', description: 'a user', fields: [
          { name: 'id', type: 'uuid!' }, { name: 'at', type: 'timestamptz' }, { name: 'data', type: 'jsonb', description: 'raw' },
          { name: 'author_id', type: 'Int!', arguments: null }, { name: 'name', type: 'String', arguments: [] }, { name: 'n', type: 'posint', arguments: {} },
          { name: 'mood', type: 'mood' }, { name: 'feel', type: 'Feeling' }, { name: 'day', type: 'Date' }, { name: 'tags', type: '[String!]!' }],
        relationships: [
          { name: 'posts', type: 'array', remote_table: 'article', field_mapping: { author_id: 'author_id' } },
          { name: 'author', type: 'object', remote_table: { name: 'author' }, field_mapping: { name: 'name', author_id: 'id' } }] },
        { name: 'Ack', fields: [{ name: 'ok', type: 'Boolean!' }], relationships: [] },
      ],
      scalars: [{ name: 'Date', description: 'a day' }, { name: 'Blob' }],
      input_objects: [
        { name: 'UserInput', description: 'in', fields: [{ name: 'email', type: 'String!', description: 'mail' }, { name: 'feel', type: 'Feeling' },
          { name: 'id', type: 'uuid' }, { name: 'extra', type: 'AInput' }, { name: 'days', type: '[Date]' }] },
        { name: 'AInput', fields: [{ name: 'at', type: 'timestamptz!' }, { name: 'data', type: 'jsonb' }, { name: 'x', type: 'ID' }, { name: 'f', type: 'Float' }] },
      ],
      enums: [
        { name: 'Feeling', description: 'how', values: [{ value: 'HAPPY', description: 'glad' }, { value: 'SAD', is_deprecated: true }, { value: 'MEH', is_deprecated: false }] },
        { name: 'Color', values: [{ value: 'RED', is_deprecated: null }] },
      ],
    }));
    const x = await exported(e);
    expect(x.version).toBe('3');
    expect(x.text).toBe(doc({
      input_objects: [
        { name: 'AInput', fields: [{ name: 'at', type: 'timestamptz!' }, { name: 'data', type: 'jsonb' }, { name: 'x', type: 'ID' }, { name: 'f', type: 'Float' }] },
        { name: 'UserInput', description: 'in', fields: [{ name: 'email', type: 'String!', description: 'mail' }, { name: 'feel', type: 'Feeling' },
          { name: 'id', type: 'uuid' }, { name: 'extra', type: 'AInput' }, { name: 'days', type: '[Date]' }] },
      ],
      objects: [
        { name: 'Ack', fields: [{ name: 'ok', type: 'Boolean!' }] },
        { name: 'User', description: 'a user', fields: [
          { name: 'id', type: 'uuid!' }, { name: 'at', type: 'timestamptz' }, { name: 'data', type: 'jsonb', description: 'raw' },
          { name: 'author_id', type: 'Int!' }, { name: 'name', type: 'String' }, { name: 'n', type: 'posint' },
          { name: 'mood', type: 'mood' }, { name: 'feel', type: 'Feeling' }, { name: 'day', type: 'Date' }, { name: 'tags', type: '[String!]!' }],
        relationships: [
          { name: 'author', type: 'object', remote_table: qt('author'), field_mapping: { author_id: 'id', name: 'name' } },
          { name: 'posts', type: 'array', remote_table: qt('article'), field_mapping: { author_id: 'author_id' } }] },
      ],
      scalars: [{ name: 'Blob' }, { name: 'Date', description: 'a day' }],
      enums: [
        { name: 'Color', values: [{ value: 'RED' }] },
        { name: 'Feeling', description: 'how', values: [{ value: 'HAPPY', description: 'glad' }, { value: 'SAD', is_deprecated: true }, { value: 'MEH' }] },
      ],
    }));
    expect(await e.ok({ type: 'get_inconsistent_metadata', args: {} })).toEqual({ is_consistent: true, inconsistent_objects: [] });
  });

  it('replaces the whole set; only non-empty sections are written; {} removes custom_types (§6.2)', async () => {
    await write(e, set({ scalars: [{ name: 'Date' }], enums: [{ name: 'Color', values: [{ value: 'RED' }] }] }));
    await write(e, set({ objects: [{ name: 'Out', fields: [{ name: 'id', type: 'Int' }] }], scalars: [], enums: [], input_objects: [] }));
    expect((await exported(e)).text).toBe(doc({ objects: [{ name: 'Out', fields: [{ name: 'id', type: 'Int' }] }] }));
    await write(e, set({ scalars: [{ name: 'Date' }] }));
    expect((await exported(e)).text).toBe(doc({ scalars: [{ name: 'Date' }] }));
    await write(e, set({}));
    const x = await exported(e);
    expect(x.text).toBe(doc());
    expect(x.version).toBe('6');
    await write(e, set({ scalars: [], objects: [] }));
    expect((await exported(e)).text).toBe(doc());
  });
});

describe('set_custom_types parse errors (§4.6.1, §7 rows 5, 6, 8, 10, 11, 52)', () => {
  it('rejects invalid names, types and enum values at their paths', async () => {
    const o = (fields: Obj[], extra: Obj = {}) => set({ objects: [{ name: 'O', fields, ...extra }] });
    const pf = (path: string, error: string) => err(path, error, 'parse-failed');
    const ok = { name: 'id', type: 'Int' };
    const cases: [unknown, Obj][] = [
      [o([ok, { name: 'my field', type: 'Int' }]), pf('$.args.objects[0].fields[1].name', '"my field" is not a valid GraphQL name')],
      [o([ok, { name: 'x', type: '[Int' }]), pf('$.args.objects[0].fields[1].type', 'invalid GraphQL type "[Int"')],
      [o([ok, { name: 'x', type: 'Int!!' }]), pf('$.args.objects[0].fields[1].type', 'invalid GraphQL type "Int!!"')],
      [o([ok, { name: 'x', type: '[ Int ]' }]), pf('$.args.objects[0].fields[1].type', 'invalid GraphQL type "[ Int ]"')],
      [o([ok, { name: 'x', type: '[]' }]), pf('$.args.objects[0].fields[1].type', 'invalid GraphQL type "[]"')],
      [o([ok, { name: 'x' }]), pf('$.args.objects[0].fields[1]', 'the key "type" was not present')],
      [set({ scalars: [{ name: 'Date' }, { name: '1Date' }] }), pf('$.args.scalars[1].name', '"1Date" is not a valid GraphQL name')],
      [set({ input_objects: [{ name: 'I', fields: [{ name: 'a', type: 'String!' }, { name: 'b', type: 'Str-ing' }] }] }),
        pf('$.args.input_objects[0].fields[1].type', 'invalid GraphQL type "Str-ing"')],
      [set({ enums: [{ name: 'E', values: [{ value: 'A' }, { value: 'true' }] }] }), pf('$.args.enums[0].values[1].value', '"true" is not a valid enum value')],
      [set({ enums: [{ name: 'E', values: [{ value: 'false' }] }] }), pf('$.args.enums[0].values[0].value', '"false" is not a valid enum value')],
      [set({ enums: [{ name: 'E', values: [{ value: 'null' }] }] }), pf('$.args.enums[0].values[0].value', '"null" is not a valid enum value')],
      [set({ enums: [{ name: 'E', values: [{ value: 'a-b' }] }] }), pf('$.args.enums[0].values[0].value', '"a-b" is not a valid GraphQL name')],
      [set({ enums: [{ name: 'E' }] }), pf('$.args.enums[0]', 'the key "values" was not present')],
      [o([ok], { relationships: [{ name: 'r', type: 'many', remote_table: 'author', field_mapping: { id: 'id' } }] }),
        pf('$.args.objects[0].relationships[0].type', 'expected one of "object", "array", encountered "many"')],
      [o([ok], { relationships: [{ name: 'my r', type: 'object', remote_table: 'author', field_mapping: { id: 'id' } }] }),
        pf('$.args.objects[0].relationships[0].name', '"my r" is not a valid GraphQL name')],
      [set({ objects: {} }), pf('$.args.objects', 'expected Array, encountered Object')],
    ];
    for (const [body, expected] of cases) await expectError(e, body, 400, expected);
  });
});

describe('set_custom_types validation (§4.6.1, §7 row 51)', () => {
  const F = [{ name: 'id', type: 'Int' }];
  const rel = (name: string, field_mapping: Obj, remote_table = qt('author'), type = 'object') => ({ name, type, remote_table, field_mapping });

  it('reports each reason alone, with the given custom types as the internal definition', async () => {
    const cases: [Record<string, Obj[]>, string][] = [
      [{ scalars: [{ name: 'Date' }], enums: [{ name: 'Date', values: [{ value: 'A' }] }] }, 'duplicate type names: "Date"'],
      [{ scalars: [{ name: 'String' }] }, 'duplicate type names: "String"'],
      [{ scalars: [{ name: 'Date' }, { name: 'Int' }], input_objects: [{ name: 'Date', fields: F }] }, 'duplicate type names: "Int", "Date"'],
      [{ enums: [{ name: 'E', values: [] }] }, 'the enum type "E" has no values'],
      [{ enums: [{ name: 'E', values: [{ value: 'A' }, { value: 'B' }, { value: 'A' }] }] }, 'the enum type "E" has duplicate values: "A"'],
      [{ input_objects: [{ name: 'I', fields: [] }] }, 'the input object type "I" has no fields'],
      [{ input_objects: [{ name: 'I', fields: [...F, { name: 'x', type: 'Int' }, { name: 'id', type: 'String' }] }] }, 'the input object type "I" has duplicate fields: "id"'],
      [{ input_objects: [{ name: 'I', fields: [...F, { name: 'x', type: '[Nope!]' }] }] }, 'the type "Nope" for field "x" in input object type "I" does not exist'],
      [{ input_objects: [{ name: 'I', fields: [{ name: 'a', type: 'author' }] }] }, 'the type "author" for field "a" in input object type "I" does not exist'],
      [{ input_objects: [{ name: 'I', fields: [{ name: 'o', type: 'O!' }] }], objects: [{ name: 'O', fields: F }] },
        'the type "O" of field "o" in input object type "I" is not an input type'],
      [{ objects: [{ name: 'O', fields: [] }] }, 'the object type "O" has no fields'],
      [{ objects: [{ name: 'O', fields: [...F, { name: 'id', type: 'Int' }] }] }, 'the object type "O" has duplicate fields: "id"'],
      [{ objects: [{ name: 'O', fields: [...F, { name: 'x', type: 'Nope' }] }] }, 'the type "Nope" for field "x" in object type "O" does not exist'],
      [{ objects: [{ name: 'O', fields: [{ name: 'x', type: '_int4' }] }] }, 'the type "_int4" for field "x" in object type "O" does not exist'],
      [{ input_objects: [{ name: 'I', fields: F }], objects: [{ name: 'O', fields: [{ name: 'i', type: '[I]' }] }] },
        'the type "I" of field "i" in object type "O" is not a scalar, enum or object type'],
      [{ objects: [{ name: 'O', fields: F, relationships: [rel('r', { id: 'id' }), rel('r', { id: 'id' }, qt('article'), 'array')] }] },
        'the object type "O" has duplicate relationships: "r"'],
      [{ objects: [{ name: 'O', fields: F, relationships: [rel('id', { id: 'id' })] }] }, 'relationship "id" of object type "O" conflicts with a field of the same name'],
      [{ objects: [{ name: 'O', fields: F, relationships: [rel('r', { id: 'id' }, qt('draft'))] }] }, 'the remote table "draft" for relationship "r" of object type "O" does not exist'],
      [{ objects: [{ name: 'O', fields: F, relationships: [rel('r', { id: 'id' }, qt('nope', 'billing'))] }] }, 'the remote table "billing.nope" for relationship "r" of object type "O" does not exist'],
      [{ objects: [{ name: 'O', fields: F, relationships: [rel('r', { nope: 'id' })] }] }, 'the field "nope" for relationship "r" in object type "O" does not exist'],
      [{ objects: [{ name: 'O', fields: [{ name: 'ids', type: '[Int!]!' }], relationships: [rel('r', { ids: 'id' })] }] },
        'the type of the field "ids" for relationship "r" in object type "O" is a list type'],
      [{ objects: [{ name: 'O', fields: F, relationships: [rel('r', { id: 'nope' })] }] }, 'the column "nope" of remote table "author" for relationship "r" of object type "O" does not exist'],
    ];
    for (const [args, reason] of cases) await expectError(e, set(args), 400, invalid(args, reason));
    // Object-field arguments: reported, and never part of the definition.
    const args = { objects: [{ name: 'O', fields: [...F, { name: 'f', type: 'Int', arguments: { x: { type: 'Int' } } }] }] };
    await expectError(e, set(args), 400, invalid(args, 'field "f" of object type "O" cannot have arguments',
      { objects: [{ name: 'O', fields: [...F, { name: 'f', type: 'Int' }] }] }));
  });

  it('lists several reasons section by section, element by element (§1.7)', async () => {
    const args = {
      objects: [{ name: 'O', fields: [...F, { name: 'id', type: 'Int' }, { name: 'x', type: 'Nope' }, { name: 'y', type: 'Int', arguments: [{ name: 'a', type: 'Int' }] }],
        relationships: [rel('r', { id: 'id' }), rel('r', { id: 'id' }), rel('y', { z: 'nope' })] }],
      input_objects: [{ name: 'I', fields: [] }],
      enums: [{ name: 'E', values: [] }],
      scalars: [{ name: 'Boolean' }],
    };
    const error = 'validation for the given custom types failed for the following reasons:\n' +
      '  • duplicate type names: "Boolean"\n' +
      '  • the enum type "E" has no values\n' +
      '  • the input object type "I" has no fields\n' +
      '  • the object type "O" has duplicate fields: "id"\n' +
      '  • the type "Nope" for field "x" in object type "O" does not exist\n' +
      '  • field "y" of object type "O" cannot have arguments\n' +
      '  • the object type "O" has duplicate relationships: "r"\n' +
      '  • relationship "y" of object type "O" conflicts with a field of the same name\n' +
      '  • the field "z" for relationship "y" in object type "O" does not exist\n' +
      '  • the column "nope" of remote table "author" for relationship "y" of object type "O" does not exist\n';
    const definition = {
      input_objects: [{ name: 'I', fields: [] }],
      objects: [{ name: 'O', fields: [...F, { name: 'id', type: 'Int' }, { name: 'x', type: 'Nope' }, { name: 'y', type: 'Int' }],
        relationships: [rel('r', { id: 'id' }), rel('r', { id: 'id' }), rel('y', { z: 'nope' })] }],
      scalars: [{ name: 'Boolean' }],
      enums: [{ name: 'E', values: [] }],
    };
    await expectError(e, set(args), 400, { path: '$.args', error, code: 'constraint-violation', internal: [{ definition, reason: error, type: 'custom_types' }] });
  });

  it('leaves earlier custom types in place when the new set is invalid', async () => {
    await write(e, set({ scalars: [{ name: 'Date' }] }));
    const args = { enums: [{ name: 'E', values: [] }] };
    await expectError(e, set(args), 400, invalid(args, 'the enum type "E" has no values'));
    expect((await exported(e)).text).toBe(doc({ scalars: [{ name: 'Date' }] }));
  });
});

describe('custom types that other objects depend on (§3.4 rule 2, §3.5, §7 row 22)', () => {
  const TYPES = { input_objects: [{ name: 'In', fields: [{ name: 'id', type: 'uuid!' }] }], objects: [{ name: 'Out', fields: [{ name: 'id', type: 'Int' }] }] };
  const DEF = { handler: 'http://localhost:3000/a', output_type: 'Out!', arguments: [{ name: 'x', type: 'In' }], kind: 'synchronous' };

  async function withAction(): Promise<void> {
    await write(e, set(TYPES));
    await write(e, { type: 'create_action', args: { name: 'a', definition: DEF, comment: 'c' } });
    await write(e, { type: 'create_action_permission', args: { action: 'a', role: 'user' } });
  }
  const newlyInconsistent = (reason: string) => inconsistentError('cannot continue due to new inconsistent metadata',
    [{ definition: { name: 'a', definition: DEF, comment: 'c' }, reason: `in action "a": ${reason}`, type: 'action' }]);

  it('refuses to remove or change a type an action uses, and changes nothing', async () => {
    await withAction();
    await expectError(e, set({ objects: TYPES.objects }), 400, newlyInconsistent('the type "In" of argument "x" is not a scalar, enum or input object type'));
    await expectError(e, set({ input_objects: TYPES.input_objects, objects: [{ name: 'Out2', fields: [{ name: 'id', type: 'Int' }] }] }), 400,
      newlyInconsistent('the type "Out" is not an object type defined in custom types'));
    await expectError(e, set({ input_objects: TYPES.input_objects, scalars: [{ name: 'Out' }] }), 400,
      newlyInconsistent('the type "Out" is not an object type defined in custom types'));
    await expectError(e, set({}), 400, newlyInconsistent('the type "In" of argument "x" is not a scalar, enum or input object type'));
    // A compatible change is fine.
    await write(e, set({ ...TYPES, scalars: [{ name: 'Extra' }] }));
  });

  it('an invalid set fails by rule 1 with the custom_types record alone while an action exists (§4.6.1, §7 row 51)', async () => {
    await withAction();
    const args = { ...TYPES, enums: [{ name: 'E', values: [] }] };
    await expectError(e, set(args), 400, invalid(args, 'the enum type "E" has no values'));
  });

  it('untracking a table a custom-object relationship uses makes the custom types newly inconsistent', async () => {
    const args = { objects: [{ name: 'O', fields: [{ name: 'id', type: 'Int' }], relationships: [{ name: 'a', type: 'object', remote_table: 'author', field_mapping: { id: 'id' } }] }] };
    await write(e, set(args));
    const definition = { objects: [{ name: 'O', fields: [{ name: 'id', type: 'Int' }], relationships: [{ name: 'a', type: 'object', remote_table: qt('author'), field_mapping: { id: 'id' } }] }] };
    const reason = `${HEAD} because the remote table "author" for relationship "a" of object type "O" does not exist`;
    await expectError(e, { type: 'untrack_table', args: { table: 'author' } }, 400,
      inconsistentError('cannot continue due to new inconsistent metadata', [{ definition, reason, type: 'custom_types' }]));
  });
});
