import { promisify } from 'node:util';
import { gzip } from 'node:zlib';

/**
 * A data directory's tarball (PGlite's dumpDataDir, ustar) without the WAL segments outside `[from, to]`: after a
 * checkpoint, a start reads the WAL from the checkpoint's redo segment to the last one written; the others are
 * recycled segments kept for later writes (16 MB each, a fifth of a migrated database of 1,000 tables), which
 * PostgreSQL creates again when it needs them. Segment names of one timeline sort as their positions.
 */
export function withoutSpareWal(tar: Uint8Array, from: string, to: string): Uint8Array {
  const kept: Uint8Array[] = [];
  let at = 0;
  while (at + 512 <= tar.length) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) break;
    const prefix = field(header, 345, 155);
    const name = prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100);
    const size = parseInt(field(header, 124, 12).trim() || '0', 8);
    const end = at + 512 + Math.ceil(size / 512) * 512;
    const segment = /(?:^|\/)pg_wal\/([0-9A-F]{24})$/.exec(name)?.[1];
    if (segment === undefined || (segment >= from && segment <= to)) kept.push(tar.subarray(at, end));
    at = end;
  }
  // The end of an archive: two empty blocks.
  kept.push(new Uint8Array(1024));
  return Buffer.concat(kept);
}

function field(header: Uint8Array, start: number, length: number): string {
  const s = Buffer.from(header.buffer, header.byteOffset + start, length).toString('latin1');
  const nul = s.indexOf('\0');
  return nul < 0 ? s : s.slice(0, nul);
}

/**
 * Gzip at level 1 on libuv's thread pool: PGlite's own (CompressionStream, level 6) took three times the CPU on the
 * main thread for a file a seventh larger; PGlite's load takes either.
 */
export const gzipDump = (tar: Uint8Array): Promise<Uint8Array> => promisify(gzip)(tar, { level: 1 });
