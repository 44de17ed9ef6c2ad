import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { initProject } from '../../src/project/init/init.js';
import { readExistingFiles, renderFiles, writeMetadataDir } from '../../src/project/metadata-dir/export.js';

// Issue 19 item 7: `export --prune` then `export` keeps the schema headers of the files it recreates.

let temp: string | undefined;
afterEach(() => {
  if (temp) rmSync(temp, { recursive: true, force: true });
  temp = undefined;
});

const DOC = { version: 2, tables: [{ table: { schema: 'public', name: 'a' } }] };

describe('export after --prune', () => {
  it('recreates the pruned files with the schema line the other files use, naming their own schema', () => {
    temp = mkdtempSync(join(tmpdir(), 'engine-prune-'));
    const dir = initProject({ dir: join(temp, 'proj'), endpoint: 'http://localhost:8080' }).directory;
    const md = join(dir, 'metadata');
    const header = (name: string) => `# yaml-language-server: $schema=../schemas/${name}.schema.json\n\n`;
    const functions = readFileSync(join(md, 'functions.yaml'), 'utf8');
    expect(functions).toBe(`${header('functions')}[]\n`);

    const pruned = writeMetadataDir(md, renderFiles(DOC, readExistingFiles(md)), true);
    expect(pruned.removed).toContain('functions.yaml');
    expect(existsSync(join(md, 'functions.yaml'))).toBe(false);
    expect(readFileSync(join(md, 'tables.yaml'), 'utf8').startsWith(header('tables'))).toBe(true);

    const again = writeMetadataDir(md, renderFiles(DOC, readExistingFiles(md)), false);
    expect(again.created).toContain('functions.yaml');
    expect(readFileSync(join(md, 'functions.yaml'), 'utf8')).toBe(functions);
    expect(readFileSync(join(md, 'allow_list.yaml'), 'utf8')).toBe(`${header('allow_list')}[]\n`);
    expect(existsSync(join(md, 'inherited_roles.yaml')), 'optional files are still not added').toBe(false);
  });

  it('adds no header to a project whose files have none', () => {
    temp = mkdtempSync(join(tmpdir(), 'engine-prune-'));
    const md = join(temp, 'metadata');
    writeMetadataDir(md, renderFiles(DOC), false);
    expect(readFileSync(join(md, 'functions.yaml'), 'utf8')).toBe('[]\n');
  });
});
