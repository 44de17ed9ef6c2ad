import { describe, expect, it } from 'vitest';
import { loadEnvironment } from '../../src/project/config/environment.js';
import { resolveServeSettings } from '../../src/project/config/serve-settings.js';
import { failure, proj, project, useTempProject } from './config-fixtures.js';

/** Issue 29 point 6: ENGINE_GRAPHQL_INFER_FUNCTION_PERMISSIONS (the incumbent's default, true; false honoured). */

useTempProject();

const settings = (env: Record<string, string>) => () => resolveServeSettings({}, loadEnvironment({ cwd: proj, env }));

describe('ENGINE_GRAPHQL_INFER_FUNCTION_PERMISSIONS', () => {
  it('true or unset keeps the default; false (either name, any case) is passed on; other values stop engine serve', () => {
    project('version: 2\n', '');
    expect(settings({ ENGINE_GRAPHQL_INFER_FUNCTION_PERMISSIONS: 'true' })().inferFunctionPermissions).toBeUndefined();
    expect(settings({})().inferFunctionPermissions).toBeUndefined();
    expect(settings({ ENGINE_GRAPHQL_INFER_FUNCTION_PERMISSIONS: 'false' })().inferFunctionPermissions).toBe(false);
    expect(settings({ HASURA_GRAPHQL_INFER_FUNCTION_PERMISSIONS: 'False' })().inferFunctionPermissions).toBe(false);
    expect(settings({ ENGINE_GRAPHQL_INFER_FUNCTION_PERMISSIONS: 'true', HASURA_GRAPHQL_INFER_FUNCTION_PERMISSIONS: 'false' })().inferFunctionPermissions).toBeUndefined();
    expect(failure(settings({ ENGINE_GRAPHQL_INFER_FUNCTION_PERMISSIONS: 'maybe' }))).toMatchObject({
      code: 'config-invalid', message: 'invalid value for "infer_function_permissions" from ENGINE_GRAPHQL_INFER_FUNCTION_PERMISSIONS: expected true or false',
    });
  });
});
