/**
 * Golden fixtures, one per metadata kind (test/fixtures/metadata/<kind>/): a metadata directory in INPUT form (string
 * table names, omitted defaults, keys and list items in any order) and `expected.json`, its canonical build
 * (cli.md §4.5, §4.7; engine-api.md §6). For each: the build equals expected.json exactly, key order included; the
 * export of expected.json builds back to it exactly (round trip, cli.md §4.14); export is deterministic (§4.8).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { canonicalDocument } from '../../src/metadata/document.js';
import type { JsonObject } from '../../src/metadata/json.js';
import { buildMetadata, METADATA_FILES, type MetadataFileKey } from '../../src/project/metadata-dir/build.js';
import { readExistingFiles, renderFiles } from '../../src/project/metadata-dir/export.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/metadata/', import.meta.url));

const KINDS = [
  'tables-relationships', 'permissions', 'computed-fields', 'event-triggers', 'functions', 'actions-custom-types',
  'query-collections', 'cron-triggers', 'allow-list',
];

const temps: string[] = [];
afterAll(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});

function expected(kind: string): { text: string; doc: JsonObject } {
  const text = readFileSync(join(FIXTURES, kind, 'expected.json'), 'utf8');
  return { text, doc: JSON.parse(text) as JsonObject };
}

/** Builds a directory, asserting that it has no problem at all, and returns the document. */
function build(dir: string): JsonObject {
  const r = buildMetadata(dir);
  const problems = r.problems.sorted().map((p) => `${p.file}:${p.line}:${p.column}: ${p.severity}: ${p.message} [${p.code}]`);
  expect(problems).toEqual([]);
  expect(r.document).not.toBeNull();
  return r.document as JsonObject;
}

/** Writes rendered files into a fresh directory as export does (an empty key gets its empty content, §4.8 step 4). */
function writeRendered(files: Map<MetadataFileKey, string | undefined>): string {
  const dir = mkdtempSync(join(tmpdir(), 'engine-golden-'));
  temps.push(dir);
  for (const [key, content] of files) writeFileSync(join(dir, METADATA_FILES[key][0]), content ?? METADATA_FILES[key][1]);
  return dir;
}

const asObject = (files: Map<MetadataFileKey, string | undefined>): Record<string, string | null> =>
  Object.fromEntries([...files].map(([k, v]) => [k, v ?? null]));

describe('golden fixtures per metadata kind (cli.md §4.5, §4.14)', () => {
  it('has one directory per kind, each with metadata/ and expected.json', () => {
    const dirs = readdirSync(FIXTURES).filter((d) => statSync(join(FIXTURES, d)).isDirectory()).sort();
    expect(dirs).toEqual([...KINDS].sort());
    for (const kind of KINDS) {
      expect(statSync(join(FIXTURES, kind, 'metadata')).isDirectory()).toBe(true);
      expect(statSync(join(FIXTURES, kind, 'expected.json')).isFile()).toBe(true);
    }
  });

  for (const kind of KINDS) {
    describe(kind, () => {
      it('expected.json is canonical: 2-space JSON, a fixed point of canonical form', () => {
        const { text, doc } = expected(kind);
        expect(text).toBe(`${JSON.stringify(doc, null, 2)}\n`);
        expect(JSON.stringify(canonicalDocument(doc))).toBe(JSON.stringify(doc));
      });

      it('the input is not already canonical (the build has work to do)', () => {
        const { doc } = expected(kind);
        const rendered = renderFiles(doc);
        const differs = [...rendered].some(([key, content]) => {
          const path = join(FIXTURES, kind, 'metadata', METADATA_FILES[key][0]);
          let old: string | null = null;
          try {
            old = readFileSync(path, 'utf8');
          } catch {
            old = null;
          }
          return old !== null && content !== undefined && old !== content;
        });
        expect(differs).toBe(true);
      });

      it('builds from input form to exactly expected.json, key order included', () => {
        const doc = build(join(FIXTURES, kind, 'metadata'));
        expect(JSON.stringify(doc, null, 2)).toBe(JSON.stringify(expected(kind).doc, null, 2));
      });

      it('round trip: the export of expected.json builds back to exactly expected.json', () => {
        const { doc } = expected(kind);
        const dir = writeRendered(renderFiles(doc));
        expect(JSON.stringify(build(dir))).toBe(JSON.stringify(doc));
      });

      it('export is deterministic: rendering twice, and re-exporting over the written files, gives the same bytes', () => {
        const { doc } = expected(kind);
        const first = renderFiles(doc);
        const second = renderFiles(JSON.parse(JSON.stringify(doc)) as JsonObject);
        expect(asObject(second)).toEqual(asObject(first));
        const dir = writeRendered(first);
        const again = renderFiles(build(dir), readExistingFiles(dir));
        expect(asObject(again)).toEqual(asObject(first));
        // build(export(build(D))) = build(D), and exporting that again writes byte-identical files (§4.14).
        const fromInput = renderFiles(build(join(FIXTURES, kind, 'metadata')));
        expect(asObject(fromInput)).toEqual(asObject(first));
      });
    });
  }
});
