import { readFileSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import { PACKAGE_ROOT } from '../../package-root.js';

/** One file of the console's bundle (dist/console/, written by scripts/bundle.mjs). */
export interface ConsoleAsset {
  type: string;
  body: Buffer;
  /** Hashed chunk names never change content: they may be cached; index.html must not be. */
  immutable: boolean;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.woff2': 'font/woff2', '.map': 'application/json',
};

export const CONSOLE_PREFIX = '/console';

/** The console talks to its own origin only (issue 34): a script or frame from anywhere else is refused. */
export const CONSOLE_CSP = "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:";

/** Where the bundle lives; a test or the lead's HTTP layer may point elsewhere. */
export const CONSOLE_DIR = join(PACKAGE_ROOT, 'dist', 'console');

/**
 * The console's answer to a GET of `path` (already without its query string), or null when the path is not the
 * console's. Every route of the single-page app (`/console`, `/console/tables/…`) is index.html; files are read
 * on each request because the bundle is small and `engine serve` should not hold it in memory when nobody looks.
 */
export function consoleAsset(path: string, dir = CONSOLE_DIR): ConsoleAsset | null {
  if (path !== CONSOLE_PREFIX && !path.startsWith(`${CONSOLE_PREFIX}/`)) return null;
  const rest = path.slice(CONSOLE_PREFIX.length + 1);
  // `/console/api/…` is `engine console`'s own API, which the engine does not have: a 404 tells the app it is served by
  // the engine (index.html there would be taken for an answer and fail to parse).
  if (rest === 'api' || rest.startsWith('api/')) return null;
  const type = TYPES[extname(rest)];
  if (rest !== '' && type !== undefined) {
    const file = normalize(join(dir, rest));
    if (!file.startsWith(dir + sep)) return null;
    try {
      return { type, body: readFileSync(file), immutable: /-[A-Z0-9]{8}\.(js|css)$/.test(rest) };
    } catch {
      return null;
    }
  }
  try {
    return { type: TYPES['.html'] as string, body: readFileSync(join(dir, 'index.html')), immutable: false };
  } catch {
    return null;
  }
}
