/**
 * PgliteDatabase.dump (src/db/pglite-dump.ts): a checkpointed tarball without the spare WAL segments, gzipped or not,
 * loads into a database that has the dumped data and keeps working past the WAL segments left out (PostgreSQL makes
 * them again). withoutSpareWal on a hand-made archive: only `pg_wal/<segment>` entries outside the range go.
 */
import { gunzipSync } from 'node:zlib';
import { expect, it } from 'vitest';
import { PgliteDatabase } from '../../src/db/pglite.js';
import { gzipDump, withoutSpareWal } from '../../src/db/pglite-dump.js';

/** A ustar archive of `files` (name → bytes); long names go to the prefix field. */
function tar(files: Record<string, Uint8Array>): Uint8Array {
  const blocks: Uint8Array[] = [];
  for (const [path, data] of Object.entries(files)) {
    const h = Buffer.alloc(512);
    const cut = path.length > 100 ? path.lastIndexOf('/') : -1;
    h.write(cut < 0 ? path : path.slice(cut + 1), 0, 'latin1');
    if (cut >= 0) h.write(path.slice(0, cut), 345, 'latin1');
    h.write(`${data.length.toString(8).padStart(11, '0')}\0`, 124, 'latin1');
    h.write('ustar\0', 257, 'latin1');
    blocks.push(h, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

const names = (archive: Uint8Array): string[] => {
  const out: string[] = [];
  for (let at = 0; at + 512 <= archive.length;) {
    const h = Buffer.from(archive.subarray(at, at + 512));
    if (h.every((b) => b === 0)) break;
    const field = (s: number, n: number) => h.toString('latin1', s, s + n).replace(/\0.*$/s, '');
    out.push(field(345, 155) ? `${field(345, 155)}/${field(0, 100)}` : field(0, 100));
    at += 512 + Math.ceil(parseInt(field(124, 12), 8) / 512) * 512;
  }
  return out;
};

it('withoutSpareWal keeps every entry but the WAL segments outside [from, to]', () => {
  const seg = (n: number) => `/pg_wal/00000001000000000000000${n}`;
  const deep = `/base/${'d'.repeat(120)}/1249`;
  const archive = tar({ '/PG_VERSION': Buffer.from('17\n'), [seg(1)]: Buffer.alloc(700, 1), [seg(2)]: Buffer.alloc(10, 2), [seg(3)]: Buffer.alloc(513, 3), [seg(4)]: Buffer.alloc(5), '/pg_wal/archive_status/x': Buffer.alloc(1), [deep]: Buffer.alloc(600, 9) });
  expect(names(archive)).toHaveLength(7);
  const kept = withoutSpareWal(archive, '000000010000000000000002', '000000010000000000000003');
  expect(names(kept)).toEqual(['/PG_VERSION', seg(2), seg(3), '/pg_wal/archive_status/x', deep]);
  // The kept entries' bytes are unchanged.
  expect(Buffer.from(kept).includes(Buffer.alloc(513, 3))).toBe(true);
  expect(Buffer.from(kept).includes(Buffer.alloc(600, 9))).toBe(true);
});

it('a dump loads with its data, gzipped or not, and writes past the WAL segments it left out', async () => {
  const db = await PgliteDatabase.open(undefined);
  let dump: Uint8Array;
  try {
    await db.query('CREATE TABLE kept (id int PRIMARY KEY, v text)');
    await db.query("INSERT INTO kept SELECT i, repeat('x', 200) FROM generate_series(1, 20000) i");
    dump = await db.dump();
  } finally {
    await db.close();
  }
  const wal = names(dump).filter((n) => /pg_wal\/[0-9A-F]{24}$/.test(n));
  expect(wal).toHaveLength(1);
  const gz = await gzipDump(dump);
  expect(gunzipSync(gz).equals(Buffer.from(dump))).toBe(true);
  for (const bytes of [dump, gz]) {
    const again = await PgliteDatabase.open(undefined, undefined, undefined, bytes);
    try {
      expect(await again.query('SELECT count(*)::int AS n FROM kept')).toEqual([{ n: 20000 }]);
      // ~40 MB of WAL: two segment switches beyond the one kept.
      await again.query("CREATE TABLE more AS SELECT i, repeat('y', 300) AS v FROM generate_series(1, 100000) i");
      await again.query('CHECKPOINT');
      expect(await again.query('SELECT count(*)::int AS n FROM more')).toEqual([{ n: 100000 }]);
      const [seg] = await again.query<{ f: string }>('SELECT pg_walfile_name(pg_current_wal_insert_lsn()) AS f');
      expect((seg?.f ?? '') > (wal[0] as string).slice(-24)).toBe(true);
    } finally {
      await again.close();
    }
  }
}, 120_000);
