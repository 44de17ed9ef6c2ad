import { scanTransactionControl, type TransactionStatement } from '../../db/transaction-control.js';
import { CliError } from '../../errors.js';
import { shownPath } from '../config/environment.js';
import { caretLines } from '../source-lines.js';

/** The parts of a migration step this module reads and rewrites. */
interface SqlStep {
  file: string | null;
  sql: string | null;
}

/** The statement's words as PostgreSQL's parser names its kind, for messages. */
const WORDS: Record<string, string> = {
  TRANS_STMT_BEGIN: 'BEGIN', TRANS_STMT_START: 'START TRANSACTION', TRANS_STMT_COMMIT: 'COMMIT', TRANS_STMT_ROLLBACK: 'ROLLBACK',
  TRANS_STMT_SAVEPOINT: 'SAVEPOINT', TRANS_STMT_RELEASE: 'RELEASE SAVEPOINT', TRANS_STMT_ROLLBACK_TO: 'ROLLBACK TO SAVEPOINT',
  TRANS_STMT_PREPARE: 'PREPARE TRANSACTION', TRANS_STMT_COMMIT_PREPARED: 'COMMIT PREPARED', TRANS_STMT_ROLLBACK_PREPARED: 'ROLLBACK PREPARED',
};

const OWN_TRANSACTION = 'each migration runs in its own transaction';

/** A statement that cannot run inside the migration's transaction, and why. */
interface Refusal {
  statement: TransactionStatement;
  message: string;
}

const word = (s: TransactionStatement): string => `${WORDS[s.kind] ?? 'transaction control'}${s.chain ? ' AND CHAIN' : ''}`;
const refusal = (s: TransactionStatement, what = word(s), why = OWN_TRANSACTION): Refusal =>
  ({ statement: s, message: `${what} is not allowed in a migration: ${why}` });

/**
 * The transaction-control statements of one file that can be blanked with the file's statements still running as one
 * transaction, or the first one that cannot. Transaction blocks (`BEGIN`/`START TRANSACTION` … `COMMIT`/`END`) may sit
 * anywhere, several in a file, as the incumbent's squashed migrations have them; inside a transaction they only group
 * statements that run anyway. A savepoint released in the same block changes nothing either. What would end the
 * migration's transaction half-way or undo part of it (a COMMIT without its BEGIN, ROLLBACK, ROLLBACK TO SAVEPOINT,
 * two-phase commit, AND CHAIN), a block left open, a nested BEGIN and a savepoint never released or released without
 * being set are refused.
 */
export function transactionPlan(found: readonly TransactionStatement[]): TransactionStatement[] | Refusal {
  let block: TransactionStatement | null = null;
  // Savepoints set and not yet released; those from `base` on were set inside the open block.
  const savepoints: TransactionStatement[] = [];
  let base = 0;
  for (const s of found) {
    if (s.chain) return refusal(s);
    switch (s.kind) {
      case 'TRANS_STMT_BEGIN':
      case 'TRANS_STMT_START':
        if (block) return refusal(s, word(s), `a transaction block is already open (line ${block.line})`);
        block = s;
        base = savepoints.length;
        break;
      case 'TRANS_STMT_COMMIT': {
        if (!block) return refusal(s, `${word(s)} without BEGIN`, `it would commit the migration half-way; ${OWN_TRANSACTION}`);
        const open = savepoints[base];
        if (open) return unreleased(open);
        block = null;
        base = 0;
        break;
      }
      case 'TRANS_STMT_SAVEPOINT':
        savepoints.push(s);
        break;
      case 'TRANS_STMT_RELEASE': {
        let i = savepoints.length - 1;
        while (i >= base && savepoints[i]?.savepoint !== s.savepoint) i--;
        if (i < base) return refusal(s, `RELEASE SAVEPOINT "${s.savepoint ?? ''}"`, `no SAVEPOINT "${s.savepoint ?? ''}" is set before it${block ? ' in its transaction block' : ''}`);
        savepoints.length = i;
        break;
      }
      default:
        return refusal(s);
    }
  }
  if (block) return refusal(block, `${word(block)} without COMMIT`, `the transaction block is never closed; ${OWN_TRANSACTION}`);
  const open = savepoints[0];
  return open ? unreleased(open) : [...found];
}

const unreleased = (s: TransactionStatement): Refusal =>
  refusal(s, `SAVEPOINT "${s.savepoint ?? ''}" without RELEASE SAVEPOINT`, 'only a savepoint released in the same block can run inside the migration\'s transaction');

/**
 * Migrations written for the incumbent often hold `BEGIN; … COMMIT;`: around the whole file, or several blocks in a
 * squashed file. Each migration already runs in its own transaction, so these statements are blanked out (see
 * transactionPlan), keeping every other character where it was so PostgreSQL's error positions still point into the
 * file. What cannot be made part of the migration's transaction is refused with its file, line and column before
 * anything is sent. Statements are found by PostgreSQL's own parser.
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
    const planned = transactionPlan(found);
    if (!Array.isArray(planned)) throw refused(step.file, step.sql, planned);
    out.push({ ...step, sql: planned.reduce(blank, step.sql) });
  }
  return out;
}

function blank(sql: string, s: TransactionStatement): string {
  return sql.slice(0, s.offset) + sql.slice(s.offset, s.end).replace(/[^\n]/g, ' ') + sql.slice(s.end);
}

function refused(file: string, sql: string, r: Refusal): CliError {
  const s = r.statement;
  const error = new CliError('migration-invalid', r.message, 1, {
    file: shownPath(file), line: s.line, column: s.column,
    hint: 'remove it; BEGIN; … COMMIT; blocks and released savepoints run as part of the migration\'s own transaction',
  });
  return Object.assign(error, { excerpt: caretLines(sql.split('\n')[s.line - 1]?.replace(/\r$/, '') ?? '', s.column) });
}
