import type { HttpApp, HttpReply, HttpRequest } from './router.js';
import { CONSOLE_CSP, consoleAsset } from '../console/assets.js';

/** The web console's files at /console (its single-page routes are index.html); registered with --enable-console. */
export function registerConsole(app: HttpApp): void {
  const serve = (request: HttpRequest, reply: HttpReply): void => {
    const asset = consoleAsset(request.path);
    if (!asset) {
      reply.callNotFound();
      return;
    }
    reply
      .header('content-type', asset.type)
      .header('cache-control', asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
      .header('content-security-policy', CONSOLE_CSP)
      .send(asset.body);
  };
  app.get('/console', serve);
  app.get('/console/*', serve);
}
