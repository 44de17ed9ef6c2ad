import { describe, expect, it } from 'vitest';
import {
  diffMetadata, fieldChanges, renderDiffJson, renderDiffText, showValue, summarize, type Change, type OriginLookup,
} from '../../src/metadata/diff.js';
import { exampleFrom, exampleTo, T } from './diff-fixtures.js';

// The text and JSON renderings of a diff (cli.md §4.12).

describe('text output', () => {
  const changes = diffMetadata(exampleFrom, exampleTo);

  it('reproduces the cli.md §4.12 example exactly', () => {
    // The example lists its changes as added, removed, changed; the rule above it orders by kind, so they are given here
    // in the example's order to check the format, and the diff's own order is checked below.
    const inExampleOrder = [...changes].sort((a, b) => ['added', 'removed', 'changed'].indexOf(a.change) - ['added', 'removed', 'changed'].indexOf(b.change));
    expect(renderDiffText(inExampleOrder)).toBe(
      `+ action createUser
- select_permission public.author.anonymous
~ select_permission public.author.user
    ~ permission.columns: ["id"] → ["id","name"]
    + permission.limit: 10
    - comment: "legacy"

Summary: 1 added, 1 removed, 1 changed.`,
    );
  });

  it('orders the example by kind (the §4.12 rule): permissions before actions', () => {
    expect(renderDiffText(changes)).toBe(
      `- select_permission public.author.anonymous
~ select_permission public.author.user
    ~ permission.columns: ["id"] → ["id","name"]
    + permission.limit: 10
    - comment: "legacy"
+ action createUser

Summary: 1 added, 1 removed, 1 changed.`,
    );
  });

  it('prints No differences. without changes', () => {
    expect(renderDiffText([])).toBe('No differences.');
    expect(renderDiffText(diffMetadata(exampleTo, structuredClone(exampleTo)))).toBe('No differences.');
  });

  it('recurses into mappings, compares arrays and scalars whole', () => {
    const a = { permission: { filter: { author_id: { _eq: 1 }, _or: [{ a: 1 }, { b: 2 }] }, columns: ['a'] } };
    const b = { permission: { filter: { author_id: { _eq: 2 }, _or: [{ a: 1 }] }, columns: '*' } };
    expect(fieldChanges(a, b)).toEqual([
      { path: 'permission.filter.author_id._eq', change: '~', from: 1, to: 2 },
      { path: 'permission.filter._or', change: '~', from: [{ a: 1 }, { b: 2 }], to: [{ a: 1 }] },
      { path: 'permission.columns', change: '~', from: ['a'], to: '*' },
    ]);
    // A mapping against a scalar is one change, not a recursion.
    expect(fieldChanges({ check: null }, { check: { id: 1 } })).toEqual([{ path: 'check', change: '~', from: null, to: { id: 1 } }]);
    // Key order of mappings does not matter.
    expect(fieldChanges({ m: { x: 1, y: [{ p: 1, q: 2 }] } }, { m: { y: [{ q: 2, p: 1 }], x: 1 } })).toEqual([]);
    // Keys that are not identifiers are quoted as in engine JSON paths.
    expect(fieldChanges({ set: { 'full name': 'a' } }, { set: { 'full name': 'b' } })[0]?.path).toBe("set['full name']");
  });

  it('cuts values to 60 characters: 59 and …', () => {
    const exactly60 = `"${'x'.repeat(58)}"`;
    expect(showValue('x'.repeat(58))).toBe(exactly60);
    expect(showValue('x'.repeat(59))).toBe(`"${'x'.repeat(58)}…`);
    expect([...showValue('x'.repeat(59))].length).toBe(60);
    expect(showValue({ a: 'y'.repeat(100) })).toBe(`{"a":"${'y'.repeat(53)}…`);
    // Characters are code points: an emoji is not split, non-ASCII is not escaped.
    expect(showValue('😀'.repeat(70))).toBe(`"${'😀'.repeat(58)}…`);
    expect(showValue('é')).toBe('"é"');
    expect(showValue(null)).toBe('null');
    const long = { role: 'u', permission: { columns: ['id'], filter: {} }, comment: 'c'.repeat(80) };
    const text = renderDiffText(diffMetadata(
      { version: 2, tables: [{ table: T, select_permissions: [{ ...long, comment: 'short' }] }] },
      { version: 2, tables: [{ table: T, select_permissions: [long] }] },
    ));
    expect(text.split('\n')[1]).toBe(`    ~ comment: "short" → "${'c'.repeat(58)}…`);
  });
});

describe('JSON output', () => {
  const changes = diffMetadata(exampleFrom, exampleTo);

  it('has the §4.12 shape with full values and key order', () => {
    const json = renderDiffJson(changes);
    expect(json).toEqual([
      { change: 'removed', kind: 'select_permission', name: 'public.author.anonymous' },
      {
        change: 'changed', kind: 'select_permission', name: 'public.author.user',
        fields: [
          { path: 'permission.columns', change: '~', from: ['id'], to: ['id', 'name'] },
          { path: 'permission.limit', change: '+', to: 10 },
          { path: 'comment', change: '-', from: 'legacy' },
        ],
      },
      { change: 'added', kind: 'action', name: 'createUser' },
    ]);
    expect(Object.keys(json[1] ?? {})).toEqual(['change', 'kind', 'name', 'fields']);
    expect(JSON.stringify(json[2])).toBe('{"change":"added","kind":"action","name":"createUser"}');
  });

  it('adds file, line and column from the origins lookup', () => {
    const seen: string[] = [];
    const origins: OriginLookup = (kind, name, change) => {
      seen.push(`${change} ${kind} ${name}`);
      return kind === 'action' ? undefined : { file: 'metadata/tables.yaml', line: 3, column: 7 };
    };
    const json = renderDiffJson(changes, origins);
    expect(seen).toEqual(['removed select_permission public.author.anonymous', 'changed select_permission public.author.user', 'added action createUser']);
    expect(json[2]).toEqual({ change: 'added', kind: 'action', name: 'createUser' });
    expect(Object.keys(json[1] ?? {})).toEqual(['change', 'kind', 'name', 'file', 'line', 'column', 'fields']);
    expect(json[0]).toEqual({ change: 'removed', kind: 'select_permission', name: 'public.author.anonymous', file: 'metadata/tables.yaml', line: 3, column: 7 });
  });

  it('keeps long values whole and null values present', () => {
    const long = 'x'.repeat(200);
    const c: Change[] = [{ change: 'changed', kind: 'cron_trigger', name: 'n', fields: [{ path: 'payload', change: '~', from: null, to: long }] }];
    expect(JSON.parse(JSON.stringify(renderDiffJson(c)))).toEqual([
      { change: 'changed', kind: 'cron_trigger', name: 'n', fields: [{ path: 'payload', change: '~', from: null, to: long }] },
    ]);
  });

  it('summarize counts each change type', () => {
    expect(summarize(changes)).toEqual({ added: 1, removed: 1, changed: 1 });
    expect(summarize([])).toEqual({ added: 0, removed: 0, changed: 0 });
  });
});
