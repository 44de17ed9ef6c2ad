/** Which metadata's SDL may be cached (src/project/test/sdl-cache.ts): none naming a remote schema, read at run time. */
import { expect, it } from 'vitest';
import { sdlCacheable } from '../../src/project/test/sdl-cache.js';

it('a metadata with remote schemas is not cached; without any (or an empty list) it is', () => {
  expect(sdlCacheable({ version: 2, tables: [] })).toBe(true);
  expect(sdlCacheable({ version: 2, tables: [], remote_schemas: [] })).toBe(true);
  expect(sdlCacheable({ version: 2, tables: [], remote_schemas: [{ name: 'r', definition: { url: 'http://127.0.0.1:9' } }] })).toBe(false);
});
