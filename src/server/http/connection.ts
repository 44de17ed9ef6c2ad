import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { Canceller } from '../../db/cancel.js';
import { CANCEL_DISCONNECTED } from '../graphql/service.js';

const kInFlight = Symbol('engine.inFlight');
type TrackedSocket = Socket & { [kInFlight]?: Set<Canceller> };

/**
 * Aborts when the connection closes before the answer is sent (`answered`): the client went away, its statement is
 * cancelled. One listener per connection, not per request (a listener set and removed per request cost more than the
 * log line; issue 28); pipelined requests may be several at once.
 */
export function whileConnected(req: IncomingMessage): Canceller {
  const gone = new Canceller();
  const socket = req.socket as TrackedSocket;
  if (socket.destroyed) {
    gone.abort(CANCEL_DISCONNECTED);
    return gone;
  }
  let open = socket[kInFlight];
  if (open === undefined) {
    const held = (open = new Set());
    socket[kInFlight] = held;
    socket.once('close', () => {
      for (const c of held) c.abort(CANCEL_DISCONNECTED);
      held.clear();
    });
  }
  open.add(gone);
  return gone;
}

/** The request's answer was given: a close of its connection no longer concerns it. */
export function answered(req: IncomingMessage, gone: Canceller): void {
  (req.socket as TrackedSocket)[kInFlight]?.delete(gone);
}
