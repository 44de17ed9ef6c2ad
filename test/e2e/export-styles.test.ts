/**
 * Issue 29 point 7: `metadata export` changes only what changed. Projects written in other styles (sequences not
 * indented or indented by four, flow mappings, single quotes, explicit defaults, the version 3 layout) are applied,
 * exported with no change in between (no byte changes), then one permission changes on the engine and only its lines
 * change in the files.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cli, show, snapshot, tempDir, useTestEngine } from './cli-helpers.js';

const e = useTestEngine();
const FIXTURES = fileURLToPath(new URL('../fixtures/projects/export-styles/', import.meta.url));

/** A copy of a fixture project pointed at the test engine, its schema created and its metadata applied. */
async function applied(style: 'flat' | 'indented' | 'v3'): Promise<string> {
  const dir = join(await tempDir(), style);
  cpSync(join(FIXTURES, style), dir, { recursive: true });
  writeFileSync(join(dir, 'config.yaml'), `version: ${style === 'v3' ? 3 : 2}\nendpoint: ${e.url}\n`);
  await e.sql(readFileSync(join(FIXTURES, 'schema.sql'), 'utf8'));
  const apply = await cli(['metadata', 'apply'], { cwd: dir });
  expect(apply.code, show(apply)).toBe(0);
  return dir;
}

async function exported(dir: string): Promise<Map<string, string>> {
  const r = await cli(['metadata', 'export'], { cwd: dir });
  expect(r.code, show(r)).toBe(0);
  return snapshot(join(dir, 'metadata'));
}

/** Replaces the user role's select permission of a table on the engine. */
async function setSelect(table: string, role: string, permission: Record<string, unknown>, replace = true, extra = {}): Promise<void> {
  if (replace) await e.ok({ type: 'drop_select_permission', args: { table, role } });
  await e.ok({ type: 'create_select_permission', args: { table, role, permission, ...extra } });
}

const own = (column: string) => ({ [column]: { _eq: 'X-Engine-User-Id' } });

/** `after` is `before` with exactly the one replacement (which must apply). */
function expectOnly(before: string | undefined, after: string | undefined, from: string, to: string): void {
  expect(before).toContain(from);
  expect(after).toBe((before as string).replace(from, to));
}

describe('export keeps each file as written', { timeout: 120_000 }, () => {
  it('sequences not indented, schema before name, explicit defaults, flow lists, quotes and comments', async () => {
    const dir = await applied('flat');
    const before = snapshot(join(dir, 'metadata'));
    expect(await exported(dir)).toEqual(before);
    await setSelect('order', 'user', { columns: ['id', 'customer_id'], filter: own('customer_id') });
    let after = await exported(dir);
    expectOnly(before.get('tables.yaml'), after.get('tables.yaml'), '      - customer_id\n      - total\n', '      - customer_id\n');
    for (const [f, t] of before) if (f !== 'tables.yaml') expect(after.get(f), f).toBe(t);
    // A new permission is written in the file's own style, before the next item the engine orders after it.
    const was = after.get('tables.yaml') as string;
    await setSelect('order', 'manager', { columns: ['id'], filter: {} }, false);
    after = await exported(dir);
    expectOnly(was, after.get('tables.yaml'), '  select_permissions:\n  - role: user\n    permission:\n      columns:\n      - id\n      - customer_id\n      filter:\n        customer_id',
      '  select_permissions:\n  - role: manager\n    permission:\n      columns:\n      - id\n      filter: {}\n  - role: user\n    permission:\n      columns:\n      - id\n      - customer_id\n      filter:\n        customer_id');
  });

  it('sequences indented by four, flow mappings and double quotes', async () => {
    const dir = await applied('indented');
    const before = snapshot(join(dir, 'metadata'));
    expect(await exported(dir)).toEqual(before);
    await setSelect('customer', 'user', { columns: ['id', 'name', 'y'], filter: own('id') });
    const after = await exported(dir);
    expectOnly(before.get('tables.yaml'), after.get('tables.yaml'), '                    - name\n', '                    - name\n                    - "y"\n');
  });

  it('the version 3 layout: one file per table, databases.yaml with settings the engine does not use', async () => {
    const dir = await applied('v3');
    const before = snapshot(join(dir, 'metadata'));
    expect(await exported(dir)).toEqual(before);
    await setSelect('customer', 'user', { columns: ['id', 'name'], filter: own('id') }, true, { comment: '' });
    const after = await exported(dir);
    const file = 'databases/default/tables/public_customer.yaml';
    expectOnly(before.get(file), after.get(file), '        - name\n        - "y"\n', '        - name\n');
    for (const [f, t] of before) if (f !== file) expect(after.get(f), f).toBe(t);
  });
});
