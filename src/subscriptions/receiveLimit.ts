/**
 * The largest message a socket will receive, changed while it lives: small until connection_init is
 * accepted, then the session's bound. `ws` has one `maxPayload` for the whole server and no public
 * per-socket setting; its receiver checks each frame's declared length against `_maxPayload` before
 * reading the payload (ws 8), so a socket over the bound is closed (1009) after its frame header,
 * without the engine buffering or unmasking the rest (an anonymous 8 MB message cost ~50 ms of
 * receiving and 8 MB of memory). `tests/unit/subscriptions/receiveLimit.test.ts` checks that the
 * installed `ws` still behaves so; without the field the engine's own check after receipt applies.
 */
import type { WebSocket } from 'ws';

/** Sets the bound; false when this `ws` has no such field (the caller's own check still applies). */
export function setReceiveLimit(socket: WebSocket, bytes: number): boolean {
  const receiver = (socket as unknown as { _receiver?: { _maxPayload?: unknown } })._receiver;
  if (!receiver || typeof receiver._maxPayload !== 'number') return false;
  receiver._maxPayload = bytes;
  return true;
}
