/**
 * `engine test`'s checks and reports (issue 33 points 2 and 3): expectations against responses, the expected/actual
 * diff, the JUnit XML, and the permission coverage matrix.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/metadata/json.js';
import { coverage, renderCoverage } from '../../src/project/test/coverage.js';
import { jsonDiff, lineDiff } from '../../src/project/test/diff.js';
import { atPath, check, jsonEqual } from '../../src/project/test/expect.js';
import type { TestCase } from '../../src/project/test/format.js';
import { caseLine, failureDetails, junitReport, summaryLine } from '../../src/project/test/reporters.js';
import { operationOf, summarise, type CaseResult } from '../../src/project/test/runner.js';

describe('check', () => {
  const data = { article: [{ id: 1, title: 'a', author: { name: 'Ann' } }, { id: 2, title: 'b', author: { name: 'Bob' } }] };

  it('passes exact data whatever the key order, and fails with expected and actual', () => {
    expect(check({ data: { article: [{ title: 'a', id: 1, author: { name: 'Ann' } }, { author: { name: 'Bob' }, title: 'b', id: 2 }] } }, { data })).toEqual([]);
    expect(check({ data: { article: [] } }, { data })).toEqual([{ message: 'data differs', expected: { article: [] }, actual: data }]);
  });

  it('matches rows partially by path, lists flattened along it', () => {
    expect(atPath(data, 'article.author.name')).toEqual(['Ann', 'Bob']);
    expect(check({ rowsInclude: { article: [{ id: 2, author: { name: 'Bob' } }] }, rowsExclude: { article: [{ id: 3 }] } }, { data })).toEqual([]);
    expect(check({ rowsInclude: { article: [{ id: 3 }] } }, { data })).toEqual([{ message: 'rows missing at article', expected: [{ id: 3 }], actual: data.article }]);
    expect(check({ rowsExclude: { 'article.author': [{ name: 'Bob' }] } }, { data }))
      .toEqual([{ message: 'rows at article.author that must not be there', expected: [], actual: [{ name: 'Bob' }] }]);
  });

  it('reads affected_rows of the one root field or of the named ones', () => {
    const res = { data: { delete_a: { affected_rows: 2 } } };
    expect(check({ affectedRows: 2 }, res)).toEqual([]);
    expect(check({ affectedRows: { delete_a: 1 } }, res)).toEqual([{ message: 'affected_rows differs', expected: { delete_a: 1 }, actual: { delete_a: 2 } }]);
  });

  it('matches an error by code and by part of its message; a success or another error fails', () => {
    const res = { errors: [{ message: 'check constraint of an insert permission has failed', extensions: { code: 'permission-error', path: '$' } }] };
    expect(check({ error: { code: 'permission-error', message: 'check constraint' } }, res)).toEqual([]);
    expect(check({ error: { code: 'validation-failed' } }, res)).toEqual([{
      message: 'the error differs', expected: { error: { code: 'validation-failed' } },
      actual: { error: { code: 'permission-error', message: 'check constraint of an insert permission has failed' } },
    }]);
    expect(check({ error: { code: 'x' } }, { data: { a: [] } })[0]?.message).toBe('expected an error, the operation succeeded');
    expect(check({ data: {} }, res)[0]?.message).toBe('the operation failed');
  });

  it('fails on fields present in the schema that must be absent', () => {
    expect(check({ fieldsAbsent: ['a.b'] }, { data: {} }, ['a.b'])).toEqual([{ message: 'fields that must be absent from the schema of the role', expected: [], actual: ['a.b'] }]);
    expect(jsonEqual({ a: [1, { b: null }] }, { a: [1, { b: null }] })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 1, b: undefined })).toBe(false);
  });
});

describe('diff', () => {
  it('aligns common lines and marks the rest', () => {
    expect(lineDiff(['a', 'b', 'c'], ['a', 'x', 'c'])).toEqual(['  a', '+ x', '- b', '  c']);
    expect(jsonDiff({ b: 1, a: [1] }, { a: [1], b: 2 })).toEqual(['  {', '    "a": [', '      1', '    ],', '+   "b": 2', '-   "b": 1', '  }']);
  });
});

const result = (over: Partial<CaseResult>): CaseResult => ({
  file: 'tests/a.test.yaml', line: 3, name: 'n', role: 'user', status: 'passed', ms: 12.4, mismatches: [], operation: null, ...over,
});

describe('reporters', () => {
  const failed = result({ name: 'bad <one> & "two"', status: 'failed', line: 9, mismatches: [{ message: 'data differs', expected: { a: 1 }, actual: { a: 2 } }] });
  const skipped = result({ name: 's', status: 'skipped', reason: 'the case writes' });
  const all = [result({}), failed, skipped];
  const summary = summarise(all, 1234);

  it('prints a line per case, the diff of a failure and a summary', () => {
    expect(all.map(caseLine)).toEqual(['✓ n (12 ms)', '✗ bad <one> & "two" (12 ms) tests/a.test.yaml:9', '- s (12 ms) tests/a.test.yaml:3 skipped: the case writes']);
    expect(failureDetails(failed)).toEqual(['    data differs (- expected, + actual):', '        {', '      +   "a": 2', '      -   "a": 1', '        }']);
    expect(summaryLine(summary)).toBe('1 passed, 1 failed, 1 skipped of 3 case(s) in 1.23 s');
  });

  it('writes JUnit XML with escaped names, failures with their diff, and skips', () => {
    const xml = junitReport(all, summary);
    expect(xml).toContain('<testsuites name="engine test" tests="3" failures="1" skipped="1" time="1.234">');
    expect(xml).toContain('<testsuite name="tests/a.test.yaml" tests="3" failures="1" skipped="1" time="0.037">');
    expect(xml).toContain('<testcase name="n" classname="tests/a.test.yaml" file="tests/a.test.yaml" line="3" time="0.012"/>');
    expect(xml).toContain('<testcase name="bad &lt;one&gt; &amp; &quot;two&quot;"');
    expect(xml).toContain('<failure message="data differs">    data differs (- expected, + actual):\n        {\n      +   &quot;a&quot;: 2');
    expect(xml).toContain('<skipped message="the case writes"/>');
  });
});

describe('coverage', () => {
  const metadata: JsonObject = {
    version: 3,
    tables: [
      { table: { schema: 'public', name: 'article' }, select_permissions: [{ role: 'user' }], update_permissions: [{ role: 'user' }] },
      { table: { schema: 'app', name: 'note' }, configuration: { custom_root_fields: { select: 'notes' } }, select_permissions: [{ role: 'guest' }] },
    ],
  };
  const tc = (name: string, role: string, query: string, exp: TestCase['expect']): TestCase => ({ name, role, session: {}, query, expect: exp, file: 'f', line: 1 });
  const cases = [
    tc('a', 'user', '{ article { id } }', { data: {} }),
    tc('b', 'user', 'mutation { update_article(where: {}, _set: {}) { affected_rows } }', { affectedRows: 0 }),
    tc('c', 'guest', '{ notes { id } app_note_by_pk(id: 1) { id } }', { rowsExclude: { notes: [{ id: 1 }] } }),
    tc('d', 'guest', '{ __typename }', { fieldsAbsent: ['mutation_root.delete_article', 'app_note.secret'] }),
    tc('e', 'user', '{ app_note { id } }', { data: {} }),
  ];
  const results = cases.map((c) => result({ name: c.name, file: 'f', role: c.role, operation: operationOf(c), status: c.name === 'e' ? 'failed' : 'passed' }));

  it('counts allowed and denied paths per role × table × operation, custom root fields included, failed cases not', () => {
    const cov = coverage(metadata, cases, results);
    const cell = (role: string, table: string, op: string) => cov.cells.find((c) => c.role === role && c.table === table && c.operation === op);
    expect(cell('user', 'public.article', 'select')).toMatchObject({ permitted: true, allowed: 1, denied: 0 });
    expect(cell('user', 'public.article', 'update')).toMatchObject({ permitted: true, allowed: 0, denied: 1 });
    expect(cell('user', 'app.note', 'select')).toMatchObject({ permitted: false, allowed: 0, denied: 0 });
    expect(cell('guest', 'app.note', 'select')).toMatchObject({ permitted: true, allowed: 2, denied: 3 });
    expect(cell('guest', 'public.article', 'delete')).toMatchObject({ permitted: false, allowed: 0, denied: 1 });
    expect([cov.covered, cov.total, cov.percent]).toEqual([4, 16, 25]);
    expect(renderCoverage(cov)).toEqual([
      'role guest',
      '  table           select  insert  update  delete',
      '  public.article  -*      -*      -*      D*',
      '  app.note        AD      -*      -*      -*',
      'role user',
      '  table           select  insert  update  delete',
      '  public.article  A       -*      D       -*',
      '  app.note        -*      -*      -*      -*',
      'A allowed path exercised, D denied path exercised, - not exercised; * the role has no such permission',
      'Permission coverage: 4/16 (25%)',
    ]);
  });
});
