import { describe, expect, it } from 'vitest';
import { guessEmbeddedDataDir } from '../../src/project/config/serve-guess.js';

// Issue 28 (start-up): `engine serve` starts its embedded database's thread on a guess from its arguments and the
// process environment, before its settings are read; serve's settings then keep, replace or stop that thread.
describe('the data directory engine serve is guessed to run on', () => {
  it('is the default, a --data-dir flag (either form) or ENGINE_GRAPHQL_DATA_DIR', () => {
    expect(guessEmbeddedDataDir(['serve'], {})).toBe('.engine/data');
    expect(guessEmbeddedDataDir(['serve', '--port', '0', '--data-dir', 'db'], {})).toBe('db');
    expect(guessEmbeddedDataDir(['serve', '--data-dir=./x y'], {})).toBe('./x y');
    expect(guessEmbeddedDataDir(['serve'], { ENGINE_GRAPHQL_DATA_DIR: 'from-env' })).toBe('from-env');
    expect(guessEmbeddedDataDir(['serve', '--data-dir', 'flag'], { ENGINE_GRAPHQL_DATA_DIR: 'from-env' })).toBe('flag');
  });

  it('is none when the arguments or the environment name an external database', () => {
    expect(guessEmbeddedDataDir(['serve', '--database-url', 'postgres://127.0.0.1/x'], {})).toBeNull();
    expect(guessEmbeddedDataDir(['serve', '--database-url=postgres://127.0.0.1/x'], {})).toBeNull();
    expect(guessEmbeddedDataDir(['serve'], { ENGINE_GRAPHQL_DATABASE_URL: 'postgres://127.0.0.1/x' })).toBeNull();
    // The incumbent's name of it, which serve also reads (drop-in).
    expect(guessEmbeddedDataDir(['serve'], { HASURA_GRAPHQL_DATABASE_URL: 'postgres://127.0.0.1/x' })).toBeNull();
    // An empty URL is no URL, as for serve's settings.
    expect(guessEmbeddedDataDir(['serve'], { ENGINE_GRAPHQL_DATABASE_URL: '' })).toBe('.engine/data');
  });
});
