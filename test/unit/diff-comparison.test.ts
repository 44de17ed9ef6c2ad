import { describe, expect, it } from 'vitest';
import { diffMetadata, diffObjects, renderDiffText } from '../../src/metadata/diff.js';
import { metadataObjects, type CanonicalDocument } from '../../src/metadata/objects.js';
import { retry, T, type Obj } from './diff-fixtures.js';

// What counts as a change and in which order changes come: kind and name order, normalisation before comparing.

describe('ordering', () => {
  it('orders by kind order, then name by code point', () => {
    const scalars = ['b', 'B', 'a', '\uff5e', '😀', 'a_b', 'ab'].map((name) => ({ name }));
    const changes = diffMetadata({ version: 2, tables: [] }, {
      version: 2,
      tables: [{ table: { schema: 'z', name: 't' } }, { table: { schema: 'a', name: 't' } }],
      custom_types: { scalars },
      actions: [{ name: 'a', definition: { handler: 'http://h', output_type: 'b', kind: 'synchronous' }, permissions: [{ role: 'r' }] }],
      functions: [{ function: { schema: 'public', name: 'f' } }],
    });
    expect(changes.map((c) => `${c.kind} ${c.name}`)).toEqual([
      'table a.t', 'table z.t', 'function public.f',
      'custom_type B', 'custom_type a', 'custom_type a_b', 'custom_type ab', 'custom_type b', 'custom_type \uff5e', 'custom_type 😀',
      'action a', 'action_permission a.r',
    ]);
  });

  it('interleaves added, removed and changed objects of one kind by name', () => {
    const perm = (role: string, columns: string[]) => ({ role, permission: { columns, filter: {} } });
    const from = { version: 2, tables: [{ table: T, select_permissions: [perm('a', ['id']), perm('c', ['id'])] }] };
    const to = { version: 2, tables: [{ table: T, select_permissions: [perm('b', ['id']), perm('c', ['name'])] }] };
    expect(diffMetadata(from, to).map((c) => `${c.change} ${c.name}`)).toEqual(['removed public.author.a', 'added public.author.b', 'changed public.author.c']);
  });
});

describe('normalisation in the diff', () => {
  it('a non-canonical document equals its canonical form', () => {
    const canonical: CanonicalDocument = {
      version: 2,
      tables: [{
        table: T,
        computed_fields: [{ name: 'full_name', definition: { function: { schema: 'public', name: 'f' } } }],
        select_permissions: [{ role: 'user', permission: { columns: ['id', 'name'], computed_fields: ['a', 'full_name'], filter: {} } }],
        update_permissions: [{ role: 'user', permission: { columns: ['name'], filter: {}, check: null } }],
        event_triggers: [{ name: 'e', definition: { enable_manual: true, update: { columns: ['id', 'name'], payload: ['id', 'name'] } }, retry_conf: retry, webhook: 'http://e' }],
      }],
      actions: [{ name: 'a', definition: { handler: 'http://h', output_type: 'T', kind: 'synchronous' } }],
    };
    const loose: CanonicalDocument = {
      version: 2,
      tables: [{
        table: 'author',
        is_enum: false,
        configuration: {},
        object_relationships: [],
        computed_fields: [{ name: 'full_name', definition: { function: 'f', session_argument: null }, comment: null }],
        select_permissions: [{ role: 'user', permission: { columns: ['name', 'id'], computed_fields: ['full_name', 'a'], filter: {}, allow_aggregations: false, limit: null }, comment: null }],
        update_permissions: [{ role: 'user', permission: { columns: ['name'], filter: {}, set: {} } }],
        event_triggers: [{ name: 'e', definition: { update: { columns: ['name', 'id'], payload: ['name', 'id'] } }, webhook: 'http://e', headers: [] }],
      }],
      functions: [],
      actions: [{ name: 'a', definition: { handler: 'http://h', output_type: 'T', arguments: [], timeout: 30, type: 'mutation' }, permissions: [], comment: null }],
      custom_types: { scalars: [] },
    };
    expect(diffMetadata(canonical, loose)).toEqual([]);
    expect(diffMetadata(loose, canonical)).toEqual([]);
  });

  it('defaults differ from other values', () => {
    const trig = (definition: Obj, retry_conf?: Obj) => ({ version: 2, tables: [{ table: T, event_triggers: [{ name: 'e', definition, ...(retry_conf ? { retry_conf } : {}), webhook: 'http://e' }] }] });
    expect(renderDiffText(diffMetadata(trig({ insert: { columns: '*' } }), trig({ enable_manual: false, insert: { columns: '*' } }, { timeout_sec: 5 }))).split('\n').slice(1, 3))
      .toEqual(['    ~ definition.enable_manual: true → false', '    ~ retry_conf.timeout_sec: 60 → 5']);
    // Column order within a set does not count, but a "*" is not a list of every column.
    const sel = (columns: unknown) => ({ version: 2, tables: [{ table: T, select_permissions: [{ role: 'u', permission: { columns, filter: {} } }] }] });
    expect(diffMetadata(sel(['b', 'a']), sel(['a', 'b']))).toEqual([]);
    expect(diffMetadata(sel(['a']), sel('*'))).toHaveLength(1);
  });

  it('shows set-like lists sorted', () => {
    const sel = (columns: string[]) => ({ version: 2, tables: [{ table: T, select_permissions: [{ role: 'u', permission: { columns, filter: {} } }] }] });
    expect(renderDiffText(diffMetadata(sel(['name', 'id']), sel(['title', 'id']))).split('\n')[1])
      .toBe('    ~ permission.columns: ["id","name"] → ["id","title"]');
  });
});

