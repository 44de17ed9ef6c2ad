/**
 * End-to-end (issue 29, the incumbent's projects unedited): `engine serve` in a config version 3 project reads the
 * pool of `metadata/databases/databases.yaml` (`pool_settings`, `use_prepared_statements`); a bad value stops it
 * before anything starts, as a bad variable does. The resolution itself is pinned by test/unit/dropin-pool-settings.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from './cli-helpers.js';
import { finished, run, serve, stopAll } from './process-helpers.js';

afterEach(stopAll);

async function v3Project(poolSettings: string): Promise<string> {
  const dir = await tempDir();
  mkdirSync(join(dir, 'metadata', 'databases'), { recursive: true });
  writeFileSync(join(dir, 'config.yaml'), 'version: 3\n');
  writeFileSync(join(dir, 'metadata', 'version.yaml'), 'version: 3\n');
  writeFileSync(join(dir, 'metadata', 'databases', 'databases.yaml'), `- name: default
  kind: postgres
  configuration:
    connection_info:
      database_url: {from_env: PG_DATABASE_URL}
      pool_settings: ${poolSettings}
  tables: []
`);
  return dir;
}

describe('engine serve and the pool of databases.yaml', () => {
  it('a bad pool setting stops engine serve (exit 1) naming the setting and the file; a good one serves', async () => {
    const bad = await v3Project('{max_connections: 0}');
    const p = run(['serve', '--port', '0', '--data-dir', join(bad, 'data')], bad);
    expect(await finished(p)).toBe(1);
    expect(p.err()).toContain('invalid value for "pool_settings.max_connections" in metadata/databases/databases.yaml: expected a positive integer');
    const good = await v3Project('{max_connections: 5, idle_timeout: 30, retries: 1}');
    const { url } = await serve(good, ['--data-dir', join(good, 'data')]);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });
});
