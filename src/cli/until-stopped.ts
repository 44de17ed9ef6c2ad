import type { Logger } from '../logger.js';
import type { Output } from './output.js';

/**
 * A long-running command (serve, dev) until SIGINT or SIGTERM: `close` stops it, then it resolves with the exit status
 * (0, or the failure's; a second signal while stopping gives 1 at once).
 */
export function untilStopped(out: Output, logger: Logger, close: () => Promise<void>): Promise<number> {
  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = () => {
      if (stopping) return resolve(1);
      stopping = true;
      void close().then(
        () => {
          logger.info('Engine stopped.');
          resolve(0);
        },
        (e: unknown) => resolve(out.fail(e)),
      );
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
