import type { IncomingHttpHeaders } from 'node:http';
import { ApiError, CliError } from '../../errors.js';
import { silentLogger, type Logger } from '../../logger.js';
import { headerCaller, secretMatches, type Caller } from './admin-secret.js';
import { AuthHook, type HookRequest } from './hook.js';
import { JwksCache } from './jwks.js';
import { jwtCaller, tokenOf } from './jwt.js';
import { parseJwtConfig, type JwtConfig } from './jwt-config.js';
import { adminSecretHeader, DEFAULT_SESSION_PREFIX, prefixedHeader, prefixedName, type SessionPrefix } from './session-names.js';

export type { Caller } from './admin-secret.js';
export type { HookRequest } from './hook.js';
export type { SessionPrefix } from './session-names.js';

/** The authentication settings of `engine serve` (engine-api.md §2, issue 17), as given. */
export interface AuthSettings {
  adminSecret?: string;
  /** The JSON text of `--jwt-secret`. */
  jwtSecret?: string;
  unauthorizedRole?: string;
  /** Auth hook mode: the hook's URL, and GET (default) or POST. */
  authHook?: string;
  authHookMode?: string;
  /** The hook's timeout, in seconds (default 10). */
  authHookTimeoutSec?: number;
  /** The prefix of session-variable names in what the engine sends (issue 29.2): `x-engine-` (default) or `x-hasura-`. */
  sessionVariablePrefix?: SessionPrefix;
}

const invalid = (message: string): CliError => new CliError('config-invalid', message, 1);

const denied = (message: string): ApiError => new ApiError(401, 'access-denied', '$', message);

/**
 * Resolves the caller of every request (engine-api.md §2.2, replaced by issue 17 when a mode is configured):
 * the admin secret first, then the JWT, then the unauthorized role.
 */
export class Authenticator {
  private constructor(
    private readonly adminSecret: string | undefined,
    private readonly jwt: JwtConfig | undefined,
    private readonly jwks: JwksCache | undefined,
    private readonly unauthorizedRole: string | undefined,
    private readonly hook: AuthHook | undefined = undefined,
    private readonly prefix: SessionPrefix = DEFAULT_SESSION_PREFIX,
  ) {}

  /** Only the admin secret, as in engine-api.md §2.2. */
  static adminOnly(adminSecret: string | undefined, prefix: SessionPrefix = DEFAULT_SESSION_PREFIX): Authenticator {
    return new Authenticator(adminSecret || undefined, undefined, undefined, undefined, undefined, prefix);
  }

  /**
   * Checks the settings and fetches a JWKS once. A bad setting throws CliError `config-invalid` naming it, so that
   * `engine serve` stops before serving anything.
   */
  static async create(settings: AuthSettings, logger: Logger = silentLogger): Promise<Authenticator> {
    const secret = settings.adminSecret || undefined;
    const jwt = settings.jwtSecret ? await parseJwtConfig(settings.jwtSecret) : undefined;
    if (jwt && !secret) throw invalid('a JWT secret (jwt_secret) requires an admin secret (admin_secret)');
    const role = settings.unauthorizedRole || undefined;
    if (role !== undefined && !secret) throw invalid('an unauthorized role (unauthorized_role) requires an admin secret (admin_secret)');
    if (role === 'admin') throw invalid('invalid value for "unauthorized_role": it cannot be "admin"');
    const prefix = settings.sessionVariablePrefix ?? DEFAULT_SESSION_PREFIX;
    const hook = settings.authHook ? authHook(settings, prefix) : undefined;
    if (hook && jwt) throw invalid('an auth hook (auth_hook) and a JWT secret (jwt_secret) exclude each other');
    if (hook && !secret) throw invalid('an auth hook (auth_hook) requires an admin secret (admin_secret)');
    if (hook && role !== undefined) throw invalid('an unauthorized role (unauthorized_role) has no use with an auth hook (auth_hook): the hook decides the role of every request');
    let jwks: JwksCache | undefined;
    if (jwt?.jwkUrl) {
      jwks = new JwksCache(jwt.jwkUrl, logger);
      await jwks.start();
    }
    return new Authenticator(secret, jwt, jwks, role, hook, prefix);
  }

  /** The auth hook in hook mode (tests read its call count). */
  get authHook(): AuthHook | undefined {
    return this.hook;
  }

  /** In POST hook mode the hook receives the GraphQL request: the body is read before the caller is resolved. */
  get needsRequest(): boolean {
    return this.hook?.config.mode === 'POST';
  }

  /** The JWKS cache in JWT mode with `jwk_url` (tests read its fetch count). */
  get keySet(): JwksCache | undefined {
    return this.jwks;
  }

  /** Throws the 401 errors of engine-api.md §2.2 and issue 17. */
  async resolveCaller(headers: IncomingHttpHeaders, request: HookRequest | null = null): Promise<Caller> {
    if (!this.adminSecret) return headerCaller(headers, this.prefix);
    const given = adminSecretHeader(headers);
    if (given !== undefined) {
      if (!secretMatches(given, this.adminSecret)) throw denied('invalid x-engine-admin-secret');
      return headerCaller(headers, this.prefix);
    }
    if (this.hook) return this.hook.caller(headers, request);
    if (this.jwt) {
      const token = tokenOf(this.jwt, headers);
      if (token !== undefined) return jwtCaller(this.jwt, this.jwks, token, prefixedHeader(headers, 'role'), this.prefix);
    }
    if (this.unauthorizedRole !== undefined) {
      return { role: this.unauthorizedRole, sessionVariables: { [prefixedName('x-engine-role', this.prefix)]: this.unauthorizedRole } };
    }
    if (this.jwt?.header.type === 'Cookie') throw denied(`missing cookie "${this.jwt.header.name}" in JWT authentication mode`);
    if (this.jwt) throw denied('missing Authorization header in JWT authentication mode');
    throw denied('x-engine-admin-secret required, but not found');
  }
}

function authHook(settings: AuthSettings, prefix: SessionPrefix): AuthHook {
  const url = settings.authHook ?? '';
  if (!/^https?:\/\/[^/\s]/i.test(url)) throw invalid('invalid value for "auth_hook" (--auth-hook, ENGINE_GRAPHQL_AUTH_HOOK): expected an http or https URL');
  const mode = (settings.authHookMode || 'GET').toUpperCase();
  if (mode !== 'GET' && mode !== 'POST') {
    throw invalid('invalid value for "auth_hook_mode" (--auth-hook-mode, ENGINE_GRAPHQL_AUTH_HOOK_MODE): expected GET or POST');
  }
  return new AuthHook({ url, mode, timeoutSec: settings.authHookTimeoutSec ?? 10, prefix });
}
