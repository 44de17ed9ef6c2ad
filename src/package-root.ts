import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The root of the package that is running: the nearest directory above this module with a package.json. The code runs
 * from src/ (the tests), dist/ (tsc's output) and dist/bundle/ (what the bin loads), each at its own depth.
 */
export const PACKAGE_ROOT: string = (() => {
  const here = dirname(fileURLToPath(import.meta.url));
  for (let dir = here; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return here;
  }
})();
