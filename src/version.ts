import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from './package-root.js';

/** The package version, read once from package.json. */
export const VERSION: string = (() => {
  try {
    const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
})();

/** Sent with every GET /v1/version answer: what tells the project tool that an endpoint is this engine. */
export const ENGINE_VERSION_HEADER = 'X-Engine-Version';
