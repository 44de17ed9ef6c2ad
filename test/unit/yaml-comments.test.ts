import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { carryComments, countYamlComments } from '../../src/project/metadata-dir/yaml-comments.js';
import { renderFiles, toYaml } from '../../src/project/metadata-dir/export.js';
import type { MetadataFileKey } from '../../src/project/metadata-dir/build.js';
import type { JsonObject } from '../../src/metadata/json.js';

const table = (name: string, extra: JsonObject = {}, schema = 'public'): JsonObject => ({ table: { name, schema }, ...extra });
const perm = (role: string): JsonObject => ({ role, permission: { columns: ['id'], filter: {} } });

/** carryComments on the toYaml text of `value`, checked to be idempotent. */
function carry(value: unknown, existing: string): { text: string; dropped: number } {
  const r = carryComments(toYaml(value), existing);
  const again = carryComments(toYaml(value), r.text);
  expect(again).toEqual({ text: r.text, dropped: 0 });
  return r;
}

describe('carryComments (cli.md §4.10)', () => {
  it('keeps the header (comment block at the top followed by a blank line)', () => {
    const old = '# Tables of the app.\n#   see README\n\n# second block\n\n- table:\n    name: a\n    schema: public\n';
    const r = carry([table('b'), table('a')], old);
    expect(r).toEqual({ text: `# Tables of the app.\n#   see README\n\n# second block\n\n${toYaml([table('b'), table('a')])}`, dropped: 0 });
  });

  it('moves a comment above a table entry with the entry when tables are reordered and added', () => {
    const old = [
      '# about b',
      '- table:',
      '    name: b',
      '    schema: public',
      '# about a',
      '#   two lines',
      '- table: a',
      '',
    ].join('\n');
    const r = carry([table('a'), table('c', {}, 'other'), table('b')], old);
    expect(r.dropped).toBe(0);
    expect(r.text).toBe([
      '# about a',
      '#   two lines',
      '- table:',
      '    name: a',
      '    schema: public',
      '- table:',
      '    name: c',
      '    schema: other',
      '# about b',
      '- table:',
      '    name: b',
      '    schema: public',
      '',
    ].join('\n'));
  });

  it('matches tables by schema and name, not by name alone', () => {
    const old = '# other.a\n- table: {schema: other, name: a}\n';
    const r = carry([table('a'), table('a', {}, 'other')], old);
    expect(r.text).toBe('- table:\n    name: a\n    schema: public\n# other.a\n- table:\n    name: a\n    schema: other\n');
  });

  it('matches permissions by role and keys by path', () => {
    const old = [
      '- table: t',
      '  # reads',
      '  select_permissions:',
      '    # the user',
      '    - role: user',
      '      permission:',
      '        # only the id',
      '        columns: [id]',
      '        filter: {}',
      '    # the admin',
      '    - role: admin',
      '      permission: {columns: [id], filter: {}}',
      '',
    ].join('\n');
    const r = carry([table('t', { select_permissions: [perm('admin'), perm('editor'), perm('user')] })], old);
    expect(r.dropped).toBe(0);
    expect(r.text).toBe([
      '- table:',
      '    name: t',
      '    schema: public',
      '  # reads',
      '  select_permissions:',
      '    # the admin',
      '    - role: admin',
      '      permission:',
      '        columns:',
      '          - id',
      '        filter: {}',
      '    - role: editor',
      '      permission:',
      '        columns:',
      '          - id',
      '        filter: {}',
      '    # the user',
      '    - role: user',
      '      permission:',
      '        # only the id',
      '        columns:',
      '          - id',
      '        filter: {}',
      '',
    ].join('\n'));
  });

  it('keeps trailing comments on the node ending on their line', () => {
    const old = [
      '- table:   # the table key',
      '    name: users # users!',
      '    schema: public',
      '  select_permissions: # perms',
      '    - role: user',
      '      permission:',
      '        columns: [id, name] # visible',
      '        filter: {}',
      '',
    ].join('\n');
    const value = [table('users', { select_permissions: [perm('user')] })];
    const r = carry(value, old);
    expect(r.dropped).toBe(0);
    expect(r.text).toBe([
      '- table: # the table key',
      '    name: users # users!',
      '    schema: public',
      '  select_permissions: # perms',
      '    - role: user',
      '      permission:',
      '        columns: # visible',
      '          - id',
      '        filter: {}',
      '',
    ].join('\n'));
  });

  it('matches scalar items by value and allow-list items by collection', () => {
    const r = carry([{ collection: 'b' }, { collection: 'a' }], '- collection: a # first\n# about b\n- collection: b\n');
    expect(r.text).toBe('# about b\n- collection: b\n- collection: a # first\n');
    const cols = carry({ columns: ['b', 'c', 'a'] }, 'columns:\n  - a # A\n  # B\n  - b\n');
    expect(cols.text).toBe('columns:\n  # B\n  - b\n  - c\n  - a # A\n');
  });

  it('drops and counts the comments of removed objects', () => {
    const old = [
      '# header',
      '',
      '# about a',
      '- table: a',
      '  # the view',
      '  select_permissions:',
      '    - role: viewer # gone',
      '      permission: {columns: [], filter: {}}',
      '# about b',
      '- table: b # bee',
      '',
    ].join('\n');
    const r = carryComments(toYaml([table('a')]), old);
    expect(r).toEqual({ text: `# header\n\n# about a\n${toYaml([table('a')])}`, dropped: 4 });
  });

  it('drops a comment that has a blank line below it', () => {
    const old = '- table: a\n# loose\n\n- table: b\n# at the end\n';
    const r = carryComments(toYaml([table('a'), table('b')]), old);
    expect(r).toEqual({ text: toYaml([table('a'), table('b')]), dropped: 2 });
  });

  it('keeps the comments of actions.yaml by action name', () => {
    const old = [
      'actions:',
      '  # creates a user',
      '  - name: createUser',
      '    definition:',
      '      kind: synchronous',
      '      handler: http://x/create # local',
      'custom_types:',
      '  enums: []',
      '  input_objects: []',
      '  objects: []',
      '  scalars: []',
      '',
    ].join('\n');
    const value = {
      actions: [
        { name: 'a', definition: { kind: 'synchronous', handler: 'http://x/a' } },
        { name: 'createUser', definition: { kind: 'synchronous', handler: 'http://y/create' } },
      ],
      custom_types: { enums: [], input_objects: [], objects: [], scalars: [] },
    };
    const r = carry(value, old);
    expect(r.dropped).toBe(0);
    expect(r.text).toContain('  # creates a user\n  - name: createUser\n    definition:\n      kind: synchronous\n      handler: http://y/create # local\n');
  });

  it('drops every comment of an unparsable file except the header', () => {
    const r = carryComments(toYaml([table('a')]), '# h\n\n# x\n- table: a\n  bad: [\n');
    expect(r).toEqual({ text: `# h\n\n${toYaml([table('a')])}`, dropped: 1 });
  });

  it('leaves output without comments byte-identical to toYaml', () => {
    const value = [table('a', { select_permissions: [perm('u')], configuration: { custom_root_fields: {} } }), table('b')];
    expect(carryComments(toYaml(value), undefined).text).toBe(toYaml(value));
    expect(carryComments(toYaml(value), toYaml([table('x')])).text).toBe(toYaml(value));
    expect(carryComments(toYaml(value), 'desc: |\n  # not a comment\n').text).toBe(toYaml(value));
  });

  it('is idempotent and loses nothing on arbitrary comment placements (property)', () => {
    const base = toYaml([
      table('a', { select_permissions: [perm('x'), perm('y')], description: 'multi\nline' }),
      table('b', { insert_permissions: [perm('z')] }),
    ]);
    const baseLines = base.trimEnd().split('\n');
    fc.assert(fc.property(
      fc.array(fc.tuple(fc.nat(baseLines.length - 1), fc.boolean(), fc.constantFrom('# c1', '# c2 # x', '#')), { maxLength: 6 }),
      (edits) => {
        const lines = [...baseLines];
        for (const [at, trailing, c] of edits) {
          const l = lines[at] as string;
          if (trailing && !l.includes('#') && !/^\s+(multi|line)$/.test(l)) lines[at] = `${l} ${c}`;
          else if (!trailing) lines.splice(at, 0, c);
        }
        const old = `${lines.join('\n')}\n`;
        const value = [table('b', { insert_permissions: [perm('z')] }), table('a', { select_permissions: [perm('y'), perm('x')], description: 'multi\nline' })];
        const once = carryComments(toYaml(value), old);
        expect(countYamlComments(once.text) + once.dropped).toBe(countYamlComments(old));
        expect(carryComments(toYaml(value), once.text)).toEqual({ text: once.text, dropped: 0 });
      },
    ), { numRuns: 200 });
  });
});

