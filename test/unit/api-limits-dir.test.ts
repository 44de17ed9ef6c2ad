import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildMetadata } from '../../src/project/metadata-dir/build.js';
import { plannedFiles, renderFiles } from '../../src/project/metadata-dir/export.js';

// Issue 31 item 6: metadata/api_limits.yaml, in the incumbent's format, is read into the document's `api_limits`
// and written back by export; it is no longer `feature-not-supported`.

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function build(files: Record<string, string>) {
  dir = mkdtempSync(join(tmpdir(), 'engine-api-limits-'));
  const md = join(dir, 'metadata');
  mkdirSync(md);
  for (const [name, text] of Object.entries({ 'version.yaml': 'version: 2\n', 'tables.yaml': '[]\n', ...files })) writeFileSync(join(md, name), text);
  const r = buildMetadata(md, dir);
  return { md, document: r.document, problems: r.problems.sorted().map((p) => `${p.severity} ${p.code} ${p.file}:${p.line}:${p.column} ${p.message}`) };
}

const INCUMBENT = `depth_limit:
  global: 10
  per_role:
    customer: 5
disabled: false
node_limit:
  global: 10
  per_role:
    customer: 5
rate_limit:
  global:
    max_reqs_per_min: 100
    unique_params: null
  per_role:
    customer:
      max_reqs_per_min: 60
      unique_params: [X-Hasura-User-Id]
time_limit:
  global: 10
  per_role:
    customer: 5
`;

describe('metadata/api_limits.yaml', () => {
  it('the incumbent\'s file builds into api_limits, canonical; export writes it back, and it builds the same', () => {
    const { md, document, problems } = build({ 'api_limits.yaml': INCUMBENT });
    expect(problems).toEqual([]);
    expect(document?.['api_limits']).toEqual({
      depth_limit: { global: 10, per_role: { customer: 5 } },
      disabled: false,
      node_limit: { global: 10, per_role: { customer: 5 } },
      rate_limit: { global: { max_reqs_per_min: 100, unique_params: null }, per_role: { customer: { max_reqs_per_min: 60, unique_params: ['x-hasura-user-id'] } } },
      time_limit: { global: 10, per_role: { customer: 5 } },
    });
    const planned = plannedFiles(md, renderFiles(document ?? {}), false);
    const text = planned.get('api_limits.yaml');
    expect(text).toContain('max_reqs_per_min: 60');
    const again = build({ 'api_limits.yaml': text ?? '' });
    expect(again.document?.['api_limits']).toEqual(document?.['api_limits']);
  });

  it('an empty file sets no limits, and export adds no file to a project without limits', () => {
    const { md, document, problems } = build({ 'api_limits.yaml': '{}\n' });
    expect(problems).toEqual([]);
    expect(document).not.toHaveProperty('api_limits');
    rmSync(join(md, 'api_limits.yaml'));
    expect(plannedFiles(md, renderFiles(document ?? {}), false).get('api_limits.yaml')).toBeNull();
  });

  it('an invalid limit is an error at its position in the file', () => {
    const { document, problems } = build({ 'api_limits.yaml': 'depth_limit:\n  global: many\n' });
    expect(document).toBeNull();
    expect(problems).toEqual(['error metadata-invalid metadata/api_limits.yaml:2:11 expected Number, encountered String']);
  });
});
