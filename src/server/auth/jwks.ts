import type { JSONWebKeySet, JWSHeaderParameters, CryptoKey, FlattenedJWSInput } from 'jose';
import type { Logger } from '../../logger.js';
import { callHttp } from '../outbound/http.js';
import { freshForMs } from './cache-control.js';
import { jose } from './jose.js';

/**
 * The keys of a JWKS URL (issue 17): fetched at start-up, reused for as long as its Cache-Control/Expires allow
 * (10 minutes when it says nothing), fetched again when a token names an unknown `kid` — at most once a second,
 * so a flood of forged `kid`s cannot turn into a flood of fetches — and kept when a fetch fails.
 */

const FALLBACK_MS = 10 * 60_000;
const MIN_REFETCH_MS = 1000;
const TIMEOUT_SEC = 5;
const MAX_BYTES = 1024 * 1024;

type KeyFn = (header: JWSHeaderParameters, input: FlattenedJWSInput) => Promise<CryptoKey>;

export class JwksCache {
  private keys: KeyFn | null = null;
  private expiresAt = 0;
  private lastAttempt = -Infinity;
  private inflight: Promise<void> | null = null;
  /** How many fetches were made: the tests check that a JWKS is not fetched per request. */
  fetches = 0;

  constructor(private readonly url: string, private readonly logger: Logger, private readonly now: () => number = Date.now) {}

  /** The first fetch; a failure is logged and retried at the next token, the engine starts anyway. */
  async start(): Promise<void> {
    await this.refresh();
  }

  /** The key function given to jose's jwtVerify. */
  readonly getKey = async (header: JWSHeaderParameters, input: FlattenedJWSInput): Promise<CryptoKey> => {
    if (this.now() >= this.expiresAt) await this.refreshThrottled();
    const { errors } = await jose();
    try {
      if (!this.keys) throw new errors.JWKSNoMatchingKey('the JWKS could not be fetched');
      return await this.lookup(header, input);
    } catch (e) {
      if (!(e instanceof errors.JWKSNoMatchingKey) || !(await this.refreshThrottled()) || !this.keys) throw e;
      return this.lookup(header, input);
    }
  };

  /** A key of the set that WebCrypto cannot import (garbage from the JWKS URL) is a JOSE error, not a crash. */
  private async lookup(header: JWSHeaderParameters, input: FlattenedJWSInput): Promise<CryptoKey> {
    const { errors } = await jose();
    try {
      return await (this.keys as KeyFn)(header, input);
    } catch (e) {
      if (e instanceof errors.JOSEError) throw e;
      throw new errors.JWKSInvalid('a key of the JWKS cannot be used');
    }
  }

  /** Whether a fetch would be made now (the once-a-second bound has passed). */
  mayRefetch(): boolean {
    return this.now() - this.lastAttempt >= MIN_REFETCH_MS;
  }

  /** Fetches unless the last attempt was less than a second ago; true when a fetch was made (or joined). */
  private async refreshThrottled(): Promise<boolean> {
    if (this.inflight) {
      await this.inflight;
      return true;
    }
    if (!this.mayRefetch()) return false;
    await this.refresh();
    return true;
  }

  private refresh(): Promise<void> {
    this.inflight ??= this.fetch().finally(() => {
      this.inflight = null;
    });
    return this.inflight;
  }

  private async fetch(): Promise<void> {
    this.lastAttempt = this.now();
    this.fetches++;
    const [{ createLocalJWKSet }, res] = await Promise.all([jose(), callHttp({ url: this.url, method: 'GET', headers: [{ name: 'Accept', value: 'application/json' }], timeoutSec: TIMEOUT_SEC, maxBodyBytes: MAX_BYTES, overflow: 'fail', purpose: 'jwks' })]);
    let problem: string;
    if (res.kind === 'error') problem = res.message;
    else if (res.status !== 200) problem = `status ${res.status}`;
    else {
      try {
        const set = JSON.parse(res.body) as JSONWebKeySet;
        if (set === null || typeof set !== 'object' || !Array.isArray(set.keys)) throw new Error('not a JWK set');
        this.keys = createLocalJWKSet(set);
        const headers = Object.fromEntries(res.headers.map((h) => [h.name.toLowerCase(), h.value]));
        this.expiresAt = this.now() + freshForMs(headers, this.now(), FALLBACK_MS);
        return;
      } catch (e) {
        problem = `not a JWK set (${e instanceof Error ? e.message : String(e)})`;
      }
    }
    // The URL is configuration, not a credential, but it may carry a token in its query: only its origin is shown.
    this.logger.warn(`cannot fetch the JWKS at ${new URL(this.url).origin}: ${problem}${this.keys ? '; the keys fetched before are kept' : ''}`);
  }
}
