/**
 * The engine's limit on one request body (src/server/http.ts MAX_BODY_BYTES; a unit test keeps the two equal). The
 * project tool refuses to build or send anything larger, instead of spending gigabytes on a request the engine rejects.
 */
export const ENGINE_MAX_BODY_BYTES = 50 * 1024 * 1024;

/** `52428800` → `50 MB`, `54001000` → `51.5 MB`: one decimal, none when it is 0. */
export function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1).replace(/\.0$/, '')} MB`;
}

/** `54001000` → `54,001,000 bytes (51.5 MB)`: exact, since a size just over the limit rounds to the limit. */
export const byteSize = (bytes: number): string => `${bytes.toLocaleString('en-US')} bytes (${megabytes(bytes)})`;
