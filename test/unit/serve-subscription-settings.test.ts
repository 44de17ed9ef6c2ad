import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadEnvironment, type Environment } from '../../src/project/config/environment.js';
import { resolveServeSettings } from '../../src/project/config/serve-settings.js';

/** Issue 32.7: the subscription limits, batch size and WebSocket timers of `engine serve`, from flags or variables. */

const env = (vars: Record<string, string>): Environment => ({
  projectDir: null, configFile: null, warnings: [], variable: (n) => vars[n], configValue: () => undefined, fallbacks: () => [],
});

const dir = mkdtempSync(join(tmpdir(), 'engine-subscription-settings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the subscription settings of serve', () => {
  it('are absent (the server\'s defaults) without flag or variable', () => {
    const s = resolveServeSettings({}, env({}));
    expect(s.subscriptions).toBeUndefined();
    expect(s.liveQueriesRefetchMs).toBeUndefined();
  });

  it('come from the variables, seconds for the timers and bytes for the send buffer; a flag wins over its variable', () => {
    const vars = env({
      ENGINE_GRAPHQL_LIVE_QUERIES_MULTIPLEXED_BATCH_SIZE: '50', ENGINE_GRAPHQL_WEBSOCKET_KEEPALIVE: '2.5', ENGINE_GRAPHQL_WEBSOCKET_CONNECTION_INIT_TIMEOUT: '3',
      ENGINE_GRAPHQL_WEBSOCKET_MAX_CONNECTIONS: '10', ENGINE_GRAPHQL_WEBSOCKET_MAX_SUBSCRIPTIONS: '20', ENGINE_GRAPHQL_MAX_SUBSCRIPTIONS: '30',
      ENGINE_GRAPHQL_WEBSOCKET_SEND_BUFFER: '65536',
    });
    expect(resolveServeSettings({}, vars).subscriptions).toEqual({
      batchSize: 50, keepAliveMs: 2500, initTimeoutMs: 3000, limits: { connections: 10, perConnection: 20, perServer: 30, sendBuffer: 65536 },
    });
    const flags = {
      liveQueriesBatchSize: '7', websocketKeepalive: '0', websocketConnectionInitTimeout: '0', websocketMaxConnections: '1',
      websocketMaxSubscriptions: '2', maxSubscriptions: '3', websocketSendBuffer: '4',
    };
    expect(resolveServeSettings(flags, vars).subscriptions).toEqual({
      batchSize: 7, keepAliveMs: 0, initTimeoutMs: 0, limits: { connections: 1, perConnection: 2, perServer: 3, sendBuffer: 4 },
    });
    // Only what was given: the rest keeps the server's defaults.
    expect(resolveServeSettings({ maxSubscriptions: '5' }, env({})).subscriptions).toEqual({ limits: { perServer: 5 } });
  });

  it('refuse bad values: a flag as invalid-flag-value (64), a variable as config-invalid (1)', () => {
    const flagCases: [Record<string, string>, string][] = [
      [{ websocketMaxConnections: '0' }, 'invalid value "0" for --websocket-max-connections: expected a positive integer'],
      [{ websocketMaxSubscriptions: '1.5' }, 'invalid value "1.5" for --websocket-max-subscriptions: expected a positive integer'],
      [{ maxSubscriptions: 'many' }, 'invalid value "many" for --max-subscriptions: expected a positive integer'],
      [{ websocketSendBuffer: '4MB' }, 'invalid value "4MB" for --websocket-send-buffer: expected a positive integer'],
      [{ liveQueriesBatchSize: '-1' }, 'invalid value "-1" for --live-queries-batch-size: expected a positive integer'],
      [{ websocketKeepalive: '5s' }, 'invalid value "5s" for --websocket-keepalive: expected a number of seconds ≥ 0'],
      [{ websocketConnectionInitTimeout: '-3' }, 'invalid value "-3" for --websocket-connection-init-timeout: expected a number of seconds ≥ 0'],
    ];
    for (const [flags, message] of flagCases) {
      expect(() => resolveServeSettings(flags, env({}))).toThrow(expect.objectContaining({ code: 'invalid-flag-value', exitCode: 64, message }));
    }
    const varCases: [string, string, string][] = [
      ['ENGINE_GRAPHQL_WEBSOCKET_MAX_CONNECTIONS', '0', 'websocket_max_connections'],
      ['ENGINE_GRAPHQL_WEBSOCKET_MAX_SUBSCRIPTIONS', 'x', 'websocket_max_subscriptions'],
      ['ENGINE_GRAPHQL_MAX_SUBSCRIPTIONS', '1e5', 'max_subscriptions'],
      ['ENGINE_GRAPHQL_WEBSOCKET_SEND_BUFFER', '-1', 'websocket_send_buffer'],
      ['ENGINE_GRAPHQL_LIVE_QUERIES_MULTIPLEXED_BATCH_SIZE', '0', 'live_queries_multiplexed_batch_size'],
    ];
    for (const [variable, value, key] of varCases) {
      expect(() => resolveServeSettings({}, env({ [variable]: value }))).toThrow(expect.objectContaining({
        code: 'config-invalid', exitCode: 1, message: `invalid value for "${key}" from ${variable}: expected a positive integer`,
      }));
    }
    expect(() => resolveServeSettings({}, env({ ENGINE_GRAPHQL_WEBSOCKET_KEEPALIVE: 'often' }))).toThrow(expect.objectContaining({
      code: 'config-invalid', exitCode: 1, message: 'invalid value for "websocket_keepalive" from ENGINE_GRAPHQL_WEBSOCKET_KEEPALIVE: expected a number of seconds ≥ 0',
    }));
  });

  it('take the incumbent\'s variables where it has the setting; the engine\'s own name wins', () => {
    const incumbent = loadEnvironment({
      cwd: dir, env: {
        HASURA_GRAPHQL_LIVE_QUERIES_MULTIPLEXED_REFETCH_INTERVAL: '250', HASURA_GRAPHQL_LIVE_QUERIES_MULTIPLEXED_BATCH_SIZE: '40',
        HASURA_GRAPHQL_WEBSOCKET_KEEPALIVE: '9', HASURA_GRAPHQL_WEBSOCKET_CONNECTION_INIT_TIMEOUT: '3', ENGINE_GRAPHQL_WEBSOCKET_KEEPALIVE: '1',
      },
    });
    const s = resolveServeSettings({}, incumbent);
    expect(s.liveQueriesRefetchMs).toBe(250);
    expect(s.subscriptions).toEqual({ batchSize: 40, keepAliveMs: 1000, initTimeoutMs: 3000 });
    expect(incumbent.fallbacks().map((f) => f.from).sort()).toEqual([
      'HASURA_GRAPHQL_LIVE_QUERIES_MULTIPLEXED_BATCH_SIZE', 'HASURA_GRAPHQL_LIVE_QUERIES_MULTIPLEXED_REFETCH_INTERVAL', 'HASURA_GRAPHQL_WEBSOCKET_CONNECTION_INIT_TIMEOUT',
    ]);
  });
});
