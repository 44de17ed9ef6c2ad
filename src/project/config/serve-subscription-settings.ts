import { CliError } from '../../errors.js';
import type { SubscriptionSettings } from '../../server/serve-types.js';
import type { Environment } from './environment.js';
import { positiveSetting, seconds } from './setting-values.js';

/**
 * The subscription settings of `engine serve` (issue 32): the fallback refetch, the multiplexed batch size, the
 * WebSocket timers and the limits of issue 32.7. Each is a flag, else `ENGINE_GRAPHQL_<FLAG>`, which the incumbent's
 * `HASURA_GRAPHQL_<FLAG>` stands in for where it has the setting (the refetch interval, the batch size, the
 * keep-alive and the init timeout: same names, same units). Unset ones keep the server's defaults.
 */
export interface SubscriptionFlags {
  liveQueriesRefetchInterval?: string;
  liveQueriesBatchSize?: string;
  websocketKeepalive?: string;
  websocketConnectionInitTimeout?: string;
  websocketMaxConnections?: string;
  websocketMaxSubscriptions?: string;
  maxSubscriptions?: string;
  websocketSendBuffer?: string;
}

/**
 * `--live-queries-refetch-interval` in ms, else ENGINE_GRAPHQL_LIVE_QUERIES_MULTIPLEXED_REFETCH_INTERVAL (the
 * incumbent's name and unit, ms); 0 turns the fallback refetch off.
 */
function refetchInterval(flag: string | undefined, env: Environment): number | undefined {
  const variable = 'ENGINE_GRAPHQL_LIVE_QUERIES_MULTIPLEXED_REFETCH_INTERVAL';
  const parse = (v: string): number | null => (/^\d+$/.test(v.trim()) && Number(v.trim()) <= 2_147_483_647 ? Number(v.trim()) : null);
  if (flag !== undefined) {
    const n = parse(flag);
    if (n === null) throw new CliError('invalid-flag-value', `invalid value "${flag}" for --live-queries-refetch-interval: expected a number of milliseconds ≥ 0`, 64);
    return n;
  }
  const v = env.variable(variable);
  if (v === undefined || v === '') return undefined;
  const n = parse(v);
  if (n === null) throw new CliError('config-invalid', `invalid value for "live_queries_multiplexed_refetch_interval" from ${variable}: expected a number of milliseconds ≥ 0`, 1);
  return n;
}

export function resolveSubscriptionSettings(flags: SubscriptionFlags, env: Environment): { liveQueriesRefetchMs?: number; subscriptions?: SubscriptionSettings } {
  const liveQueriesRefetchMs = refetchInterval(flags.liveQueriesRefetchInterval, env);
  const batchSize = positiveSetting(env, flags.liveQueriesBatchSize, '--live-queries-batch-size', 'live_queries_multiplexed_batch_size', 'ENGINE_GRAPHQL_LIVE_QUERIES_MULTIPLEXED_BATCH_SIZE');
  const keepAliveMs = seconds(flags.websocketKeepalive, '--websocket-keepalive', env, 'ENGINE_GRAPHQL_WEBSOCKET_KEEPALIVE', 'websocket_keepalive');
  const initTimeoutMs = seconds(flags.websocketConnectionInitTimeout, '--websocket-connection-init-timeout', env, 'ENGINE_GRAPHQL_WEBSOCKET_CONNECTION_INIT_TIMEOUT', 'websocket_connection_init_timeout');
  const connections = positiveSetting(env, flags.websocketMaxConnections, '--websocket-max-connections', 'websocket_max_connections', 'ENGINE_GRAPHQL_WEBSOCKET_MAX_CONNECTIONS');
  const perConnection = positiveSetting(env, flags.websocketMaxSubscriptions, '--websocket-max-subscriptions', 'websocket_max_subscriptions', 'ENGINE_GRAPHQL_WEBSOCKET_MAX_SUBSCRIPTIONS');
  const perServer = positiveSetting(env, flags.maxSubscriptions, '--max-subscriptions', 'max_subscriptions', 'ENGINE_GRAPHQL_MAX_SUBSCRIPTIONS');
  const sendBuffer = positiveSetting(env, flags.websocketSendBuffer, '--websocket-send-buffer', 'websocket_send_buffer', 'ENGINE_GRAPHQL_WEBSOCKET_SEND_BUFFER');
  const limits = {
    ...(connections !== undefined ? { connections } : {}), ...(perConnection !== undefined ? { perConnection } : {}),
    ...(perServer !== undefined ? { perServer } : {}), ...(sendBuffer !== undefined ? { sendBuffer } : {}),
  };
  const subscriptions: SubscriptionSettings = {
    ...(batchSize !== undefined ? { batchSize } : {}), ...(keepAliveMs !== undefined ? { keepAliveMs } : {}),
    ...(initTimeoutMs !== undefined ? { initTimeoutMs } : {}), ...(Object.keys(limits).length > 0 ? { limits } : {}),
  };
  return {
    ...(liveQueriesRefetchMs !== undefined ? { liveQueriesRefetchMs } : {}),
    ...(Object.keys(subscriptions).length > 0 ? { subscriptions } : {}),
  };
}
