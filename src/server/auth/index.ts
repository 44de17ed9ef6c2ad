import type { IncomingHttpHeaders } from 'node:http';
import { ApiError, CliError } from '../../errors.js';
import { silentLogger, type Logger } from '../../logger.js';
import { headerCaller, headerValue, secretMatches, type Caller } from './admin-secret.js';
import { JwksCache } from './jwks.js';
import { jwtCaller, tokenOf } from './jwt.js';
import { parseJwtConfig, type JwtConfig } from './jwt-config.js';

export type { Caller } from './admin-secret.js';

/** The authentication settings of `engine serve` (engine-api.md §2, issue 17), as given. */
export interface AuthSettings {
  adminSecret?: string;
  /** The JSON text of `--jwt-secret`. */
  jwtSecret?: string;
  unauthorizedRole?: string;
}

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
  ) {}

  /** Only the admin secret, as in engine-api.md §2.2. */
  static adminOnly(adminSecret: string | undefined): Authenticator {
    return new Authenticator(adminSecret || undefined, undefined, undefined, undefined);
  }

  /**
   * Checks the settings and fetches a JWKS once. A bad setting throws CliError `config-invalid` naming it, so that
   * `engine serve` stops before serving anything.
   */
  static async create(settings: AuthSettings, logger: Logger = silentLogger): Promise<Authenticator> {
    const secret = settings.adminSecret || undefined;
    const jwt = settings.jwtSecret ? await parseJwtConfig(settings.jwtSecret) : undefined;
    if (jwt && !secret) throw new CliError('config-invalid', 'a JWT secret (jwt_secret) requires an admin secret (admin_secret)', 1);
    const role = settings.unauthorizedRole || undefined;
    if (role !== undefined && !secret) throw new CliError('config-invalid', 'an unauthorized role (unauthorized_role) requires an admin secret (admin_secret)', 1);
    if (role === 'admin') throw new CliError('config-invalid', 'invalid value for "unauthorized_role": it cannot be "admin"', 1);
    let jwks: JwksCache | undefined;
    if (jwt?.jwkUrl) {
      jwks = new JwksCache(jwt.jwkUrl, logger);
      await jwks.start();
    }
    return new Authenticator(secret, jwt, jwks, role);
  }

  /** The JWKS cache in JWT mode with `jwk_url` (tests read its fetch count). */
  get keySet(): JwksCache | undefined {
    return this.jwks;
  }

  /** Throws the 401 errors of engine-api.md §2.2 and issue 17. */
  async resolveCaller(headers: IncomingHttpHeaders): Promise<Caller> {
    if (!this.adminSecret) return headerCaller(headers);
    const given = headerValue(headers, 'x-engine-admin-secret');
    if (given !== undefined) {
      if (!secretMatches(given, this.adminSecret)) throw denied('invalid x-engine-admin-secret');
      return headerCaller(headers);
    }
    if (this.jwt) {
      const token = tokenOf(this.jwt, headers);
      if (token !== undefined) return jwtCaller(this.jwt, this.jwks, token, headerValue(headers, 'x-engine-role'));
    }
    if (this.unauthorizedRole !== undefined) {
      return { role: this.unauthorizedRole, sessionVariables: { 'x-engine-role': this.unauthorizedRole } };
    }
    if (this.jwt?.header.type === 'Cookie') throw denied(`missing cookie "${this.jwt.header.name}" in JWT authentication mode`);
    if (this.jwt) throw denied('missing Authorization header in JWT authentication mode');
    throw denied('x-engine-admin-secret required, but not found');
  }
}
