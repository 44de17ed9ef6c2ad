/**
 * End-to-end: the real `engine` bin against a real engine holding metadata left inconsistent behind its back —
 * metadata reload and inconsistency list|status|drop, in text and JSON mode (cli.md §5.8, §5.9).
 */
import { describe, expect, it } from 'vitest';
import { cli, engineExport as exportOf, initProject, jsonDoc, lines, seedEngine, show, useTestEngine } from './cli-helpers.js';

const e = useTestEngine();

const seed = (): Promise<void> => seedEngine(e);
const engineExport = () => exportOf(e);
const newProject = (name = 'proj') => initProject(e.url, name);

const run = (dir: string, ...args: string[]) => cli(args, { cwd: dir });

describe('inconsistent metadata: reload, inconsistency list|status|drop (cli.md §5.8, §5.9)', () => {
  it('shows, checks and drops the objects left by a table dropped behind the engine', async () => {
    await seed();
    const { dir } = await newProject();

    const ok = await run(dir, 'metadata', 'inconsistency', 'status');
    expect(ok.code, show(ok)).toBe(0);
    expect(lines(ok.stderr)).toEqual(['Metadata is consistent.']);
    const okList = await run(dir, 'metadata', 'inconsistency', 'list');
    expect(okList.code, show(okList)).toBe(0);
    expect(okList.stdout).toBe('');
    expect(lines(okList.stderr)).toEqual(['Metadata is consistent.']);

    await e.ok({ type: 'run_sql', args: { sql: 'drop table article', check_metadata_consistency: false } });

    const reload = await run(dir, 'metadata', 'reload');
    expect(reload.code, show(reload)).toBe(0);
    expect(reload.stdout).toBe('');
    expect(lines(reload.stderr)).toEqual([
      'Metadata reloaded.',
      "warning: metadata is inconsistent: 2 object(s); run 'engine metadata inconsistency list'",
    ]);

    const table =
      'KIND                NAME                    REASON\n' +
      'table               public.article          no such table/view exists in postgres : "article"\n' +
      'array_relationship  public.author.articles  in table "author": in relationship "articles": table "article" does not exist\n';
    const list = await run(dir, 'metadata', 'inconsistency', 'list');
    expect(list.code, show(list)).toBe(0);
    expect(list.stdout).toBe(table);
    expect(list.stderr).toBe('');
    for (const alias of [['inconsistencies', 'ls'], ['ic', 'list']]) {
      const r = await run(dir, 'metadata', ...alias);
      expect(r.code, show(r)).toBe(0);
      expect(r.stdout).toBe(table);
    }

    const objects = [
      {
        kind: 'table', name: 'public.article', reason: 'no such table/view exists in postgres : "article"', type: 'table',
        definition: { schema: 'public', name: 'article' },
      },
      {
        kind: 'array_relationship', name: 'public.author.articles',
        reason: 'in table "author": in relationship "articles": table "article" does not exist', type: 'array_relation',
        definition: {
          table: { schema: 'public', name: 'author' }, name: 'articles',
          using: { foreign_key_constraint_on: { table: { schema: 'public', name: 'article' }, column: 'author_id' } },
        },
      },
    ];
    const listJson = await run(dir, 'metadata', 'inconsistency', 'list', '-o', 'json');
    expect(listJson.code, show(listJson)).toBe(0);
    expect(jsonDoc(listJson)).toEqual({ ok: true, is_consistent: false, inconsistent_objects: objects, warnings: [] });
    const reloadJson = await run(dir, 'metadata', 'reload', '-o', 'json');
    expect(reloadJson.code, show(reloadJson)).toBe(0);
    expect(jsonDoc(reloadJson)).toMatchObject({ ok: true, is_consistent: false, inconsistent_objects: objects });

    const status = await run(dir, 'metadata', 'inconsistency', 'status');
    expect(status.code, show(status)).toBe(1);
    expect(status.stdout).toBe('');
    expect(lines(status.stderr)).toEqual([
      'error: metadata is inconsistent: 2 object(s)',
      "hint: run 'engine metadata inconsistency list' to see them",
    ]);

    const before = await e.state();
    const drop = await run(dir, 'metadata', 'inconsistency', 'drop');
    expect(drop.code, show(drop)).toBe(0);
    expect(drop.stdout).toBe('');
    expect(lines(drop.stderr)).toEqual(['Dropped 2 inconsistent object(s).']);
    const after = await engineExport();
    expect(Number(after.version)).toBe(Number(before.version) + 1);
    expect(JSON.parse(after.text).tables).toEqual([{ table: { schema: 'public', name: 'author' } }]);

    const none = await run(dir, 'metadata', 'inconsistency', 'drop');
    expect(none.code, show(none)).toBe(0);
    expect(lines(none.stderr)).toEqual(['Metadata is consistent; nothing to drop.']);
    const consistent = await run(dir, 'metadata', 'reload');
    expect(lines(consistent.stderr)).toEqual(['Metadata reloaded.', 'Metadata is consistent.']);
  });

  it('inconsistency status -o json fails with metadata-inconsistent and the objects; drop -o json lists them', async () => {
    await e.sql('create table gone (id int primary key)');
    await e.ok({ type: 'track_table', args: { table: 'gone' } });
    await e.ok({ type: 'run_sql', args: { sql: 'drop table gone', check_metadata_consistency: false } });
    await e.ok({ type: 'reload_metadata', args: {} });
    const { dir } = await newProject();
    const object = {
      kind: 'table', name: 'public.gone', reason: 'no such table/view exists in postgres : "gone"', type: 'table',
      definition: { schema: 'public', name: 'gone' },
    };

    const status = await run(dir, 'metadata', 'ic', 'status', '-o', 'json');
    expect(status.code, show(status)).toBe(1);
    const doc = jsonDoc(status);
    expect(doc.ok).toBe(false);
    expect(doc.error).toEqual({
      code: 'metadata-inconsistent', message: 'metadata is inconsistent: 1 object(s)', hint: "run 'engine metadata inconsistency list' to see them",
    });
    expect(status.stderr, 'the final error is not repeated on stderr (§3.4)').not.toMatch(/^error:/m);

    const drop = await run(dir, 'metadata', 'ic', 'drop', '-o', 'json');
    expect(drop.code, show(drop)).toBe(0);
    expect(jsonDoc(drop)).toEqual({ ok: true, dropped: [object], warnings: [] });
    expect((await engineExport()).text).toBe('{"version":2,"tables":[]}');

    // §5.9: "otherwise metadata-inconsistent (exit 1; JSON adds inconsistent_objects)".
    expect(doc.inconsistent_objects, 'status -o json adds inconsistent_objects').toEqual([object]);
  });
});
