import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isObject, type Json, type JsonObject } from '../../metadata/json.js';
import type { ActionResponse } from './format.js';

/**
 * The outside world of an ephemeral engine (issue 33): every action handler and event webhook of the project is
 * pointed at this recorder on a loopback port, so a test run never calls the project's real services. Action calls
 * are recorded for `expect.action_calls` and answered with the case's `action_responses`; event deliveries are
 * acknowledged (a case's events are read from the event log, where they exist as soon as the operation commits).
 */

export interface RecordedCall {
  action: string;
  body: Json;
}

export interface CallRecorder {
  url: string;
  /** The calls to action handlers since the last `reset`, in the order they came. */
  readonly calls: readonly RecordedCall[];
  /** Forgets the calls and sets what each action's handler answers until the next reset. */
  reset(responses: Record<string, ActionResponse>): void;
  close(): Promise<void>;
}

const ACTION = '/action/';
const EVENT = '/event/';
const MAX_BODY = 10 * 1024 * 1024;

function answer(res: ServerResponse, status: number, body: Json): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export async function startRecorder(): Promise<CallRecorder> {
  let calls: RecordedCall[] = [];
  let responses: Record<string, ActionResponse> = {};
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on('end', () => {
      const path = req.url ?? '';
      if (path.startsWith(EVENT)) return answer(res, 200, {});
      if (!path.startsWith(ACTION)) return answer(res, 404, { message: 'not a handler of the test run' });
      const action = decodeURIComponent(path.slice(ACTION.length));
      const text = Buffer.concat(chunks).toString('utf8');
      let body: Json;
      try {
        body = JSON.parse(text) as Json;
      } catch {
        body = text;
      }
      calls.push({ action, body });
      const r = responses[action];
      if (r) return answer(res, r.status, r.body);
      // 4xx: the engine passes the handler's message on to the client (a 5xx becomes "internal error").
      return answer(res, 400, { message: `engine test: the case gives no response for action "${action}" (action_responses)` });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  server.unref();
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get calls() {
      return calls;
    },
    reset(r) {
      calls = [];
      responses = r;
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/**
 * Configured headers of a redirected call: one read from an environment variable that is not set would stop the call
 * before it is made (engine-api.md §5.1), yet the recorder needs none of them — it becomes an empty value.
 */
function headersFor(headers: unknown, variable: (name: string) => string | undefined): Json {
  if (!Array.isArray(headers)) return [];
  return headers.map((h): Json => {
    if (!isObject(h) || typeof h['value_from_env'] !== 'string' || variable(h['value_from_env']) !== undefined) return h as Json;
    return { name: h['name'] as Json, value: '' };
  });
}

/**
 * The metadata document with every action handler and event webhook pointed at `base` (the recorder): the rest of
 * the document, permissions included, is unchanged.
 */
export function redirectCalls(doc: JsonObject, base: string, variable: (name: string) => string | undefined = () => undefined): JsonObject {
  const out: JsonObject = { ...doc };
  if (Array.isArray(doc['actions'])) {
    out['actions'] = doc['actions'].map((a): Json => {
      if (!isObject(a) || !isObject(a['definition'])) return a;
      const definition: JsonObject = { ...a['definition'], handler: `${base}${ACTION}${encodeURIComponent(String(a['name']))}` };
      if ('headers' in definition) definition['headers'] = headersFor(definition['headers'], variable);
      return { ...a, definition };
    });
  }
  if (Array.isArray(doc['tables'])) {
    out['tables'] = doc['tables'].map((t): Json => {
      if (!isObject(t) || !Array.isArray(t['event_triggers'])) return t;
      return {
        ...t,
        event_triggers: t['event_triggers'].map((e): Json => {
          if (!isObject(e)) return e;
          const { webhook_from_env: _env, ...rest } = e;
          const redirected: JsonObject = { ...rest, webhook: `${base}${EVENT}${encodeURIComponent(String(e['name']))}` };
          if ('headers' in redirected) redirected['headers'] = headersFor(redirected['headers'], variable);
          return redirected;
        }),
      };
    });
  }
  return out;
}
