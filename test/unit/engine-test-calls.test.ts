/**
 * `engine test`'s events and action calls (issue 33 point 1): the metadata of the ephemeral engine points every handler
 * and webhook at the run's recorder and changes nothing else; the expected lists match the observed ones exactly, in
 * any order, payloads partially.
 */
import { describe, expect, it } from 'vitest';
import { redirectCalls } from '../../src/project/test/calls.js';
import { check } from '../../src/project/test/expect.js';
import type { JsonObject } from '../../src/metadata/json.js';

const DOC: JsonObject = {
  version: 2,
  tables: [
    { table: { schema: 'public', name: 'plain' } },
    {
      table: { schema: 'public', name: 'article' },
      select_permissions: [{ role: 'user', permission: { columns: ['id'], filter: {} } }],
      event_triggers: [
        { name: 'from_env', definition: { enable_manual: true }, webhook_from_env: 'HOOK', headers: [{ name: 'A', value_from_env: 'SET' }, { name: 'B', value_from_env: 'UNSET' }, { name: 'C', value: 'c' }] },
        { name: 'tmpl/x', definition: { enable_manual: true }, webhook: '{{BASE}}/e' },
      ],
    },
  ],
  actions: [{ name: 'publish', definition: { handler: '{{ACTION_BASE_URL}}/publish', output_type: 'R', kind: 'synchronous', headers: [{ name: 'T', value_from_env: 'UNSET' }] }, permissions: [{ role: 'user' }] }],
  custom_types: {},
};

const TABLES = DOC['tables'] as JsonObject[];

describe('redirectCalls', () => {
  it('points handlers and webhooks at the recorder; unset env headers become empty values; the rest is unchanged', () => {
    const vars: Record<string, string> = { SET: 's' };
    const out = redirectCalls(DOC, 'http://127.0.0.1:9', (n) => vars[n]);
    expect(out).toEqual({
      ...DOC,
      tables: [
        TABLES[0],
        {
          ...TABLES[1],
          event_triggers: [
            { name: 'from_env', definition: { enable_manual: true }, webhook: 'http://127.0.0.1:9/event/from_env', headers: [{ name: 'A', value_from_env: 'SET' }, { name: 'B', value: '' }, { name: 'C', value: 'c' }] },
            { name: 'tmpl/x', definition: { enable_manual: true }, webhook: 'http://127.0.0.1:9/event/tmpl%2Fx' },
          ],
        },
      ],
      actions: [{ name: 'publish', definition: { handler: 'http://127.0.0.1:9/action/publish', output_type: 'R', kind: 'synchronous', headers: [{ name: 'T', value: '' }] }, permissions: [{ role: 'user' }] }],
    });
    // The document given is not changed.
    expect(JSON.stringify(DOC)).toContain('"handler":"{{ACTION_BASE_URL}}/publish"');
  });
});

describe('check: events and action calls', () => {
  const ok = { data: { u: { affected_rows: 2 } } };
  const events = [
    { name: 'audit', payload: { op: 'UPDATE', data: { old: { id: 1 }, new: { id: 1, p: true } } } },
    { name: 'published', payload: { op: 'UPDATE', data: { old: { id: 2 }, new: { id: 2, p: true } } } },
  ];

  it('passes when every observed event is expected, in any order, payloads matched partially', () => {
    expect(check({ events: [{ name: 'published', payload: { data: { new: { p: true } } } }, { name: 'audit' }] }, ok, [], { events })).toEqual([]);
    expect(check({ events: [] }, ok, [], { events: [] })).toEqual([]);
    expect(check({ actionCalls: [{ name: 'a', payload: { input: { id: 1 } } }] }, ok, [], { actionCalls: [{ name: 'a', payload: { input: { id: 1, x: 2 } } }] })).toEqual([]);
  });

  it('names the expected events that did not come, and the events not expected, with both lists', () => {
    expect(check({ events: [{ name: 'published', payload: { op: 'INSERT' } }, { name: 'audit' }] }, ok, [], { events })).toEqual([{
      message: 'events missing: published',
      expected: [{ trigger: 'published', payload: { op: 'INSERT' } }, { trigger: 'audit' }],
      actual: events.map((e) => ({ trigger: e.name, payload: e.payload })),
    }]);
    expect(check({ events: [] }, ok, [], { events })).toEqual([{
      message: 'events not expected: audit, published', expected: [], actual: events.map((e) => ({ trigger: e.name, payload: e.payload })),
    }]);
    // One observed call matches one expected entry only.
    expect(check({ actionCalls: [{ name: 'a' }, { name: 'a' }] }, ok, [], { actionCalls: [{ name: 'a', payload: {} }] })).toEqual([{
      message: 'action calls missing: a', expected: [{ action: 'a' }, { action: 'a' }], actual: [{ action: 'a', payload: {} }],
    }]);
  });

  it('checks the calls of an operation that failed as expected', () => {
    const failed = { errors: [{ message: 'no', extensions: { code: 'permission-error' } }] };
    expect(check({ error: { code: 'permission-error' }, actionCalls: [] }, failed, [], { actionCalls: [] })).toEqual([]);
    expect(check({ error: { code: 'permission-error' }, actionCalls: [] }, failed, [], { actionCalls: [{ name: 'a', payload: {} }] })).toEqual([{
      message: 'action calls not expected: a', expected: [], actual: [{ action: 'a', payload: {} }],
    }]);
  });
});