describe('equal table entries are set aside before the objects are compared', () => {
  // diffMetadata skips the table entries equal on both sides; the answer must be that of comparing every object.
  const perm = (role: string, limit: number) => ({ role, permission: { columns: ['id'], filter: { id: { _gt: limit } }, limit } });
  const table = (i: number, limit = 10) => ({
    table: { schema: 'public', name: `t${i}` },
    object_relationships: [{ name: 'parent', using: { foreign_key_constraint_on: 'parent_id' } }],
    select_permissions: [perm('user', limit), perm('guest', limit)],
  });
  const full = (a: CanonicalDocument, b: CanonicalDocument) => diffObjects(metadataObjects(a), metadataObjects(b));
  const doc = (tables: Obj[]): CanonicalDocument => ({ version: 2, tables });

  it('gives the same changes as comparing every object, for edits, additions, removals, moves and repeated entries', () => {
    const base = Array.from({ length: 40 }, (_, i) => table(i));
    const cases: [Obj[], Obj[]][] = [
      [base, base],
      [base, base.map((t, i) => (i === 17 ? table(17, 11) : t))],
      [base, base.filter((_, i) => i !== 3)],
      [base, [...base, table(40)]],
      [base, [...base].reverse()],
      [base, [...base.slice(0, 5), { ...table(5), select_permissions: [] }, ...base.slice(6)]],
      // a table written twice (an invalid document): compared as before, first entry of each name
      [[...base, table(7, 99)], base],
      [base, [table(7, 99), ...base]],
      [[table(1), table(1, 5)], [table(1, 5), table(1)]],
      [[...base, { table: { schema: 'public', name: 't7' }, object_relationships: [{ name: 'other', using: { foreign_key_constraint_on: 'x' } }] }], base],
    ];
    for (const [a, b] of cases) {
      expect(diffMetadata(doc(a), doc(b))).toEqual(full(doc(a), doc(b)));
      expect(diffMetadata(doc(b), doc(a))).toEqual(full(doc(b), doc(a)));
    }
    const one = diffMetadata(doc(base), doc(base.map((t, i) => (i === 17 ? table(17, 11) : t))));
    expect(one.map((c) => `${c.change} ${c.kind} ${c.name}`)).toEqual(['changed select_permission public.t17.guest', 'changed select_permission public.t17.user']);
  });
});
