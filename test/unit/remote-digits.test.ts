import { describe, expect, it } from 'vitest';
import { DIGITS, digitsText, literal, parseKeepingDigits, stringifyKeepingDigits, withoutDigits } from '../../src/server/remote-schemas/literals.js';
import { GraphQLID, GraphQLString, Kind } from 'graphql';

// Issue 35: numbers of JSON text that a JavaScript number would round keep their digits through the remote paths.

describe('parseKeepingDigits', () => {
  it('keeps what JSON.parse would round, leaves safe numbers and strings that look like numbers alone', () => {
    const v = parseKeepingDigits('{"a": 9007199254740993, "b": [1, -2.5, 0.10, 1e3], "c": "9007199254740993", "d": "x\\" 12345678901234567890 \\"", "e": -9223372036854775807}') as Record<string, unknown>;
    expect(v['a']).toBe(`${DIGITS}9007199254740993`);
    expect(v['b']).toEqual([1, -2.5, `${DIGITS}0.10`, `${DIGITS}1e3`]);
    expect(v['c']).toBe('9007199254740993');
    expect(v['d']).toBe('x" 12345678901234567890 "');
    expect(v['e']).toBe(`${DIGITS}-9223372036854775807`);
  });

  it('writes kept numbers back as their digits; errors get plain numbers; parameters the digits as text', () => {
    const text = '{"data":{"n":9007199254740993,"l":[0.10,2],"s":"0.10"}}';
    expect(stringifyKeepingDigits(parseKeepingDigits(text))).toBe(text);
    expect(withoutDigits(parseKeepingDigits('[{"line": 12345678901234567890}]'))).toEqual([{ line: 12345678901234567000 }]);
    expect(digitsText(`${DIGITS}9007199254740993`)).toBe('9007199254740993');
    expect(digitsText('plain')).toBe('plain');
  });

  it('is still JSON.parse for what is not JSON', () => {
    expect(() => parseKeepingDigits('<html>not json</html>')).toThrow(SyntaxError);
    expect(() => parseKeepingDigits('{"a": 12345678901234567890')).toThrow(SyntaxError);
  });
});

describe('literal of kept digits', () => {
  it('is a number for an ID (as the incumbent sends join values), a string for a String', () => {
    expect(literal(`${DIGITS}9007199254740993`, GraphQLID)).toEqual({ kind: Kind.INT, value: '9007199254740993' });
    expect(literal(`${DIGITS}0.10`)).toEqual({ kind: Kind.FLOAT, value: '0.10' });
    expect(literal(`${DIGITS}9007199254740993`, GraphQLString)).toEqual({ kind: Kind.STRING, value: '9007199254740993' });
  });
});
