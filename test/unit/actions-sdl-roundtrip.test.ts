import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { JsonObject } from '../../src/metadata/json.js';
import { splitActions } from '../../src/project/metadata-dir/actions-sdl.js';
import { LOGIN_YAML, merge, ok, RICH_SDL, RICH_YAML, roundTrip, TEMPLATE, yamlText } from './actions-sdl-fixtures.js';

// build(export(build(x))) = build(x) for the example files and for generated metadata.

describe('round trip: build(export(build(x))) = build(x)', () => {
  it.each([
    ['the §4.6 example', TEMPLATE('login'), LOGIN_YAML],
    ['the §7.1 template with another name', TEMPLATE('signUp'), 'actions: [{name: signUp, definition: {handler: "http://x"}}]\n'],
    ['the rich example', RICH_SDL, RICH_YAML],
    ['custom types only', 'enum E { A B @deprecated }\ninput I { e: E }\n', null],
    ['empty files', '', null],
  ])('%s', (_, sdl, yaml) => {
    const { r } = merge(sdl, yaml);
    const again = roundTrip(r, sdl);
    expect(JSON.stringify([again.actions, again.custom_types])).toBe(JSON.stringify([r.actions, r.custom_types]));
    // Exporting again writes the same bytes.
    const first = splitActions(r.actions, r.custom_types ?? undefined, sdl);
    const second = splitActions(again.actions, again.custom_types ?? undefined, first.sdl);
    expect(second.sdl).toBe(first.sdl);
    expect(second.yaml).toEqual(first.yaml);
  });

  it('holds for generated metadata: build(export(M)) = M in canonical form (property)', () => {
    const reserved = ['true', 'false', 'null', 'String', 'Int', 'Float', 'Boolean', 'ID', 'Mutation', 'Query', 'Subscription', 'Zenum', 'Zinput', 'Zscalar'];
    const name = fc.stringMatching(/^[_A-Za-z][_0-9A-Za-z]{0,6}$/).filter((n) => !reserved.includes(n));
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 12 }),
      fc.array(fc.constantFrom(' ', '  ', '\n', '\t', '"', '"""', '\\', 'a', 'b c', '\r\n', '\r', '#'), { maxLength: 8 }).map((x) => x.join('')),
    );
    const desc = fc.option(text, { nil: undefined });
    const d = (v: string | undefined): JsonObject => (v === undefined ? {} : { description: v });
    const ref = (named: fc.Arbitrary<string>) => fc.tuple(named, fc.array(fc.integer({ min: 0, max: 2 }), { maxLength: 3 }))
      .map(([t, mods]) => mods.reduce((x, m) => (m === 0 ? (x.endsWith('!') ? x : `${x}!`) : m === 1 ? `[${x}]` : x), t));
    const field = (types: string[]) => fc.record({ name, type: ref(fc.constantFrom(...types)), description: desc });
    const fieldsJson = (fs: { name: string; type: string; description: string | undefined }[]) =>
      fs.filter((f, i) => fs.findIndex((g) => g.name === f.name) === i).map((f) => ({ name: f.name, type: f.type, ...d(f.description) }));
    const arb = fc.record({
      objects: fc.uniqueArray(fc.record({ name, description: desc, fields: fc.array(field(['Int', 'String', 'uuid', 'Zenum', 'Zscalar']), { minLength: 1, maxLength: 3 }) }),
        { minLength: 1, maxLength: 3, selector: (o) => o.name }),
      input: fc.array(field(['Int', 'Zinput', 'Zenum', 'jsonb']), { minLength: 1, maxLength: 2 }),
      values: fc.uniqueArray(fc.record({ value: name, description: desc, deprecated: fc.boolean() }), { minLength: 1, maxLength: 3, selector: (v) => v.value }),
      scalar: desc,
      actions: fc.uniqueArray(fc.record({
        name, output: fc.nat(), list: fc.boolean(), args: fc.array(field(['Int', 'Zinput', 'Zenum', 'uuid']), { maxLength: 2 }),
        kind: fc.constantFrom('synchronous', 'asynchronous'), timeout: fc.option(fc.integer({ min: 1, max: 99 }), { nil: undefined }),
        // (multi-line YAML strings are the YAML writer's business: yaml v2 loses " \n")
        comment: fc.option(fc.string({ maxLength: 12 }), { nil: undefined }), roles: fc.uniqueArray(name, { maxLength: 2 }),
      }), { maxLength: 3, selector: (a) => a.name }),
    });
    const byN = (x: { name: string }, y: { name: string }) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0);
    fc.assert(fc.property(arb, (m) => {
      const objects = [...m.objects].sort(byN).map((o) => ({ name: o.name, ...d(o.description), fields: fieldsJson(o.fields) }));
      const customTypes: JsonObject = {
        input_objects: [{ name: 'Zinput', fields: fieldsJson(m.input) }],
        objects,
        scalars: [{ name: 'Zscalar', ...d(m.scalar) }],
        enums: [{ name: 'Zenum', values: m.values.map((v) => ({ value: v.value, ...d(v.description), ...(v.deprecated ? { is_deprecated: true } : {}) })) }],
      };
      const actions: JsonObject[] = m.actions.filter((a) => !objects.some((o) => o.name === a.name)).sort(byN).map((a) => {
        const out = (objects[a.output % objects.length] as { name: string }).name;
        const args = fieldsJson(a.args);
        return {
          name: a.name,
          definition: {
            handler: `http://h/${a.name}`, output_type: a.list ? `[${out}!]!` : out, ...(args.length > 0 ? { arguments: args } : {}),
            kind: a.kind, ...(a.timeout !== undefined && a.timeout !== 30 ? { timeout: a.timeout } : {}),
          },
          ...(a.comment !== undefined ? { comment: a.comment } : {}),
          ...(a.roles.length > 0 ? { permissions: [...a.roles].sort().map((role) => ({ role })) } : {}),
        };
      });
      const split = splitActions(actions, customTypes);
      const r = ok(split.sdl, yamlText(split.yaml));
      expect(JSON.stringify([r.actions, r.custom_types])).toBe(JSON.stringify([actions, customTypes]));
      const again = roundTrip(r, split.sdl);
      expect(JSON.stringify([again.actions, again.custom_types])).toBe(JSON.stringify([r.actions, r.custom_types]));
    }), { numRuns: 300, seed: 42 });
  });
});

