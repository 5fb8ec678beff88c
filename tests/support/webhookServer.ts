/**
 * A local auth-webhook for tests: records every request (method, headers, JSON body) and answers
 * with what the test's `reply` function returns.
 */
import { createServer } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HookRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export interface HookReply {
  status: number;
  body?: unknown;
  /** Raw body text (overrides `body`). */
  text?: string;
  delayMs?: number;
}

export interface WebhookServer {
  url: string;
  requests: HookRequest[];
  setReply(fn: (req: HookRequest) => HookReply): void;
  stop(): Promise<void>;
}

export async function startWebhookServer(reply: (req: HookRequest) => HookReply, port = 0): Promise<WebhookServer> {
  let fn = reply;
  const requests: HookRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        body = text;
      }
      const r: HookRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      requests.push(r);
      const out = fn(r);
      const send = () => res.writeHead(out.status, { 'content-type': 'application/json' }).end(out.text ?? (out.body === undefined ? '' : JSON.stringify(out.body)));
      if (out.delayMs) setTimeout(send, out.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  const p = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${p}/auth`,
    requests,
    setReply: (f) => (fn = f),
    stop: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
