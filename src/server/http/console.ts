import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { consoleAsset } from '../console/assets.js';

// The console talks to this origin only (issue 34): a script or frame from anywhere else is refused.
const CSP = "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:";

/** The web console's files at /console (its single-page routes are index.html); registered with --enable-console. */
export function registerConsole(app: FastifyInstance): void {
  const serve = (request: FastifyRequest, reply: FastifyReply): void => {
    const asset = consoleAsset(request.url.split('?')[0] ?? '');
    if (!asset) {
      void reply.callNotFound();
      return;
    }
    void reply
      .header('content-type', asset.type)
      .header('cache-control', asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
      .header('content-security-policy', CSP)
      .send(asset.body);
  };
  app.get('/console', serve);
  app.get('/console/*', serve);
}
