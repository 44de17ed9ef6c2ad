import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonText, NumLit, parseJsonDigits } from '../../src/server/graphql/compile/index.js';

// The stored input of an asynchronous action is read back from PostgreSQL's jsonb text with each number's digits
// kept (graphql/action-output.ts storedInputText): the handler must receive 9007199254740993, not …992.

describe('parseJsonDigits', () => {
  it('keeps the written digits of numbers and reads PostgreSQL\'s jsonb text', () => {
    const v = parseJsonDigits('{"a": 9007199254740993, "b": [1.50, -2e3, true, null], "c": {"d": "x\\"y\\\\ \\u00e9"}}');
    expect(v).toEqual({ a: new NumLit('9007199254740993'), b: [new NumLit('1.50'), new NumLit('-2e3'), true, null], c: { d: 'x"y\\ é' } });
    expect(jsonText(v)).toBe('{"a":9007199254740993,"b":[1.50,-2e3,true,null],"c":{"d":"x\\"y\\\\ é"}}');
  });

  it('keeps "__proto__" as an own key and reads empty containers', () => {
    const v = parseJsonDigits('{"__proto__": {"x": 1}, "e": {}, "l": []}') as Record<string, unknown>;
    expect(Object.keys(v)).toEqual(['__proto__', 'e', 'l']);
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(jsonText(v as never)).toBe('{"__proto__":{"x":1},"e":{},"l":[]}');
  });

  it('reads back what JSON.stringify writes, for any JSON value', () => {
    fc.assert(fc.property(fc.jsonValue(), (x) => {
      const text = JSON.stringify(x);
      expect(JSON.parse(jsonText(parseJsonDigits(text)))).toEqual(JSON.parse(text));
    }));
  });

  it('fails on what is not JSON', () => {
    expect(() => parseJsonDigits('{"a": nope}')).toThrow('not JSON at 6');
  });
});
