import type { ParseResult } from 'libpg-query';

/** A transaction-control statement found in a SQL text (BEGIN, COMMIT, ROLLBACK, SAVEPOINT, PREPARE TRANSACTION …). */
export interface TransactionStatement {
  /** PostgreSQL's statement kind, e.g. `TRANS_STMT_COMMIT`. */
  kind: string;
  /** Offset of the statement in the text (UTF-16 code units), its 1-based line and column. */
  offset: number;
  end: number;
  line: number;
  column: number;
  /** Its 0-based position among the text's statements, and whether it is the last one. */
  index: number;
  last: boolean;
  /** The savepoint a SAVEPOINT, RELEASE or ROLLBACK TO names, as PostgreSQL folds it. */
  savepoint?: string;
  /** `COMMIT AND CHAIN` / `ROLLBACK AND CHAIN`: a new transaction starts at once. */
  chain?: boolean;
}

export interface TransactionControlScan {
  statements: TransactionStatement[];
  /**
   * True when PostgreSQL's grammar rejects the text: PostgreSQL parses a whole simple-query text before it runs any
   * statement of it, so such a text runs nothing at all.
   */
  unparsable: boolean;
}

/**
 * Every transaction-control statement begins with one of these keywords as a token. A text without any of them as a
 * whole word cannot hold one, so the parser (≈0.2 ms per KB) only runs on texts that might. The test errs on the safe
 * side: PostgreSQL identifiers may contain `$` and non-ASCII letters, which only make this match more often.
 */
const MAYBE = /\b(begin|commit|rollback|end|abort|start|savepoint|release|prepare)\b/i;

/** Texts are parsed in pieces of about this size, so a 50 MB script does not need gigabytes of AST at once. */
const PIECE = 2 * 1024 * 1024;

/** libpg_query, loaded on the first text that needs it: its WebAssembly is not part of every start of the engine. */
let loading: Promise<Parse> | null = null;

type Parse = (text: string) => ParseResult;

/**
 * Finds transaction-control statements with PostgreSQL's own parser (libpg_query), never a hand-written splitter:
 * quoting (`E'\''`, `$tag$`, `U&"…"`, nested comments) is read exactly as the server reads it.
 */
export async function scanTransactionControl(sql: string): Promise<TransactionControlScan> {
  if (!MAYBE.test(sql)) return { statements: [], unparsable: false };
  loading ??= import('libpg-query').then(async (m) => {
    await m.loadModule();
    return m.parseSync;
  });
  return scanPieces(sql, await loading);
}

function tryParse(parse: Parse, text: string): ParseResult | null {
  if (text.trim() === '') return { version: 0, stmts: [] } as unknown as ParseResult;
  try {
    return parse(text);
  } catch {
    return null;
  }
}

/**
 * A piece ends right after a `;` and a line break. If that `;` was inside a string, quoted identifier, comment, dollar
 * quote, `BEGIN ATOMIC` body or rule action list, the piece ends inside an open construct and does not parse; the piece
 * then doubles until it does. A piece that parses ends at a top-level boundary, so the pieces' statements are exactly
 * the text's statements (a `--` comment around the `;` closes at the line break the piece includes).
 */
function scanPieces(sql: string, parse: Parse): TransactionControlScan {
  const statements: TransactionStatement[] = [];
  let count = 0;
  let start = 0;
  while (start < sql.length) {
    let size = PIECE;
    for (;;) {
      const end = boundaryAfter(sql, start + size);
      const piece = sql.slice(start, end);
      const parsed = tryParse(parse, piece);
      if (parsed) {
        collect(sql, piece, start, parsed, count, statements);
        count += parsed.stmts?.length ?? 0;
        start = end;
        break;
      }
      if (end >= sql.length) return { statements: [], unparsable: true };
      size *= 2;
    }
  }
  for (const s of statements) s.last = s.index === count - 1;
  return { statements, unparsable: false };
}

function boundaryAfter(sql: string, from: number): number {
  if (from >= sql.length) return sql.length;
  const re = /;[ \t]*\r?\n/g;
  re.lastIndex = from;
  const m = re.exec(sql);
  return m ? m.index + m[0].length : sql.length;
}

function collect(sql: string, piece: string, base: number, parsed: ParseResult, before: number, out: TransactionStatement[]): void {
  let bytes: Buffer | null = null;
  for (const [i, s] of (parsed.stmts ?? []).entries()) {
    const node = s.stmt as { TransactionStmt?: { kind?: string; savepoint_name?: string; chain?: boolean } } | undefined;
    if (!node?.TransactionStmt) continue;
    bytes ??= Buffer.from(piece, 'utf8');
    // libpg_query reports byte offsets into the UTF-8 text.
    const from = bytes.subarray(0, s.stmt_location ?? 0).toString('utf8').length;
    const to = s.stmt_len ? bytes.subarray(0, (s.stmt_location ?? 0) + s.stmt_len).toString('utf8').length : piece.length;
    const offset = base + from + leadingSkip(piece.slice(from, to));
    const { line, column } = lineColumn(sql, offset);
    const { kind, savepoint_name: savepoint, chain } = node.TransactionStmt;
    out.push({
      kind: kind ?? 'TRANS_STMT_UNKNOWN', offset, end: base + to, line, column, index: before + i, last: false,
      ...(savepoint !== undefined ? { savepoint } : {}), ...(chain ? { chain } : {}),
    });
  }
}

/** A statement's location may include the whitespace before its first keyword. */
function leadingSkip(text: string): number {
  return text.length - text.trimStart().length;
}

export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}
