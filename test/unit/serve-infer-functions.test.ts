import { describe, expect, it } from 'vitest';
import { loadEnvironment } from '../../src/project/config/environment.js';
import { resolveServeSettings } from '../../src/project/config/serve-settings.js';
import { failure, proj, project, useTempProject } from './config-fixtures.js';

/** Issue 29 point 6: ENGINE_GRAPHQL_INFER_FUNCTION_PERMISSIONS (the incumbent's default, true) is the only behaviour. */

useTempProject();

const settings = (env: Record<string, string>) => () => resolveServeSettings({}, loadEnvironment({ cwd: proj, env }));

describe('ENGINE_GRAPHQL_INFER_FUNCTION_PERMISSIONS', () => {
  it('true or unset is accepted; false and other values stop engine serve with the reason', () => {
    project('version: 2\n', '');
    expect(settings({ ENGINE_GRAPHQL_INFER_FUNCTION_PERMISSIONS: 'true' })).not.toThrow();
    expect(settings({})).not.toThrow();
    expect(failure(settings({ ENGINE_GRAPHQL_INFER_FUNCTION_PERMISSIONS: 'false' }))).toMatchObject({
      code: 'config-invalid',
      message: 'ENGINE_GRAPHQL_INFER_FUNCTION_PERMISSIONS=false is not supported: function root fields follow the select permission of the table they return',
    });
    expect(failure(settings({ HASURA_GRAPHQL_INFER_FUNCTION_PERMISSIONS: 'False' }))).toMatchObject({ code: 'config-invalid' });
    expect(failure(settings({ ENGINE_GRAPHQL_INFER_FUNCTION_PERMISSIONS: 'maybe' }))).toMatchObject({
      code: 'config-invalid', message: 'invalid value for "infer_function_permissions" from ENGINE_GRAPHQL_INFER_FUNCTION_PERMISSIONS: expected true or false',
    });
  });
});
