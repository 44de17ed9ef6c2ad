import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CONSOLE_CSP, consoleAsset } from '../console/assets.js';

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
      .header('content-security-policy', CONSOLE_CSP)
      .send(asset.body);
  };
  app.get('/console', serve);
  app.get('/console/*', serve);
}
