import { describe, expect, it } from 'vitest';
import { elements, members, valueEnd } from '../../src/server/graphql/subscriptions/json-text.js';
import { CURSOR_FIELD, nextBatch, type StreamSpec } from '../../src/server/graphql/subscriptions/stream.js';

// Issue 32.4: a stream's rows are taken apart as text, so that every value goes on exactly as the service wrote it.

describe('json-text', () => {
  it('reads members and elements as written: big numbers, escapes, nesting, PostgreSQL\'s spacing', () => {
    const t = '{"a" : 9007199254740993, "b\\"" : "x\\\\", "c": [1, {"d": "]}"}], "e":null}';
    expect(members(t)).toEqual([
      { key: 'a', value: '9007199254740993' }, { key: 'b"', value: '"x\\\\"' }, { key: 'c', value: '[1, {"d": "]}"}]' }, { key: 'e', value: 'null' },
    ]);
    expect(elements('[ 1 , "a,b" , {"x":[2]} ]')).toEqual(['1', '"a,b"', '{"x":[2]}']);
    expect(elements('[]')).toEqual([]);
    expect(members('{}')).toEqual([]);
    expect(valueEnd('"a\\"b" tail', 0)).toBe(6);
  });

  it('refuses what is not JSON of the expected shape', () => {
    expect(() => members('[1]')).toThrow('not a JSON object');
    expect(() => elements('{"a":1}')).toThrow('not a JSON array');
    expect(() => members('{"a":1')).toThrow();
  });
});

describe('nextBatch', () => {
  const spec = (batchSize: number): StreamSpec => ({ key: 's', batchSize, initial: '0', after: (c) => `after ${c}`, at: (c) => `at ${c}` });
  const body = (rows: string[]) => `{"data":{"s":[${rows.join(', ')}]}}`;
  const row = (id: number, cursor: string) => `{"id" : ${id}, "big" : 9007199254740993, "${CURSOR_FIELD}" : ${cursor}}`;
  const never = async (): Promise<string> => { throw new Error('no ties query expected'); };

  it('an empty batch sends nothing; an error answer is an error', async () => {
    expect(await nextBatch(spec(2), body([]), never)).toBe('empty');
    expect(await nextBatch(spec(2), '{"data":{"s":null}}', never)).toBe('empty');
    expect(await nextBatch(spec(2), '{"errors":[{"message":"x"}]}', never)).toBe('error');
  });

  it('a batch under its size: the rows without the cursor, digits kept, the last cursor as written', async () => {
    expect(await nextBatch(spec(3), body([row(1, '"2020-01-01T00:00:00+00:00"'), row(2, '"2020-01-02T00:00:00+00:00"')]), never)).toEqual({
      out: '{"data":{"s":[{"id":1,"big":9007199254740993},{"id":2,"big":9007199254740993}]}}', last: '"2020-01-02T00:00:00+00:00"',
    });
  });

  it('a full batch is completed with every row of its last cursor value', async () => {
    const asked: string[] = [];
    const ties = async (text: string): Promise<string> => {
      asked.push(text);
      return body([row(2, '5'), row(3, '5'), row(4, '5')]);
    };
    expect(await nextBatch(spec(2), body([row(1, '4'), row(3, '5')]), ties)).toEqual({
      out: '{"data":{"s":[{"id":1,"big":9007199254740993},{"id":2,"big":9007199254740993},{"id":3,"big":9007199254740993},{"id":4,"big":9007199254740993}]}}',
      last: '5',
    });
    expect(asked).toEqual(['at 5']);
  });
});
