import { IncomingMessage } from 'node:http';
import { createServer, Socket, connect, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { BodyError, MAX_BODY_BYTES, readBody } from '../../src/server/http/body.js';
import { answered, whileConnected } from '../../src/server/http/connection.js';

// Issue 28's cheaper request path: one close listener per connection (src/server/http/connection.ts), and a body that
// came whole with the headers read from the stream's buffer (src/server/http/body.ts). Real sockets on 127.0.0.1.

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

/** The server's side of a real connection, and the client's. */
async function connection(): Promise<{ server: Socket; client: Socket }> {
  let accepted: (s: Socket) => void = () => {};
  const got = new Promise<Socket>((r) => (accepted = r));
  const srv = createServer((s) => accepted(s));
  servers.push(srv);
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  const client = connect(port, '127.0.0.1');
  return { server: await got, client };
}

describe('whileConnected', () => {
  it('is aborted at once when the connection is already gone', () => {
    const socket = new Socket();
    socket.destroy();
    const gone = whileConnected(new IncomingMessage(socket));
    expect([gone.aborted, gone.reason]).toEqual([true, 'client-disconnected']);
  });

  it('aborts the requests not answered when the connection closes, with one listener for all of them', async () => {
    const { server, client } = await connection();
    const listeners = server.listenerCount('close');
    const first = whileConnected(new IncomingMessage(server));
    const second = whileConnected(new IncomingMessage(server));
    const third = whileConnected(new IncomingMessage(server));
    expect(server.listenerCount('close')).toBe(listeners + 1);
    answered(new IncomingMessage(server), second);
    const closed = new Promise((r) => server.once('close', r));
    client.destroy();
    await closed;
    expect([first.aborted, second.aborted, third.aborted]).toEqual([true, false, true]);
    expect(first.reason).toBe('client-disconnected');
  });
});

describe('readBody of a body that came with the headers', () => {
  const complete = (...chunks: Buffer[]): IncomingMessage => {
    const req = new IncomingMessage(new Socket());
    for (const c of chunks) req.push(c);
    req.push(null);
    req.complete = true;
    return req;
  };

  it('is the buffered bytes, or empty', async () => {
    expect((await readBody(complete(Buffer.from('{"a":'), Buffer.from('1}')), 1000)).toString()).toBe('{"a":1}');
    expect((await readBody(complete(), 1000)).length).toBe(0);
  });

  it('over the limit (chunked: no length declared) is refused with 413 parse-failed', async () => {
    const e = await readBody(complete(Buffer.alloc(MAX_BODY_BYTES), Buffer.alloc(1)), 1000).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(BodyError);
    expect(e).toMatchObject({ status: 413, code: 'parse-failed', path: '$', message: `request body is larger than the limit of ${MAX_BODY_BYTES / 1024 / 1024} MB` });
  });
});
