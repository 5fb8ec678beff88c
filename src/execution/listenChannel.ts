/**
 * A dedicated connection (outside the pool) that LISTENs on one NOTIFY channel and reconnects
 * when it is lost: after an error or end it waits (1 s, doubling up to 30 s) and connects again.
 * `onConnected` runs after every successful LISTEN (the first and each reconnect) so the caller
 * can catch up on notifications it may have missed while disconnected.
 */
import pg from 'pg';

export interface ChannelListenerOptions {
  /** Payload of each notification on the channel. */
  onNotify: (payload: string) => void;
  /** After each successful LISTEN; `reconnected` is false the first time. */
  onConnected?: (reconnected: boolean) => void;
  /** Connection lost or a connect attempt failed (a retry is scheduled). */
  onError?: (err: Error, retryInMs: number) => void;
  /** `application_name` of the connection (default `svc-graphql-engine-listener`). */
  applicationName?: string;
  /** First retry delay (default 1000 ms); doubles up to `maxRetryMs` (default 30 000 ms). */
  retryMs?: number;
  maxRetryMs?: number;
}

export interface ChannelListener {
  /** Resolves once the first LISTEN succeeded (rejects if that first attempt fails). */
  ready: Promise<void>;
  close(): Promise<void>;
}

/** Starts listening on `channel` at `url` (see the module header). */
export function listenChannel(url: string, channel: string, opts: ChannelListenerOptions): ChannelListener {
  const baseRetry = opts.retryMs ?? 1000;
  const maxRetry = opts.maxRetryMs ?? 30_000;
  let client: pg.Client | undefined;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let retry = baseRetry;
  let connectedOnce = false;

  const scheduleReconnect = (err: Error) => {
    if (closed || timer) return;
    const delay = retry;
    retry = Math.min(retry * 2, maxRetry);
    opts.onError?.(err, delay);
    timer = setTimeout(() => {
      timer = undefined;
      void connect().catch(() => undefined);
    }, delay);
    timer.unref();
  };

  const connect = async (): Promise<void> => {
    const c = new pg.Client({ connectionString: url, application_name: opts.applicationName ?? 'svc-graphql-engine-listener', keepAlive: true });
    client = c;
    let failed = false;
    const lost = (err: Error) => {
      if (failed) return;
      failed = true;
      c.removeAllListeners('notification');
      void c.end().catch(() => undefined);
      if (client === c) client = undefined;
      scheduleReconnect(err);
    };
    c.on('error', lost);
    c.on('end', () => lost(new Error('listener connection closed')));
    c.on('notification', (msg) => {
      if (msg.channel === channel) opts.onNotify(msg.payload ?? '');
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${c.escapeIdentifier(channel)}`);
    } catch (err) {
      lost(err instanceof Error ? err : new Error(String(err)));
      throw err;
    }
    if (closed) {
      await c.end().catch(() => undefined);
      return;
    }
    retry = baseRetry;
    const reconnected = connectedOnce;
    connectedOnce = true;
    opts.onConnected?.(reconnected);
  };

  const ready = connect();
  ready.catch(() => undefined);
  return {
    ready,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      const c = client;
      client = undefined;
      if (c) {
        c.removeAllListeners('end');
        c.removeAllListeners('error');
        c.on('error', () => undefined);
        await c.end().catch(() => undefined);
      }
    },
  };
}
