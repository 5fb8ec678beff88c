/**
 * A webhook receiver for event deliveries: records every POST (path, headers, parsed body, arrival
 * time) and answers with what `reply` returns for it (status, headers, body, delay; `hold: true`
 * never answers, as a webhook that hangs).
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Delivery {
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
  at: number;
}

export interface ReceiverReply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  delayMs?: number;
  hold?: boolean;
}

export interface EventReceiver {
  url: string;
  deliveries: Delivery[];
  setReply(fn: (d: Delivery) => ReceiverReply): void;
  stop(): Promise<void>;
}

export async function startEventReceiver(reply: (d: Delivery) => ReceiverReply = () => ({ status: 200 })): Promise<EventReceiver> {
  let fn = reply;
  const deliveries: Delivery[] = [];
  const held: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        /* keep the text */
      }
      const d: Delivery = { path: req.url ?? '', headers: req.headers, body, at: Date.now() };
      deliveries.push(d);
      const out = fn(d);
      if (out.hold) {
        held.push(res);
        return;
      }
      const send = () => res.writeHead(out.status, out.headers ?? {}).end(out.body ?? '');
      if (out.delayMs) setTimeout(send, out.delayMs);
      else send();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    deliveries,
    setReply: (f) => (fn = f),
    stop: () =>
      new Promise<void>((resolve) => {
        for (const r of held) r.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Polls `probe` until `ok` accepts its value; fails with the last value after `timeoutMs`. */
export async function eventually<T>(probe: () => T | Promise<T>, ok: (v: T) => boolean, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what} not reached after ${timeoutMs} ms; last value: ${JSON.stringify(v)?.slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
