import { describe, expect, it } from 'vitest';
import { Problems } from '../../src/project/problems.js';
import { parseYaml } from '../../src/project/yaml-source.js';

// Issue 19 item 7: items written below an inline `[]` are one error with what to do, not the parser's cascade.

const parse = (text: string) => {
  const problems = new Problems();
  const src = parseYaml('metadata/tables.yaml', text, problems);
  return { src, list: problems.list };
};

const ITEMS = `    - role: user
      permission:
        columns:
          - id
          - title
        filter:
          author_id:
            _eq: X-Engine-User-Id
    - role: editor
      permission:
        columns: [id]
        filter: {}
`;

describe('YAML after an inline empty list or mapping', () => {
  it('one error at the first indented line, naming the key and the fix', () => {
    const r = parse(`- table:\n    schema: public\n    name: article\n  select_permissions: []\n${ITEMS}- table:\n    schema: public\n    name: author\n`);
    expect(r.src).toBeNull();
    expect(r.list).toEqual([{
      severity: 'error', code: 'yaml-parse-error', file: 'metadata/tables.yaml', line: 5, column: 5,
      message: '"select_permissions: []" on line 4 is already complete (an empty list), so the indented lines after it belong to nothing; remove the "[]" to make them its content',
    }]);
  });

  it('the same for {} with a comment line in between', () => {
    const r = parse('- table:\n    schema: public\n    name: article\n  configuration: {}\n  # custom names\n    custom_name: art\n');
    expect(r.list).toHaveLength(1);
    expect(r.list[0]).toMatchObject({ line: 6, column: 5, message: expect.stringContaining('"configuration: {}" on line 4 is already complete (an empty mapping)') });
  });

  it('without the fix applied, the file is valid', () => {
    const r = parse(`- table:\n    schema: public\n    name: article\n  select_permissions:\n${ITEMS}`);
    expect(r.list).toEqual([]);
    expect(r.src?.value).toMatchObject([{ select_permissions: [{ role: 'user' }, { role: 'editor' }] }]);
  });

  it('other syntax errors are reported as before', () => {
    const r = parse('- table:\n    schema: public\n   name: [article\n');
    expect(r.list.length).toBeGreaterThan(0);
    expect(r.list[0]?.message).not.toContain('already complete');
  });
});
