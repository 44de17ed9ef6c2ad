/** Where the libraries send their logs; only the CLI decides how (and whether) they reach a terminal. */
export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  /** False when debug messages are dropped: callers skip building them (false only when known). */
  readonly debugEnabled?: boolean;
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
