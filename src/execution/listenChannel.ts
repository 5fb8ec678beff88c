/**
 * A dedicated connection (outside the pool) that LISTENs on one NOTIFY channel and reconnects
 * when it is lost: after an error or end it waits (1 s, doubling up to 30 s) and connects again.
 * `onConnected` runs after every successful LISTEN (the first and each reconnect) so the caller
 * can catch up on notifications it may have missed while disconnected.
 *
 * With `probe`, the channel is also verified end to end: the connection LISTENs on a second channel,
 * `<channel>_probe`, and after each LISTEN (and every `reprobeMs` while it holds) one notification
 * with a unique payload is sent there through `probe` (the engine's pool, so through any pooler in
 * between); `verified()` is true once it arrived here within `probeTimeoutMs`. Probes travel on their
 * own channel so that listeners of the main one (other engines, older versions) never see them. A transaction-mode pooler between the engine and Postgres accepts LISTEN
 * but delivers nothing, so `verified()` stays false there: callers that may poll less often while
 * notifications reach them (the backstop polls' back-off) ask it first. Probe payloads never reach
 * `onNotify`.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';

/** The channel of `channel`'s self-test notifications. */
export function probeChannel(channel: string): string {
  return `${channel}_probe`;
}

export interface ChannelListenerOptions {
  /** Payload of each notification on the channel. */
  onNotify: (payload: string) => void;
  /** After each successful LISTEN; `reconnected` is false the first time. */
  onConnected?: (reconnected: boolean) => void;
  /** Connection lost or a connect attempt failed (a retry is scheduled). */
  onError?: (err: Error, retryInMs: number) => void;
  /** First retry delay (default 1000 ms); doubles up to `maxRetryMs` (default 30 000 ms). */
  retryMs?: number;
  maxRetryMs?: number;
  /** `application_name` of the connection (default `svc-graphql-engine-listener`, the schema sync's). */
  applicationName?: string;
  /** Sends `pg_notify(channel, payload)` through the engine's pool (`channel` is the probe channel): enables `verified()` (see the module header). */
  probe?: (channel: string, payload: string) => Promise<unknown>;
  /** How long a probe may take to arrive (default 5 000 ms). */
  probeTimeoutMs?: number;
  /** While verified, probe again this often (default 60 000 ms): a connection that died silently stops counting. */
  reprobeMs?: number;
  /** Called when `verified()` changes. */
  onVerified?: (verified: boolean) => void;
}

export interface ChannelListener {
  /** Resolves once the first LISTEN succeeded (rejects if that first attempt fails). */
  ready: Promise<void>;
  /** A probe sent through the pool arrived on this connection, and it has not been lost since. */
  verified(): boolean;
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
  let verified = false;
  /** The payload of the probe in flight and when it gives up. */
  let probing: { payload: string; timer: NodeJS.Timeout } | undefined;
  let reprobeTimer: NodeJS.Timeout | undefined;

  const setVerified = (v: boolean) => {
    if (v === verified) return;
    verified = v;
    opts.onVerified?.(v);
  };
  const clearProbe = () => {
    if (probing) clearTimeout(probing.timer);
    probing = undefined;
    if (reprobeTimer) clearTimeout(reprobeTimer);
    reprobeTimer = undefined;
  };
  const sendProbe = (c: pg.Client) => {
    if (!opts.probe || closed || client !== c || probing) return;
    const payload = randomUUID();
    const timer = setTimeout(() => {
      if (probing?.payload !== payload) return;
      probing = undefined;
      setVerified(false);
      // Not delivered: maybe a pooler, maybe a slow moment. Try again later; polling carries on meanwhile.
      scheduleReprobe(c);
    }, opts.probeTimeoutMs ?? 5000);
    timer.unref();
    probing = { payload, timer };
    opts.probe(probeChannel(channel), payload).catch(() => undefined);
  };
  const scheduleReprobe = (c: pg.Client) => {
    if (closed || client !== c) return;
    if (reprobeTimer) clearTimeout(reprobeTimer);
    reprobeTimer = setTimeout(() => {
      reprobeTimer = undefined;
      sendProbe(c);
    }, opts.reprobeMs ?? 60_000);
    reprobeTimer.unref();
  };

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
      if (client === c) {
        client = undefined;
        clearProbe();
        setVerified(false);
      }
      scheduleReconnect(err);
    };
    c.on('error', lost);
    c.on('end', () => lost(new Error('listener connection closed')));
    c.on('notification', (msg) => {
      const payload = msg.payload ?? '';
      if (opts.probe && msg.channel === probeChannel(channel)) {
        if (probing?.payload === payload && client === c) {
          clearTimeout(probing.timer);
          probing = undefined;
          setVerified(true);
          scheduleReprobe(c);
        }
        return;
      }
      if (msg.channel === channel) opts.onNotify(payload);
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${c.escapeIdentifier(channel)}`);
      if (opts.probe) await c.query(`LISTEN ${c.escapeIdentifier(probeChannel(channel))}`);
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
    sendProbe(c);
  };

  const ready = connect();
  ready.catch(() => undefined);
  return {
    ready,
    verified: () => verified,
    async close() {
      closed = true;
      clearProbe();
      setVerified(false);
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
