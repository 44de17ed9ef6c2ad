import { readFileSync } from 'node:fs';

/** The package version, read once from package.json (two levels above both src/ and dist/ modules). */
export const VERSION: string = (() => {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
})();

/** Sent with every GET /v1/version answer: what tells the project tool that an endpoint is this engine. */
export const ENGINE_VERSION_HEADER = 'X-Engine-Version';
