import type { HttpApp } from './router.js';
import type { Engine } from '../engine.js';
import { recordJson } from '../inconsistency.js';
import { JSON_TYPE } from './envelope.js';
import type { StructuredLog } from './logs.js';

/**
 * `/healthz` (issue 31.5): 200 `OK` when the database answers; 500 `ERROR` when it does not
 * within 5 s. With inconsistent metadata it is 200 `WARN: inconsistent objects in schema` (the engine serves the
 * rest), and with `?strict=true` 500 with the inconsistent objects, so that an orchestrator can refuse such a
 * release.
 */

const TIMEOUT_MS = 5000;

async function within<T>(p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('health check timed out')), TIMEOUT_MS);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function registerHealth(app: HttpApp, engine: Engine, log: StructuredLog): void {
  app.get('/healthz', async (request, reply) => {
    const strict = request.query['strict'] === 'true';
    let inconsistent;
    try {
      // A database busy with a long statement is alive (the embedded worker answers nothing else meanwhile): the ping
      // is enough unless the caller asks for the stored metadata's state.
      await within<unknown>(engine.db.ping ? engine.db.ping() : engine.db.query('SELECT 1'));
      inconsistent = strict ? (await within(engine.freshCache())).cache.inconsistent : engine.heldCache().cache.inconsistent;
    } catch (e) {
      log.emit('error', 'health-check', { status: 'ERROR', database: 'unreachable', error: e instanceof Error ? e.message : String(e) });
      reply.code(500).header('content-type', 'text/plain').send('ERROR');
      return;
    }
    if (inconsistent.length === 0) {
      if (log.has('health-check')) log.emit('info', 'health-check', { status: 'OK', database: 'reachable' });
      reply.code(200).header('content-type', 'text/plain').send('OK');
    } else if (!strict) {
      log.emit('warn', 'health-check', { status: 'WARN', database: 'reachable', inconsistent_objects: inconsistent.length });
      reply.code(200).header('content-type', 'text/plain').send('WARN: inconsistent objects in schema');
    } else {
      log.emit('error', 'health-check', { status: 'ERROR', database: 'reachable', inconsistent_objects: inconsistent.length });
      const body = { path: '$', error: 'inconsistent objects in schema', code: 'metadata-inconsistent', inconsistent_objects: inconsistent.map(recordJson) };
      reply.code(500).header('content-type', JSON_TYPE).send(JSON.stringify(body));
    }
  });
}
