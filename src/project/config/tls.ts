import { resolve } from 'node:path';
import { CliError } from '../../errors.js';
import type { TlsOptions } from '../../client/identity.js';
import { readProjectFile } from '../project-file.js';

/**
 * The TLS settings of the global flags: `--certificate-authority FILE` (PEM, trusted instead of the system store) and
 * `--insecure-skip-tls-verify` (any certificate accepted). Both only matter for https:// endpoints.
 */
export function tlsSettings(flags: { insecureSkipTlsVerify?: boolean; certificateAuthority?: string }): TlsOptions | undefined {
  const out: TlsOptions = {};
  if (flags.certificateAuthority !== undefined) {
    const path = resolve(flags.certificateAuthority);
    const pem = readProjectFile(path);
    if (pem === undefined) throw new CliError('file-not-found', `certificate authority file "${flags.certificateAuthority}" not found`, 1);
    if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
      throw new CliError('invalid-flag-value', `invalid value "${flags.certificateAuthority}" for --certificate-authority: expected a PEM file of certificates`, 64);
    }
    out.ca = pem;
  }
  if (flags.insecureSkipTlsVerify) out.rejectUnauthorized = false;
  return Object.keys(out).length > 0 ? out : undefined;
}
