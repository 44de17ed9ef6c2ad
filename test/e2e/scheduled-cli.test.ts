import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, initProject, jsonDoc, show, useTestEngine } from './cli-helpers.js';

// Issue 20: cron_triggers.yaml, query_collections.yaml, allow_list.yaml and rest_endpoints.yaml are validated offline
// at their positions, applied, exported back byte for byte and diffed clean; `events list --scheduled` shows events.

const e = useTestEngine();

const FILES: Record<string, string> = {
  'tables.yaml': '- table:\n    schema: public\n    name: item\n',
  'query_collections.yaml': [
    '- name: public',
    '  definition:',
    '    queries:',
    '      - name: items',
    '        query: query items { item { id name } }',
    '      - name: item',
    '        query: "query item($id: Int!) { item(where: {id: {_eq: $id}}) { id name } }"',
    '',
  ].join('\n'),
  'allow_list.yaml': '- collection: public\n',
  'cron_triggers.yaml': [
    '- name: nightly',
    '  webhook: "{{JOBS_URL}}/nightly"',
    '  schedule: 0 3 * * *',
    '  include_in_metadata: true',
    '  payload:',
    '    keep_days: 30',
    '  retry_conf:',
    '    num_retries: 2',
    '    tolerance_seconds: 600',
    '  comment: cleans up',
    '',
  ].join('\n'),
  'rest_endpoints.yaml': [
    '- name: item',
    '  url: items/:id',
    '  methods:',
    '    - GET',
    '  definition:',
    '    query:',
    '      collection_name: public',
    '      query_name: item',
    '',
  ].join('\n'),
};

describe('the four files of issue 20', () => {
  it('validate at positions, apply, export byte for byte and diff clean', async () => {
    await e.sql('create table item (id int primary key, name text)');
    const { dir } = await initProject(e.url);
    const md = join(dir, 'metadata');
    expect(existsSync(join(md, 'rest_endpoints.yaml'))).toBe(false);
    writeFileSync(join(md, 'cron_triggers.yaml'), '- name: never\n  webhook: http://127.0.0.1:1/x\n  schedule: 0 0 30 2 *\n  include_in_metadata: true\n');
    writeFileSync(join(md, 'query_collections.yaml'), '- name: c\n  definition:\n    queries:\n      - name: q\n        query: "{ item { id "\n');
    writeFileSync(join(md, 'allow_list.yaml'), '- collection: nope\n');
    const bad = await cli(['metadata', 'validate'], { cwd: dir });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain('metadata/cron_triggers.yaml:3:13: error: cron schedule "0 0 30 2 *" never fires [cron-schedule-invalid]');
    expect(bad.stdout).toContain('metadata/query_collections.yaml:5:16: error:');
    expect(bad.stdout).toContain('metadata/allow_list.yaml:1:15: error: allow list entry refers to unknown query collection "nope" [reference-invalid]');

    for (const [name, text] of Object.entries(FILES)) writeFileSync(join(md, name), text);
    const ok = await cli(['metadata', 'validate'], { cwd: dir });
    expect(ok.code, show(ok)).toBe(0);
    const apply = await cli(['metadata', 'apply'], { cwd: dir });
    expect(apply.code, show(apply)).toBe(0);
    const doc = await e.ok({ type: 'export_metadata', args: {} });
    expect(Object.keys(doc)).toEqual(['version', 'tables', 'query_collections', 'allowlist', 'cron_triggers', 'rest_endpoints']);
    const exported = await cli(['metadata', 'export'], { cwd: dir });
    expect(exported.code, show(exported)).toBe(0);
    for (const [name, text] of Object.entries(FILES)) expect(readFileSync(join(md, name), 'utf8'), name).toBe(text);
    const diff = await cli(['metadata', 'diff', '--exit-code'], { cwd: dir });
    expect(diff.code, show(diff)).toBe(0);

    // An edited schedule is one change; apply carries it.
    writeFileSync(join(md, 'cron_triggers.yaml'), FILES['cron_triggers.yaml']?.replace('0 3 * * *', '30 3 * * *') ?? '');
    const changed = await cli(['metadata', 'diff', '--exit-code'], { cwd: dir });
    expect(changed.code).toBe(2);
    expect(changed.stdout).toContain('~ cron_trigger nightly');
  });

  it('events list --scheduled shows one-off scheduled events', async () => {
    const { dir } = await initProject(e.url);
    const at = new Date(Date.now() + 3600_000).toISOString();
    const { event_id: id } = await e.ok({ type: 'create_scheduled_event', args: { webhook: 'http://127.0.0.1:1/x', schedule_at: at, payload: { a: 1 } } });
    const text = await cli(['events', 'list', '--scheduled'], { cwd: dir });
    expect(text.code, show(text)).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`^ID\\s+TYPE\\s+TRIGGER\\s+SCHEDULED\\s+STATE\\s+TRIES\\s+NEXT RETRY\\n${id}\\s+one_off\\s+-\\s+\\S+\\s+scheduled\\s+0\\s+-\\n$`));
    const json = jsonDoc(await cli(['events', 'list', '--scheduled', '--status', 'pending', '-o', 'json'], { cwd: dir }));
    expect(json.scheduled_events).toEqual([expect.objectContaining({ id, type: 'one_off', state: 'scheduled', payload: { a: 1 } })]);
  });
});
