import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ProjectConfig } from '../../src/project/config/config.js';
import { currentSnapshot, replaceFile, rewriteTable, stampOf, takeSnapshot } from '../../src/project/console/snapshot.js';
import { lineDiff } from '../../src/project/console/line-diff.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function project(tables: string): { config: ProjectConfig; file: string } {
  const base = mkdtempSync(join(tmpdir(), 'engine-console-snapshot-'));
  dirs.push(base);
  mkdirSync(join(base, 'metadata'));
  writeFileSync(join(base, 'metadata/version.yaml'), 'version: 2\n');
  writeFileSync(join(base, 'metadata/tables.yaml'), tables);
  return { config: { metadataDirectory: join(base, 'metadata'), baseDir: base, version: 2 } as ProjectConfig, file: join(base, 'metadata/tables.yaml') };
}

const TABLES = `# the notes
- table:
    schema: public
    name: note
  select_permissions:
    - role: reader
      permission:
        columns: [id]
        filter: {}

# other: kept as it is
- table:
    schema: public
    name: other
  # nobody writes here
  select_permissions:
    - role: reader
      permission:
        columns:
          - id
        filter: {}
`;

describe('the console\'s snapshot of the project', () => {
  it('rewrites one item of tables.yaml: the other items, comments and styles stay byte for byte', () => {
    const { config } = project(TABLES);
    const snap = takeSnapshot(config);
    expect([...snap.tables.keys()]).toEqual(['public.note', 'public.other']);
    const where = snap.tables.get('public.note');
    if (!where) throw new Error('no entry');
    const after = { ...(where.written as object), select_permissions: [{ role: 'reader', permission: { columns: ['id'], filter: {}, limit: 3 } }] };
    const r = rewriteTable(snap, where, after);
    expect(r?.text).toBe(TABLES.replace('        filter: {}\n\n# other', '        filter: {}\n        limit: 3\n\n# other'));
    // The last item, with a comment of its own inside.
    const other = snap.tables.get('public.other');
    if (!other) throw new Error('no entry');
    const { select_permissions: _dropped, ...rest } = other.written as Record<string, unknown>;
    const r2 = rewriteTable(snap, other, rest);
    expect(r2?.text.startsWith(TABLES.slice(0, TABLES.indexOf('- table:\n    schema: public\n    name: other')))).toBe(true);
    expect(r2?.text).toContain('# other: kept as it is\n');
    expect(r2?.text).not.toContain('name: other\n  # nobody writes here\n  select_permissions:');
    expect(r2?.text.endsWith('    name: other\n')).toBe(true);
  });

  it('renders the entry anew where the lines cannot be spliced (a filter emptied), the other entries untouched', () => {
    const text = TABLES.replace('        filter: {}\n\n# other', '        filter:\n          id:\n            _eq: 1\n\n# other');
    const { config } = project(text);
    const snap = takeSnapshot(config);
    const where = snap.tables.get('public.note');
    if (!where) throw new Error('no entry');
    const r = rewriteTable(snap, where, { ...(where.written as object), select_permissions: [{ role: 'reader', permission: { columns: ['id'], filter: {} } }] });
    // That entry is in block style now; everything after it is as it was.
    expect(r?.text).toBe(TABLES.replace('        columns: [id]\n', '        columns:\n          - id\n'));
  });

  it('declines what it cannot cut safely: a flow-style list, a list not at column 0', () => {
    for (const text of ['[{table: {schema: public, name: note}}]\n', '  - table:\n      schema: public\n      name: note\n']) {
      const { config } = project(text);
      const snap = takeSnapshot(config);
      const where = snap.tables.get('public.note');
      if (!where) throw new Error('no entry');
      expect(rewriteTable(snap, where, { ...(where.written as object), select_permissions: [{ role: 'r', permission: { columns: [], filter: {} } }] })).toBeNull();
    }
  });

  it('is taken again when a file changes, and kept while none does', () => {
    const { config, file } = project(TABLES);
    const snap = takeSnapshot(config);
    expect(currentSnapshot(config, snap)).toBe(snap);
    replaceFile(file, TABLES.replace('name: other', 'name: other2'));
    expect(stampOf(config)).not.toBe(snap.stamp);
    const next = currentSnapshot(config, snap);
    expect(next).not.toBe(snap);
    expect([...next.tables.keys()]).toEqual(['public.note', 'public.other2']);
    expect(readFileSync(file, 'utf8')).toContain('name: other2');
  });
});

describe('lineDiff', () => {
  it('is one hunk with three lines of context, empty when nothing changed', () => {
    const a = 'a\nb\nc\nd\ne\nf\ng\nh\n';
    expect(lineDiff(a, a, 'x.yaml')).toBe('');
    expect(lineDiff(a, a.replace('e\n', 'E\nE2\n'), 'x.yaml')).toBe('--- a/x.yaml\n+++ b/x.yaml\n@@ -2,7 +2,8 @@\n b\n c\n d\n-e\n+E\n+E2\n f\n g\n h\n');
  });
});
