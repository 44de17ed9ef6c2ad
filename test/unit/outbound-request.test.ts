import { describe, expect, it } from 'vitest';
import { resolveTarget } from '../../src/server/outbound/index.js';
import { VERSION } from '../../src/version.js';

// Building an outbound request (engine-api.md §5.1): env references at call time, header order and replacement.

const UA = { name: 'User-Agent', value: `engine/${VERSION}` };
const CT = { name: 'Content-Type', value: 'application/json' };

describe('resolveTarget', () => {
  it('fills {{NAME}} templates (spaces inside the braces allowed) and adds Content-Type and User-Agent', () => {
    expect(resolveTarget({ url: '{{ BASE }}/hook/{{ID}}', headers: [] }, { BASE: 'http://127.0.0.1:9', ID: '7' }))
      .toEqual({ ok: true, url: 'http://127.0.0.1:9/hook/7', headers: [CT, UA] });
  });

  it('later headers replace earlier ones of the same case-insensitive name; a configured User-Agent stays', () => {
    const r = resolveTarget({
      url: 'http://127.0.0.1/x',
      forwarded: [{ name: 'authorization', value: 'client' }, { name: 'x-a', value: '1' }],
      headers: [{ name: 'Authorization', value: 'configured' }, { name: 'user-agent', value: 'mine' }, { name: 'content-type', value: 'text/plain' }],
    }, {});
    expect(r).toEqual({ ok: true, url: 'http://127.0.0.1/x', headers: [
      { name: 'x-a', value: '1' }, { name: 'Authorization', value: 'configured' }, { name: 'user-agent', value: 'mine' }, CT] });
  });

  it('value_from_env and webhook_from_env are read from the given environment', () => {
    expect(resolveTarget({ urlFromEnv: 'U', headers: [{ name: 'k', value_from_env: 'K' }] }, { U: 'https://127.0.0.1/a', K: 'secret' }))
      .toEqual({ ok: true, url: 'https://127.0.0.1/a', headers: [{ name: 'k', value: 'secret', fromEnv: 'K' }, CT, UA] });
  });

  it.each([
    [{ url: '{{A}}{{B}}', headers: [{ name: 'h', value_from_env: 'C' }] }, {}, 'environment variable "A" is not set'],
    [{ url: '{{A}}{{B}}', headers: [{ name: 'h', value_from_env: 'C' }] }, { A: 'http://x' }, 'environment variable "B" is not set'],
    [{ urlFromEnv: 'U', headers: [{ name: 'h', value_from_env: 'C' }] }, {}, 'environment variable "U" is not set'],
    [{ url: 'http://127.0.0.1/', headers: [{ name: 'h', value_from_env: 'C' }, { name: 'i', value_from_env: 'D' }] }, {}, 'environment variable "C" is not set'],
    [{ url: '{{A}}', headers: [] }, { A: 'ftp://127.0.0.1/' }, 'the resolved URL is not an http or https URL'],
    [{ url: '{{A}}/x', headers: [] }, { A: '' }, 'the resolved URL is not an http or https URL'],
    [{ urlFromEnv: 'U', headers: [] }, { U: 'javascript:alert(1)' }, 'the resolved URL is not an http or https URL'],
  ])('%j with %j fails: %s', (target, env, message) => {
    expect(resolveTarget(target, env)).toEqual({ ok: false, message });
  });
});
