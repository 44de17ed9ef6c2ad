import { expect, it } from 'vitest';
import fc from 'fast-check';
import { useTestEngine } from '../helpers/engine.js';
import { resolve } from '../../src/server/schema-cache.js';
import { recordJson } from '../../src/server/inconsistency.js';
import { documentJson, documentText, parseDocument } from '../../src/metadata/document.js';
import { EVENT_OPS } from '../../src/metadata/kinds/event-triggers.js';
import { readStored } from '../../src/server/metadata-store.js';
import { installedTriggers, triggerName } from '../../src/server/triggers.js';

/*
 * The engine resolves one change incrementally, syncs the database triggers of the changed tables only, and writes
 * only the changed table entries' rows (src/server/metadata-store.ts). These tests hold the shortcuts to the slow,
 * obvious path: after random sequences of operations, the cache equals a full resolve, the installed triggers are
 * those of the consistent event triggers, and the stored rows equal the canonical serialisation, as read through
 * the engine_catalog.metadata view and as a fresh start reads them.
 */
const e = useTestEngine();

const TABLES = ['a', 'b', 'c'];

const operation = fc.oneof(
  fc.record({ kind: fc.constantFrom('insert', 'select', 'update', 'delete'), table: fc.constantFrom(...TABLES), role: fc.constantFrom('r1', 'r2'), col: fc.constantFrom('id', 'name', 'nope') })
    .map(({ kind, table, role, col }) => ({
      type: `create_${kind}_permission`,
      args: { table, role, permission: kind === 'insert' ? { check: { [col]: { _eq: 1 } } } : kind === 'delete' ? { filter: { [col]: { _eq: 1 } } } : { columns: '*', filter: { [col]: { _eq: 1 } } } },
    })),
  fc.record({ kind: fc.constantFrom('insert', 'select', 'update', 'delete'), table: fc.constantFrom(...TABLES), role: fc.constantFrom('r1', 'r2') })
    .map(({ kind, table, role }) => ({ type: `drop_${kind}_permission`, args: { table, role } })),
  fc.record({ table: fc.constantFrom(...TABLES), name: fc.constantFrom('e1', 'e2'), col: fc.constantFrom('name', 'id') })
    .map(({ table, name, col }) => ({ type: 'create_event_trigger', args: { name, table, replace: false, webhook: 'http://localhost:1/x', update: { columns: [col] } } })),
  fc.constantFrom('e1', 'e2').map((name) => ({ type: 'delete_event_trigger', args: { name } })),
  fc.record({ table: fc.constantFrom(...TABLES), remote: fc.constantFrom(...TABLES), name: fc.constantFrom('r', 's') })
    .map(({ table, remote, name }) => ({ type: 'create_object_relationship', args: { table, name, using: { manual_configuration: { remote_table: remote, column_mapping: { id: 'id' } } } } })),
  fc.record({ kind: fc.constantFrom('insert', 'select'), table: fc.constantFrom(...TABLES), role: fc.constantFrom('r1', 'r2'), comment: fc.option(fc.string({ maxLength: 5 })) })
    .map(({ kind, table, role, comment }) => ({ type: 'set_permission_comment', args: { table, role, type: kind, comment } })),
  fc.record({ table: fc.constantFrom(...TABLES), cascade: fc.boolean() }).map(({ table, cascade }) => ({ type: 'untrack_table', args: { table, cascade } })),
  fc.constantFrom(...TABLES).map((table) => ({ type: 'track_table', args: { table } })),
  // The database changes under the metadata: the cache is resolved whole, and the next change incrementally again.
  fc.record({ table: fc.constantFrom(...TABLES), n: fc.nat(1000) }).map(({ table, n }) => ({ type: 'run_sql', args: { sql: `alter table ${table} add column c${n} int` } })),
);
// Several writes in one request: the tables are copied several times between the stored version and the new one.
const request = fc.oneof(operation, fc.array(operation, { minLength: 2, maxLength: 4 }).map((args) => ({ type: 'bulk', args })));

it('incremental resolution and partial writes match the full path (property)', async () => {
  await fc.assert(fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 12 }), async (ops) => {
    await e.reset();
    await e.sql(TABLES.map((t) => `create table ${t} (id int primary key, name text)`).join(';'));
    for (const t of TABLES) await e.ok({ type: 'track_table', args: t });
    for (const op of ops) {
      await e.query(op);
      // The event processor's view, brought forward change by change.
      await e.engine.consistentEventTriggers();
    }
    const cache = e.engine.schemaCache;
    const full = resolve(cache.metadata, cache.catalog);
    expect(cache.inconsistent.map(recordJson)).toEqual(full.inconsistent.map(recordJson));
    expect([...cache.tables.keys()].sort()).toEqual([...full.tables.keys()].sort());
    for (const [k, rt] of full.tables) {
      expect([...(cache.tables.get(k)?.permissions.keys() ?? [])].sort()).toEqual([...rt.permissions.keys()].sort());
      expect([...(cache.tables.get(k)?.eventTriggers ?? [])].sort()).toEqual([...rt.eventTriggers].sort());
    }
    const text = documentText(cache.metadata);
    expect(text).toBe(JSON.stringify(documentJson(cache.metadata)));
    const stored = await e.db.query<{ doc: unknown }>('SELECT metadata AS doc FROM engine_catalog.metadata');
    expect(stored[0]?.doc).toEqual(JSON.parse(text));
    const exported = await e.query({ type: 'export_metadata', args: {} });
    expect(exported.text).toBe(text);
    expect(documentText(parseDocument((await readStored(e.db)).doc, '$'))).toBe(text);
    expect(await e.engine.consistentEventTriggers()).toEqual(new Map([...installedTriggers(full)].map(([n, it]) => [n, it.trigger])));
    const triggers = await e.db.query<{ n: string }>(
      "SELECT tgname AS n FROM pg_trigger WHERE NOT tgisinternal AND tgname LIKE 'notify\\_engine\\_%' ORDER BY 1");
    expect(triggers.map((t) => t.n)).toEqual([...installedTriggers(full).values()]
      .flatMap((it) => EVENT_OPS.filter((op) => it.trigger.definition[op]).map((op) => triggerName(it.trigger.name, op.toUpperCase()))).sort());
  }), {
    numRuns: 25, seed: 42,
    // A trigger created then deleted, each change brought forward into the event processor's view.
    examples: [[[
      { type: 'create_event_trigger', args: { name: 'e1', table: 'a', replace: false, webhook: 'http://localhost:1/x', update: { columns: ['id'] } } },
      { type: 'delete_event_trigger', args: { name: 'e1' } },
    ]]],
  });
});
