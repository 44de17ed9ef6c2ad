import { describe, expect, it } from 'vitest';
import type { Environment } from '../../src/project/config/environment.js';
import { resolveServeSettings } from '../../src/project/config/serve-settings.js';

/** Issue 31.4: what turns traces on (the OpenTelemetry SDK's variables, the engine's names first) and W3C trace context. */

const env = (vars: Record<string, string>): Environment => ({
  projectDir: null, configFile: null, warnings: [], variable: (n) => vars[n], configValue: () => undefined, fallbacks: () => [],
});
const traces = (vars: Record<string, string>) => resolveServeSettings({}, env(vars)).traces;

describe('trace settings', () => {
  it('are off without an endpoint, or with OTEL_SDK_DISABLED=true', () => {
    expect(traces({})).toBeUndefined();
    expect(traces({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBeUndefined();
  });

  it('append v1/traces to a base endpoint, take a traces endpoint as it is, the engine\'s names first', () => {
    expect(traces({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })?.endpoint).toBe('http://collector:4318/v1/traces');
    expect(traces({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otlp.example.com/base/' })?.endpoint).toBe('https://otlp.example.com/base/v1/traces');
    expect(traces({ ENGINE_GRAPHQL_OTEL_EXPORTER_OTLP_ENDPOINT: 'http://own:4318', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://std:4318' })?.endpoint).toBe('http://own:4318/v1/traces');
    expect(traces({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/custom', ENGINE_GRAPHQL_OTEL_EXPORTER_OTLP_ENDPOINT: 'http://own:4318' })?.endpoint).toBe('http://c:4318/custom');
  });

  it('read headers, resource, sampler and batch settings; defaults as the SDK\'s', () => {
    expect(traces({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toEqual({
      endpoint: 'http://c:4318/v1/traces', headers: {}, resource: { 'service.name': 'engine', 'service.version': expect.any(String) },
      ratio: 1, parentBased: true, delayMs: 5000, batch: 512, queue: 2048, timeoutMs: 10_000,
    });
    const t = traces({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=a%20b, x-team=t1', OTEL_SERVICE_NAME: 'api',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod,service.name=ignored', OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_BSP_SCHEDULE_DELAY: '100', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '10', OTEL_BSP_MAX_QUEUE_SIZE: '5', OTEL_EXPORTER_OTLP_TIMEOUT: '2000',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    });
    expect(t).toMatchObject({
      headers: { 'x-api-key': 'a b', 'x-team': 't1' }, resource: { 'service.name': 'api', 'deployment.environment': 'prod' },
      ratio: 0.25, parentBased: false, delayMs: 100, batch: 10, queue: 10, timeoutMs: 2000,
    });
  });

  it('send an endpoint\'s user info as Basic authentication (fetch refuses it in the URL), unless the headers authorise', () => {
    expect(traces({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://me:p%40ss@c:4318' })).toMatchObject({
      endpoint: 'http://c:4318/v1/traces', headers: { authorization: `Basic ${Buffer.from('me:p@ss').toString('base64')}` },
    });
    expect(traces({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://me:pw@c:4318', OTEL_EXPORTER_OTLP_HEADERS: 'Authorization=Bearer%20t' })).toMatchObject({
      endpoint: 'http://c:4318/v1/traces', headers: { Authorization: 'Bearer t' },
    });
  });

  it('refuse bad values as config-invalid, without repeating them', () => {
    const cases: [Record<string, string>, string][] = [
      [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, 'invalid value for OTEL_EXPORTER_OTLP_ENDPOINT: expected an http or https URL'],
      [{ ENGINE_GRAPHQL_OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc://c:4317' }, 'invalid value for ENGINE_GRAPHQL_OTEL_EXPORTER_OTLP_ENDPOINT: expected an http or https URL'],
      [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
        'invalid value for OTEL_EXPORTER_OTLP_PROTOCOL: the engine exports traces as OTLP/HTTP JSON only: expected http/json (or unset)'],
      [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_HEADERS: 'secret-token' }, 'invalid value for OTEL_EXPORTER_OTLP_HEADERS: expected a comma list of key=value'],
      [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_SAMPLER: 'sometimes' },
        'invalid value for OTEL_TRACES_SAMPLER: expected always_on, always_off, traceidratio or their parentbased_ forms'],
      [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' }, 'invalid value for OTEL_TRACES_SAMPLER_ARG: expected a number from 0 to 1'],
      [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_BSP_SCHEDULE_DELAY: '-1' }, 'invalid value for OTEL_BSP_SCHEDULE_DELAY: expected an integer ≥ 1'],
    ];
    for (const [vars, message] of cases) {
      let err: unknown;
      try {
        traces(vars);
      } catch (e) {
        err = e;
      }
      expect(err).toMatchObject({ code: 'config-invalid', exitCode: 1, message });
      expect((err as Error).message).not.toContain('secret-token');
    }
  });
});