// Issue 12 item 4: query actions (`type Query` in actions.graphql, `type: query` / `kind: ""` in the incumbent's
// actions.yaml) and action outputs whose fields nest other object types.
describe('query actions and nested output types', () => {
  const sdl = [
    '# Reads the user, through the handler.',
    'type Query {',
    '  currentUser(token: String!): UserInfo',
    '}',
    '',
    'type Mutation {',
    '  login(username: String!): UserInfo',
    '}',
    '',
    'type Address {',
    '  city: String',
    '}',
    '',
    'type UserInfo {',
    '  id: Int!',
    '  address: Address',
    '}',
    '',
  ].join('\n');
  const yaml = 'actions:\n  - name: currentUser\n    definition:\n      kind: ""\n      handler: "http://h/user"\n      type: query\n  - name: login\n    definition:\n      handler: "http://h/login"\n';

  it('builds query actions as such, and writes them back under type Query', () => {
    const { r, problems } = merge(sdl, yaml);
    expect(problems.filter((p) => p.severity === 'error')).toEqual([]);
    expect(r.actions).toEqual([
      { name: 'currentUser', definition: { handler: 'http://h/user', output_type: 'UserInfo', arguments: [{ name: 'token', type: 'String!' }], kind: '', type: 'query' } },
      { name: 'login', definition: { handler: 'http://h/login', output_type: 'UserInfo', arguments: [{ name: 'username', type: 'String!' }], kind: 'synchronous' } },
    ]);
    const out = splitActions(r.actions, r.custom_types ?? undefined, sdl);
    expect(out.sdl).toContain('# Reads the user, through the handler.\ntype Query {\n  currentUser(token: String!): UserInfo\n}');
    expect(out.sdl).toContain('type Mutation {\n  login(username: String!): UserInfo\n}');
    expect(out.sdl).toContain('type UserInfo {\n  id: Int!\n  address: Address\n}');
    const again = roundTrip(r, sdl);
    expect(again.actions).toEqual(r.actions);
  });

  it('refuses a name used by a query action and a mutation action alike', () => {
    const { problems } = merge('type Query { a: O }\ntype Mutation { a: O }\ntype O { x: Int }\n', 'actions: [{name: a, definition: {handler: "http://x"}}]\n');
    expect(problems.map((p) => `${p.code} ${p.line}:${p.column}`)).toContain('duplicate-object 2:17');
  });
});
