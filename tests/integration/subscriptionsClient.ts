/**
 * A WebSocket test client for the subscription tests: a real `ws` socket whose messages queue up
 * so a test can await the next one, assert that none arrives, or await the close.
 */
import WebSocket from 'ws';

export interface Closed {
  code: number;
  reason: string;
}

export class TestSocket {
  readonly ws: WebSocket;
  private readonly queue: any[] = [];
  private waiters: Array<(m: any) => void> = [];
  readonly opened: Promise<void>;
  readonly closed: Promise<Closed>;

  /** `headers`: sent with the upgrade request. */
  constructor(url: string, protocol: string | undefined, path = '/v1/graphql', headers?: Record<string, string>) {
    this.ws = new WebSocket(url.replace(/^http/, 'ws') + path, protocol ? [protocol] : [], headers ? { headers } : undefined);
    this.opened = new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve());
      this.ws.once('error', reject);
    });
    this.closed = new Promise((resolve) => this.ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    this.ws.on('message', (d) => {
      const m = JSON.parse(d.toString());
      const w = this.waiters.shift();
      if (w) w(m);
      else this.queue.push(m);
    });
  }

  static async open(url: string, protocol: string | undefined, path?: string, headers?: Record<string, string>): Promise<TestSocket> {
    const s = new TestSocket(url, protocol, path, headers);
    await s.opened;
    return s;
  }

  send(msg: unknown): void {
    this.ws.send(typeof msg === 'string' ? msg : JSON.stringify(msg));
  }

  /** The next message (skipping `ka` keep-alives unless asked for), or a rejection after `ms`. */
  async next(ms = 3000, skipKa = true): Promise<any> {
    for (;;) {
      const m = await this.take(ms);
      if (!(skipKa && m?.type === 'ka')) return m;
    }
  }

  private take(ms: number): Promise<any> {
    if (this.queue.length > 0) return Promise.resolve(this.queue.shift());
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== got);
        reject(new Error(`no message within ${ms} ms`));
      }, ms);
      const got = (m: any) => {
        clearTimeout(timer);
        resolve(m);
      };
      this.waiters.push(got);
    });
  }

  /** Asserts that no message other than `ka` arrives within `ms`. */
  async none(ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    for (;;) {
      const left = deadline - Date.now();
      if (left <= 0) return;
      let m: any;
      try {
        m = await this.take(left);
      } catch {
        return;
      }
      if (m?.type !== 'ka') throw new Error(`unexpected message: ${JSON.stringify(m)}`);
    }
  }

  close(): void {
    this.ws.close();
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Polls `fn` until it returns true, or fails after `ms` (generous: a loaded machine is slow, and a
 * passing test returns as soon as the condition holds). `what` may be a function, evaluated at failure.
 */
export async function eventually(fn: () => boolean | Promise<boolean>, ms = 15_000, what: string | (() => string) = 'condition'): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === 'function' ? what() : what}`);
    await sleep(20);
  }
}

/** An initialised `graphql-transport-ws` connection (connection_ack consumed). */
export async function openTransportWs(url: string, headers: Record<string, string>): Promise<TestSocket> {
  const s = await TestSocket.open(url, 'graphql-transport-ws');
  s.send({ type: 'connection_init', payload: { headers } });
  const ack = await s.next();
  if (ack.type !== 'connection_ack') throw new Error(`expected connection_ack, got ${JSON.stringify(ack)}`);
  return s;
}
