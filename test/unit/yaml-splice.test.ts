import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { jsonEqual } from '../../src/metadata/diff.js';
import { detectStyle, renderYaml, spliceYaml } from '../../src/project/metadata-dir/yaml-splice.js';

/** Issue 29 point 7: the text-level edits of export, on values where the file's form is the canonical one. */

const splice = (text: string, next: unknown) => spliceYaml(text, parse(text), next, (t) => jsonEqual(parse(t), next));

describe('renderYaml', () => {
  it("quotes what YAML 1.1 reads as a boolean, keys and values alike; reads back the same", () => {
    const v = { y: 'n', yes: ['no', 'on', 'off', 'Y', 'x'], columns: ['id', 'y'] };
    const text = renderYaml(v);
    expect(text).toBe('"y": "n"\n"yes":\n  - "no"\n  - "on"\n  - "off"\n  - "Y"\n  - x\ncolumns:\n  - id\n  - "y"\n');
    expect(parse(text)).toEqual(v);
  });
});

describe('detectStyle', () => {
  it('finds the indentation, sequence indentation and quotes of a file', () => {
    expect(detectStyle("- a:\n  - 'x'\n  b:\n    c: 1\n")).toEqual({ indent: 2, indentSeq: false, singleQuote: true });
    expect(detectStyle('a:\n    b:\n        - "x"\n')).toEqual({ indent: 4, indentSeq: true, singleQuote: false });
  });
});

describe('spliceYaml', () => {
  const text = [
    '# header',
    '',
    '- name: a   # first',
    '  list:',
    '  - 1',
    '  - 2',
    '  flow: [x, y]',
    '  quoted: \'k\'',
    '- name: b',
    '  keep: false',
    '',
  ].join('\n');

  it('no change: the same bytes', () => {
    expect(splice(text, parse(text))).toEqual({ text, dropped: 0 });
  });

  it('a changed scalar keeps its quotes; a flow list stays flow; comments elsewhere stay', () => {
    const v = parse(text);
    v[0].quoted = 'l';
    v[0].flow = ['x', 'y', 'z'];
    // `y` is quoted (a YAML 1.1 boolean), in the file's single quotes.
    expect(splice(text, v)?.text).toBe(text.replace("quoted: 'k'", "quoted: 'l'").replace('[x, y]', "[ x, 'y', z ]"));
    v[0].flow = ['x', 'z'];
    expect(splice(text, v)?.text).toBe(text.replace("quoted: 'k'", "quoted: 'l'").replace('[x, y]', '[x, z]'));
  });

  it('removed and added items and keys, in the file style (sequences not indented)', () => {
    const v = parse(text);
    v[0].list = [2, 3];
    v[1].more = ['p', 'q'];
    v.push({ name: 'c' });
    const out = splice(text, v)?.text;
    expect(out).toBe(text.replace('  - 1\n  - 2\n', '  - 2\n  - 3\n').replace('  keep: false\n', '  keep: false\n  more:\n  - p\n  - q\n- name: c\n'));
  });

  it('an item removed takes the comment lines above it, counted', () => {
    const t = '- name: a\n# about b\n- name: b\n';
    expect(splice(t, [{ name: 'a' }])).toEqual({ text: '- name: a\n', dropped: 1 });
  });

  it('a text that would not mean the new value is refused (the caller rewrites the file)', () => {
    expect(spliceYaml('- a: 1\n', [{ a: 1 }], [{ a: 2 }], () => false)).toBeNull();
  });
});