describe('renderFiles with existing files', () => {
  const doc: JsonObject = { version: 2, tables: [table('a'), table('b')], functions: [{ function: { name: 'f', schema: 'public' } }] };

  it('is unchanged without existing files and carries comments per file', () => {
    const plain = renderFiles(doc);
    expect(plain.get('tables')).toBe(toYaml(doc['tables']));
    expect(plain.get('cronTriggers')).toBeUndefined();
    const existing = new Map<MetadataFileKey, string>([
      ['version', '# version\nversion: 2\n'],
      ['tables', '# b\n- table: b\n# gone\n- table: gone\n'],
      ['functions', '- function: f # eff\n'],
      ['cronTriggers', '# Cron triggers.\n\n[]\n'],
      ['remoteSchemas', '# loose\n[]\n# gone\n'],
    ]);
    const drops: [string, number][] = [];
    const files = renderFiles(doc, existing, (n, file) => drops.push([file, n]));
    expect(files.get('version')).toBe('# version\nversion: 2\n');
    expect(files.get('tables')).toBe('- table:\n    name: a\n    schema: public\n# b\n- table:\n    name: b\n    schema: public\n');
    expect(files.get('functions')).toBe('- function: # eff\n    name: f\n    schema: public\n');
    expect(files.get('cronTriggers')).toBe('# Cron triggers.\n\n[]\n');
    expect(files.get('remoteSchemas')).toBe('# loose\n[]\n');
    expect(drops).toEqual([['tables.yaml', 1], ['remote_schemas.yaml', 1]]);
    expect(renderFiles(doc, new Map([...existing].map(([k]) => [k, files.get(k) ?? '']) as [MetadataFileKey, string][]), (n) => {
      throw new Error(`dropped ${n}`);
    })).toEqual(files);
  });
});
