import { isUtf8 } from 'node:buffer';
import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync, statSync, type Stats } from 'node:fs';
import { isAbsolute, relative, sep } from 'node:path';
import { CliError } from '../errors.js';

/**
 * Every project file (config.yaml, .env, metadata files, SDL, migrations) is read here, so that one rule holds
 * everywhere: a file that does not exist is absent, and a file that exists in any form but cannot be read (a symbolic
 * link loop or a broken link, a directory, a FIFO or device, no permission, an I/O error) is the error
 * `unreadable-project-file` — never taken as absent, which would make `metadata apply` remove everything it held.
 */
/** Paths in messages: relative to the current directory when below it, else absolute (cli.md conventions). */
export function shownPath(p: string, cwd = process.cwd()): string {
  const rel = relative(cwd, p);
  if (rel && !rel.startsWith('..') && !isAbsolute(rel)) return rel.split(sep).join('/');
  return rel === '' ? '.' : p.split(sep).join('/');
}

export const UNREADABLE_HINT = 'fix its type or permissions, or remove it if it should be absent';

export interface ReadOptions {
  /** Paths in messages are shown relative to it (cli.md conventions). */
  cwd?: string;
  /**
   * The error code for bytes that are not UTF-8 (`config-parse-error`, `yaml-parse-error`, …), with the position of the
   * first bad byte; without it they are decoded leniently (U+FFFD).
   */
  utf8ErrorCode?: string;
}

const ERRNO_REASONS: Record<string, string> = {
  ELOOP: 'a symbolic link loop, or too many levels of symbolic links',
  EISDIR: 'it is a directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EIO: 'input/output error',
  ENXIO: 'no such device or address',
  ENAMETOOLONG: 'the file name is too long',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files in the system',
  EOVERFLOW: 'the file is too large to read',
  ERR_FS_FILE_TOO_LARGE: 'the file is too large to read',
};

/** Why a present file could not be read, in words, with the system's code: `permission denied (EACCES)`. */
export function unreadableReason(e: unknown): string {
  const code = errnoCode(e);
  const words = code ? ERRNO_REASONS[code] : undefined;
  if (words) return `${words} (${code})`;
  const message = e instanceof Error ? e.message.replace(/, \w+ '.*'$/, '') : String(e);
  return code && !message.startsWith(code) ? `${message} (${code})` : message;
}

/** Why a file of this type is not read: only regular files are. */
export function fileTypeReason(st: Stats): string | null {
  if (st.isFile()) return null;
  if (st.isDirectory()) return 'it is a directory';
  if (st.isFIFO()) return 'it is a named pipe (FIFO), not a regular file';
  if (st.isSocket()) return 'it is a socket, not a regular file';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'it is a device, not a regular file';
  return 'it is not a regular file';
}

export function unreadable(path: string, reason: string, cwd = process.cwd()): CliError {
  return new CliError('unreadable-project-file', `unreadable project file: ${reason}`, 1, { file: shownPath(path, cwd), hint: UNREADABLE_HINT });
}

const errnoCode = (e: unknown): string | undefined => {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
};

/** ENOENT (or a parent that is not a directory) is absent — unless the name is a symbolic link to nothing. */
function absentOrBroken(path: string, e: unknown, cwd: string): undefined {
  const code = errnoCode(e);
  if (code !== 'ENOENT' && code !== 'ENOTDIR') throw unreadable(path, unreadableReason(e), cwd);
  let link = false;
  try {
    link = lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() ?? false;
  } catch {
    // ENOTDIR: a parent is a file, so nothing is there.
  }
  if (link) {
    throw unreadable(path, 'it is a symbolic link to a file that does not exist', cwd);
  }
  return undefined;
}

/** What a project path is (links followed), or undefined when it does not exist; a link loop or broken link throws. */
export function statProjectPath(path: string, cwd = process.cwd()): Stats | undefined {
  try {
    return statSync(path);
  } catch (e) {
    return absentOrBroken(path, e, cwd);
  }
}

/** The size of a project file, or undefined when it does not exist; `unreadable-project-file` as for reading it. */
export function projectFileSize(path: string, cwd = process.cwd()): number | undefined {
  const st = statProjectPath(path, cwd);
  if (st === undefined) return undefined;
  const why = fileTypeReason(st);
  if (why) throw unreadable(path, why, cwd);
  return st.size;
}

/** The bytes of a project file, or undefined when it does not exist. */
export function readProjectBytes(path: string, cwd = process.cwd()): Buffer | undefined {
  let fd: number;
  try {
    // Non-blocking, so that opening a FIFO does not wait for a writer; its type is refused right after.
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (e) {
    return absentOrBroken(path, e, cwd);
  }
  try {
    const why = fileTypeReason(fstatSync(fd));
    if (why) throw unreadable(path, why, cwd);
    return readFileSync(fd);
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw unreadable(path, unreadableReason(e), cwd);
  } finally {
    closeSync(fd);
  }
}

/** The text of a project file (UTF-8), or undefined when it does not exist. */
export function readProjectFile(path: string, opts: ReadOptions = {}): string | undefined {
  const cwd = opts.cwd ?? process.cwd();
  const bytes = readProjectBytes(path, cwd);
  if (bytes === undefined) return undefined;
  const text = bytes.toString('utf8');
  if (opts.utf8ErrorCode !== undefined && !isUtf8(bytes)) {
    // Positions are counted after a BOM, as the parsers count them.
    const bom = text.startsWith('\uFEFF') ? 1 : 0;
    const at = firstInvalidUtf8(bytes, text) - bom;
    throw new CliError(opts.utf8ErrorCode, 'invalid UTF-8 byte sequence: the file must be UTF-8 text', 1, {
      file: shownPath(path, cwd), ...lineColumn(text.slice(bom), at),
    });
  }
  return text;
}

/** The index in `text` (the lenient decoding of `bytes`) of the first U+FFFD that stands for invalid bytes. */
function firstInvalidUtf8(bytes: Buffer, text: string): number {
  let offset = 0;
  let i = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0) ?? 0;
    if (cp === 0xfffd && !(bytes[offset] === 0xef && bytes[offset + 1] === 0xbf && bytes[offset + 2] === 0xbd)) return i;
    offset += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    i += ch.length;
  }
  return i;
}

/** The 1-based line and column (in characters) of an index of `text`. */
export function lineColumn(text: string, index: number): { line: number; column: number } {
  const before = text.slice(0, index);
  const nl = before.lastIndexOf('\n');
  return { line: before.split('\n').length, column: index - nl };
}

/**
 * The index of the first character YAML text may not contain (YAML 1.2 §5.1 c-printable: no C0 control but tab, LF
 * and CR, no DEL, no C1 control but NEL, no U+FFFE/U+FFFF), or -1. Binary data is caught here: the `yaml` parser
 * would read it as a plain scalar or even a mapping.
 */
export function nonPrintableIndex(text: string): number {
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  return text.search(/[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x84\x86-\x9F\uFFFE\uFFFF]/);
}

/** `control character U+0001 is not allowed in YAML text`, for the character at `index`. */
export function nonPrintableMessage(text: string, index: number): string {
  const cp = (text.codePointAt(index) ?? 0).toString(16).toUpperCase().padStart(4, '0');
  return `character U+${cp} is not allowed in YAML text (a control character: is this a binary file?)`;
}
