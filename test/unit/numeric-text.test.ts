import { describe, expect, it } from 'vitest';
import { binaryNumericText, scientificShow } from '../../src/server/graphql/compile/numeric-text.js';

// The incumbent's two encodings of a numeric value, which decide the scale PostgreSQL keeps (issue 30).
describe('numeric text as the incumbent sends it', () => {
  it('GraphQL mutations: Haskell show of a Scientific', () => {
    const cases: [string, string][] = [
      ['-1.1', '-1.1'], ['-1E-30', '-1.0e-30'], ['1.234', '1.234'], ['5', '5.0'], ['0', '0.0'], ['-0.0', '0.0'],
      ['0.5', '0.5'], ['0.05', '5.0e-2'], ['12345678', '1.2345678e7'], ['1234567', '1234567.0'], ['123.4500', '123.45'],
      ['1e3', '1000.0'], ['2.5E+1', '25.0'], ['not a number', 'not a number'],
    ];
    for (const [text, shown] of cases) expect([text, scientificShow(text)]).toEqual([text, shown]);
  });

  it('data queries: the written scale rounded up to a multiple of 4', () => {
    const cases: [string, string][] = [
      ['12345.67', '12345.6700'], ['-1.1', '-1.1000'], ['1.2345', '1.2345'], ['1.23456', '1.23456000'], ['0.0001', '0.0001'], ['12', '12'],
      ['1e3', '1000'], ['1e-7', '0.00000010'], ['-0', '0'],
    ];
    for (const [text, sent] of cases) expect([text, binaryNumericText(text)]).toEqual([text, sent]);
  });
});
