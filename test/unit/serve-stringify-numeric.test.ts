import { describe, expect, it } from 'vitest';
import { loadEnvironment } from '../../src/project/config/environment.js';
import { resolveServeSettings } from '../../src/project/config/serve-settings.js';
import { failure, proj, project, useTempProject } from './config-fixtures.js';

/** Issue 29 point 8: ENGINE_GRAPHQL_STRINGIFY_NUMERIC_TYPES (HASURA_GRAPHQL_ as the fallback); numbers by default. */

useTempProject();

const settings = (env: Record<string, string>) => resolveServeSettings({}, loadEnvironment({ cwd: proj, env }));

describe('ENGINE_GRAPHQL_STRINGIFY_NUMERIC_TYPES', () => {
  it('is off by default and when false; true (any case) under either prefix turns it on', () => {
    project('version: 2\n', '');
    expect(settings({}).stringifyNumericTypes).toBeUndefined();
    expect(settings({ ENGINE_GRAPHQL_STRINGIFY_NUMERIC_TYPES: 'false' }).stringifyNumericTypes).toBeUndefined();
    expect(settings({ ENGINE_GRAPHQL_STRINGIFY_NUMERIC_TYPES: 'TRUE' }).stringifyNumericTypes).toBe(true);
    expect(settings({ HASURA_GRAPHQL_STRINGIFY_NUMERIC_TYPES: 'true' }).stringifyNumericTypes).toBe(true);
    // The engine's name wins over the incumbent's.
    expect(settings({ ENGINE_GRAPHQL_STRINGIFY_NUMERIC_TYPES: 'false', HASURA_GRAPHQL_STRINGIFY_NUMERIC_TYPES: 'true' }).stringifyNumericTypes).toBeUndefined();
  });

  it('any other value stops engine serve with the reason', () => {
    project('version: 2\n', '');
    expect(failure(() => settings({ ENGINE_GRAPHQL_STRINGIFY_NUMERIC_TYPES: 'yes' }))).toMatchObject({
      code: 'config-invalid', message: 'invalid value for "stringify_numeric_types" from ENGINE_GRAPHQL_STRINGIFY_NUMERIC_TYPES: expected true or false',
    });
  });
});
