import { scanTransactionControl, type TransactionStatement } from '../../db/transaction-control.js';
import { CliError } from '../../errors.js';
import { shownPath } from '../config/environment.js';
import { caretLines } from '../source-lines.js';

/** The parts of a migration step this module reads and rewrites. */
interface SqlStep {
  file: string | null;
  sql: string | null;
}

const OPENS = new Set(['TRANS_STMT_BEGIN', 'TRANS_STMT_START']);

/** The statement's words as PostgreSQL's parser names its kind, for messages. */
const WORDS: Record<string, string> = {
  TRANS_STMT_BEGIN: 'BEGIN', TRANS_STMT_START: 'START TRANSACTION', TRANS_STMT_COMMIT: 'COMMIT', TRANS_STMT_ROLLBACK: 'ROLLBACK',
  TRANS_STMT_SAVEPOINT: 'SAVEPOINT', TRANS_STMT_RELEASE: 'RELEASE SAVEPOINT', TRANS_STMT_ROLLBACK_TO: 'ROLLBACK TO SAVEPOINT',
  TRANS_STMT_PREPARE: 'PREPARE TRANSACTION', TRANS_STMT_COMMIT_PREPARED: 'COMMIT PREPARED', TRANS_STMT_ROLLBACK_PREPARED: 'ROLLBACK PREPARED',
};

/**
 * Migrations written for the incumbent often wrap themselves in `BEGIN; … COMMIT;`. Each migration already runs in its
 * own transaction, so exactly that wrapper — a first statement BEGIN (or START TRANSACTION) and a last statement
 * COMMIT (or END) — is blanked out, keeping every other character where it was so PostgreSQL's error positions still
 * point into the file. Any other transaction control would end the migration's transaction: it is refused with its
 * file, line and column before anything is sent. Statements are found by PostgreSQL's own parser.
 */
export async function unwrapTransactions<T extends SqlStep>(steps: T[]): Promise<T[]> {
  const out: T[] = [];
  for (const step of steps) {
    if (step.sql === null || step.file === null) {
      out.push(step);
      continue;
    }
    const found = (await scanTransactionControl(step.sql)).statements;
    if (found.length === 0) {
      out.push(step);
      continue;
    }
    const [first, last] = [found[0] as TransactionStatement, found[found.length - 1] as TransactionStatement];
    const opener = first.index === 0 && OPENS.has(first.kind) ? first : null;
    const closer = last !== first && last.last && last.kind === 'TRANS_STMT_COMMIT' ? last : null;
    if (!opener || !closer || found.length !== 2) {
      throw refused(step.file, step.sql, found.find((s) => s !== opener && s !== closer) ?? first);
    }
    out.push({ ...step, sql: blank(blank(step.sql, closer), opener) });
  }
  return out;
}

function blank(sql: string, s: TransactionStatement): string {
  return sql.slice(0, s.offset) + sql.slice(s.offset, s.end).replace(/[^\n]/g, ' ') + sql.slice(s.end);
}

function refused(file: string, sql: string, s: TransactionStatement): CliError {
  const word = WORDS[s.kind] ?? 'transaction control';
  const error = new CliError('migration-invalid', `${word} is not allowed in a migration: each migration runs in its own transaction`, 1, {
    file: shownPath(file), line: s.line, column: s.column,
    hint: 'remove it; a file wrapped in exactly one BEGIN; … COMMIT; is accepted as it is',
  });
  return Object.assign(error, { excerpt: caretLines(sql.split('\n')[s.line - 1]?.replace(/\r$/, '') ?? '', s.column) });
}
