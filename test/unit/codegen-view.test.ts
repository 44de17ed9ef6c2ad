import { describe, expect, it } from 'vitest';
import { availableFrameworks, codegenView, loadFramework, TEMPLATES_DIR } from '../../src/project/actions/codegen.js';
import { renderTemplate } from '../../src/project/actions/mustache.js';

describe('mustache (cli.md §7.2: variables, sections, inverted sections, no HTML escaping)', () => {
  it('renders variables without escaping, dotted names and the implicit iterator', () => {
    expect(renderTemplate('{{a}} {{{a}}} {{&a}} {{b.c}} {{missing}}|', { a: '<&"\'>', b: { c: 1 } })).toBe('<&"\'> <&"\'> <&"\'> 1 |');
    expect(renderTemplate('{{#xs}}{{.}},{{/xs}}', { xs: [1, 2] })).toBe('1,2,');
  });

  it('iterates lists, skips falsy sections, renders inverted ones, looks names up the context stack', () => {
    const view = { name: 'outer', items: [{ name: 'a', last: false }, { name: 'b', last: true }], none: [], flag: true, zero: 0 };
    expect(renderTemplate('{{#items}}{{name}}{{^last}}, {{/last}}{{/items}}', view)).toBe('a, b');
    expect(renderTemplate('{{#none}}x{{/none}}{{^none}}empty{{/none}}{{#flag}}{{name}}{{/flag}}{{#zero}}z{{/zero}}', view)).toBe('emptyouter');
    expect(renderTemplate('{{#items.length}}{{items.length}} items{{/items.length}}', view)).toBe('2 items');
  });

  it('removes standalone tag lines, comments, and supports set delimiters', () => {
    expect(renderTemplate('a\n  {{#xs}}\n  - {{.}}\n  {{/xs}}\n{{! note }}\nb\n', { xs: ['x', 'y'] })).toBe('a\n  - x\n  - y\nb\n');
    expect(renderTemplate('{{=<% %>=}}\n{{literal}} <%v%>\n', { v: 1 })).toBe('{{literal}} 1\n');
  });

  it('reports unbalanced sections', () => {
    expect(() => renderTemplate('{{#a}}', {})).toThrow(/unclosed section "a"/);
    expect(() => renderTemplate('{{#a}}{{/b}}', {})).toThrow(/unexpected closing tag "b"/);
  });
});

describe('codegen view', () => {
  it('finds the templates of the package from src/ as from dist/', () => {
    expect(TEMPLATES_DIR).toMatch(/[/\\]templates[/\\]$/);
    expect(availableFrameworks()).toEqual(['javascript-node-http', 'typescript-express', 'typescript-fastify']);
    expect(loadFramework('typescript-express')?.files).toEqual([{ template: 'handler.ts.mustache', output: '{{name}}.ts' }]);
    expect(loadFramework('..')).toBeNull();
  });

  const customTypes = {
    input_objects: [{ name: 'In', fields: [{ name: 'tags', type: '[String]!' }, { name: 'at', type: 'timestamptz' }, { name: 'e', type: 'Color' }] }],
    objects: [{ name: 'Out', fields: [{ name: 'id', type: 'Int!' }, { name: 'ok', type: 'Boolean' }, { name: 'c', type: 'Color!' }, { name: 'j', type: 'json' },
      { name: 'at', type: 'timestamptz!' }, { name: 'x', type: 'Custom!' }] }],
    scalars: [{ name: 'json' }],
    enums: [{ name: 'Color', values: [{ value: 'RED' }, { value: 'GREEN' }] }, { name: 'Unused', values: [{ value: 'X' }] }],
  };
  const action = (output: string) => ({ name: 'doIt', definition: { handler: '{{BASE}}/doIt', output_type: output, arguments: [{ name: 'in', type: 'In!' }, { name: 'n', type: 'Float' }], kind: 'synchronous' } });

  it('derives TypeScript types, reachable types and the sample output', () => {
    const v = codegenView(action('Out!'), customTypes, '9.9.9');
    expect(v).toMatchObject({ name: 'doIt', Name: 'DoIt', type: 'mutation', kind: 'synchronous', handler: '{{BASE}}/doIt', cliVersion: '9.9.9' });
    expect(v.arguments).toEqual([
      { name: 'in', graphqlType: 'In!', tsType: 'In', optional: false, last: false },
      { name: 'n', graphqlType: 'Float', tsType: 'number | null', optional: true, last: true },
    ]);
    expect(v.outputType).toEqual({ name: 'Out', graphqlType: 'Out!', tsType: 'Out', isList: false });
    expect(v.inputObjects.map((t) => t.name)).toEqual(['In']);
    expect(v.inputObjects[0]?.fields.map((f) => f.tsType)).toEqual(['Array<string | null>', 'timestamptz | null', 'Color | null']);
    expect(v.objects.map((t) => t.name)).toEqual(['Out']);
    expect(v.enums).toEqual([{ name: 'Color', values: [{ value: 'RED', last: false }, { value: 'GREEN', last: true }], tsUnion: '"RED" | "GREEN"' }]);
    expect(v.scalars).toEqual([
      { name: 'Custom', about: 'any JSON value', jsType: 'string | number | boolean | null | Array<unknown> | { [key: string]: unknown }', tsType: 'string | number | boolean | null | Custom[] | { [key: string]: Custom }' },
      { name: 'json', about: 'any JSON value', jsType: 'string | number | boolean | null | Array<unknown> | { [key: string]: unknown }', tsType: 'string | number | boolean | null | json[] | { [key: string]: json }' },
      { name: 'timestamptz', about: 'a string', jsType: 'string', tsType: 'string' },
    ]);
    // Non-null scalars sample as a value: the engine refuses null for them (engine-api.md §5.2.2).
    expect(JSON.parse(v.sampleOutput)).toEqual({ id: 0, ok: false, c: 'RED', j: null, at: '1970-01-01T00:00:00Z', x: '' });
  });

  it('a list output samples as [] and is a list', () => {
    const v = codegenView(action('[Out!]!'), customTypes, '1');
    expect(v.outputType).toEqual({ name: 'Out', graphqlType: '[Out!]!', tsType: 'Array<Out>', isList: true });
    expect(v.sampleOutput).toBe('[]');
  });
});
