/**
 * The database side of the built-in (WebAssembly) pg_dump: one real connection to the engine's
 * database, driven by the bytes pg_dump's libpq writes. `answer(bytes)` forwards what the client
 * wrote and resolves with what the server answered once the server waits for the client again:
 * every Query / Sync / FunctionCall has its ReadyForQuery, or a CopyInResponse came, or the
 * connection ended. Bytes that need no answer (half a message, Terminate) resolve at once, empty.
 *
 * The client's startup is not forwarded as it is: libpq in the WebAssembly module knows neither the
 * engine's user nor its password, so its StartupMessage is rewritten with the user and database of
 * the engine's URL (its other parameters kept), the bridge authenticates with the engine's
 * credentials (trust, password, MD5, SCRAM-SHA-256 with `pg`'s SASL code) and hands the client the
 * server's AuthenticationOk and what follows it, up to ReadyForQuery. An SSL or GSS request from
 * the client is declined (the bridge itself speaks TLS to the server when the URL's `sslmode` asks).
 */
import { createRequire } from 'node:module';
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

interface SaslSession { response: string }
interface SaslModule {
  startSession(mechanisms: string[], stream?: unknown): SaslSession;
  continueSession(session: SaslSession, password: string, serverData: string, stream?: unknown): Promise<void>;
  finalizeSession(session: SaslSession, serverData: string): void;
}
const require = createRequire(import.meta.url);
const sasl = require('pg/lib/crypto/sasl') as SaslModule;
const pgCrypto = require('pg/lib/crypto/utils') as { postgresMd5PasswordHash(user: string, password: string, salt: Buffer): Promise<string> };

const PROTOCOL_3 = 196608;
const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;
/** Client messages after which the server answers with a ReadyForQuery. */
const ANSWERED = new Set(['Q', 'S', 'F']);

/** Where and as whom to connect: from the engine's database URL. */
export interface BridgeTarget {
  host?: string;
  /** A Unix socket directory (`?host=/dir` in the URL). */
  socketDir?: string;
  port: number;
  user: string;
  password: string;
  database: string;
  ssl?: { rejectUnauthorized: boolean };
}

export function bridgeTarget(url: string): BridgeTarget {
  const u = new URL(url);
  const dir = u.searchParams.get('host') ?? undefined;
  const mode = u.searchParams.get('sslmode');
  const user = decodeURIComponent(u.username) || 'postgres';
  return {
    host: dir ? undefined : decodeURIComponent(u.hostname.replace(/^\[|\]$/g, '')) || 'localhost',
    socketDir: dir,
    port: Number(u.port || 5432),
    user,
    password: decodeURIComponent(u.password),
    database: decodeURIComponent(u.pathname.replace(/^\//, '')) || user,
    ssl: mode === 'require' || mode === 'no-verify' ? { rejectUnauthorized: false } : mode === 'verify-ca' || mode === 'verify-full' ? { rejectUnauthorized: true } : undefined,
  };
}

/** Reads length-prefixed messages (type byte + int32 length) from a byte stream. */
class Framer {
  private buf = Buffer.alloc(0);
  push(b: Uint8Array): void {
    this.buf = this.buf.length === 0 ? Buffer.from(b) : Buffer.concat([this.buf, b]);
  }
  /** The next complete message, or undefined. `typed: false` for the startup packet. */
  next(typed = true): { type: string; body: Buffer; raw: Buffer } | undefined {
    const head = typed ? 1 : 0;
    if (this.buf.length < head + 4) return undefined;
    const len = this.buf.readInt32BE(head);
    if (this.buf.length < head + len) return undefined;
    const raw = this.buf.subarray(0, head + len);
    this.buf = this.buf.subarray(head + len);
    return { type: typed ? String.fromCharCode(raw[0]) : '', body: raw.subarray(head + 4), raw };
  }
}

function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}
const cstr = (s: string): Buffer => Buffer.from(`${s}\0`, 'utf8');

export class PgDumpBridge {
  private readonly target: BridgeTarget;
  private socket: Socket | undefined;
  private started = false;
  private readonly fromClient = new Framer();
  private readonly fromServer = new Framer();
  private pending: Buffer[] = [];
  private owedReady = 0;
  private waiter: { resolve: (b: Uint8Array) => void } | undefined;
  private serverMessage: ((m: { type: string; body: Buffer; raw: Buffer }) => void) | undefined;
  private closed = false;

  constructor(target: BridgeTarget) {
    this.target = target;
  }

  /** What the server answered to `bytes` (empty when they call for no answer). */
  async answer(bytes: Uint8Array): Promise<Uint8Array> {
    this.fromClient.push(bytes);
    if (!this.started) return this.startup();
    let waits = false;
    for (let m = this.fromClient.next(); m; m = this.fromClient.next()) {
      if (m.type === 'X') {
        this.close();
        return new Uint8Array(0);
      }
      if (ANSWERED.has(m.type)) this.owedReady++;
      if (ANSWERED.has(m.type) || m.type === 'c' || m.type === 'f') waits = true;
      this.socket?.write(m.raw);
    }
    if (!waits || this.closed) return this.take();
    return new Promise((resolve) => {
      this.waiter = { resolve };
    });
  }

  close(): void {
    this.closed = true;
    this.socket?.destroy();
    this.wake();
  }

  private take(): Uint8Array {
    const out = Buffer.concat(this.pending);
    this.pending = [];
    return out;
  }

  private wake(): void {
    const w = this.waiter;
    if (!w) return;
    this.waiter = undefined;
    w.resolve(this.take());
  }

  private async startup(): Promise<Uint8Array> {
    const m = this.fromClient.next(false);
    if (!m) return new Uint8Array(0);
    const code = m.body.readInt32BE(0);
    if (code === SSL_REQUEST || code === GSS_REQUEST) return Buffer.from('N');
    if (code !== PROTOCOL_3) return fatal('08P01', `unsupported frontend protocol ${code}`);
    const params = new Map<string, string>();
    const fields = m.body.subarray(4).toString('utf8').split('\0');
    for (let i = 0; i + 1 < fields.length && fields[i] !== ''; i += 2) params.set(fields[i], fields[i + 1]);
    params.set('user', this.target.user);
    params.set('database', this.target.database);
    this.started = true;
    try {
      await this.connect();
    } catch (e) {
      this.closed = true;
      return fatal('08006', `could not connect to the engine's database: ${e instanceof Error ? e.message : String(e)}`);
    }
    const body = Buffer.concat([Buffer.from([0, 3, 0, 0]), ...[...params].flatMap(([k, v]) => [cstr(k), cstr(v)]), Buffer.from([0])]);
    const len = Buffer.alloc(4);
    len.writeInt32BE(body.length + 4);
    this.owedReady = 1;
    const answered = new Promise<Uint8Array>((resolve) => {
      this.waiter = { resolve };
    });
    this.authenticate();
    this.socket!.write(Buffer.concat([len, body]));
    if (this.closed) this.wake();
    return answered;
  }

  private connect(): Promise<void> {
    const t = this.target;
    return new Promise((resolve, reject) => {
      const plain = t.socketDir ? netConnect({ path: `${t.socketDir}/.s.PGSQL.${t.port}` }) : netConnect({ host: t.host, port: t.port });
      plain.once('error', reject);
      plain.once('connect', () => {
        if (!t.ssl) return resolve(this.attach(plain));
        plain.write(Buffer.from([0, 0, 0, 8, 4, 0xd2, 0x16, 0x2f]));
        plain.once('data', (d: Buffer) => {
          if (d[0] !== 0x53) return reject(new Error('the server does not support SSL connections'));
          const secure = tlsConnect({ socket: plain, servername: t.host, rejectUnauthorized: t.ssl!.rejectUnauthorized });
          secure.once('error', reject);
          secure.once('secureConnect', () => resolve(this.attach(secure)));
        });
      });
    });
  }

  private attach(socket: Socket): void {
    this.socket = socket;
    socket.removeAllListeners('error');
    socket.on('data', (d: Buffer) => {
      this.fromServer.push(d);
      for (let m = this.fromServer.next(); m; m = this.fromServer.next()) this.onServer(m);
    });
    socket.on('error', () => this.close());
    socket.on('close', () => this.close());
  }

  private onServer(m: { type: string; body: Buffer; raw: Buffer }): void {
    if (this.serverMessage) return this.serverMessage(m);
    this.pending.push(m.raw);
    if (m.type === 'Z' && this.owedReady > 0 && --this.owedReady === 0) this.wake();
    else if (m.type === 'G' || m.type === 'W') this.wake();
  }

  /**
   * Answers the server's authentication requests; from AuthenticationOk on (or an error) the
   * server's messages are the client's.
   */
  private authenticate(): void {
    const t = this.target;
    let session: SaslSession | undefined;
    let chain = Promise.resolve();
    let authed = false;
    const write = (type: string, body: Buffer): void => void this.socket!.write(message(type, body));
    this.serverMessage = (m) => {
      chain = chain.then(async () => {
        const kind = m.type === 'R' ? m.body.readInt32BE(0) : -1;
        if (authed || m.type !== 'R' || kind === 0) {
          authed = true;
          this.serverMessage = undefined;
          return this.onServer(m);
        }
        if (kind === 3) write('p', cstr(t.password));
        else if (kind === 5) write('p', cstr(await pgCrypto.postgresMd5PasswordHash(t.user, t.password, m.body.subarray(4, 8))));
        else if (kind === 10) {
          session = sasl.startSession(m.body.subarray(4).toString('utf8').split('\0').filter(Boolean));
          const initial = Buffer.from(session.response, 'utf8');
          const len = Buffer.alloc(4);
          len.writeInt32BE(initial.length);
          write('p', Buffer.concat([cstr('SCRAM-SHA-256'), len, initial]));
        } else if (kind === 11) {
          await sasl.continueSession(session!, t.password, m.body.subarray(4).toString('utf8'));
          write('p', Buffer.from(session!.response, 'utf8'));
        } else if (kind === 12) sasl.finalizeSession(session!, m.body.subarray(4).toString('utf8'));
        else throw new Error(`authentication method ${kind} requested by the server is not supported`);
      }).catch((e: unknown) => {
        authed = true;
        this.serverMessage = undefined;
        this.pending.push(fatal('28000', e instanceof Error ? e.message : String(e)));
        this.close();
      });
    };
  }
}

/** An ErrorResponse, as the server would send it. */
function fatal(code: string, text: string): Buffer {
  return message('E', Buffer.concat([cstr('SFATAL'), cstr('VFATAL'), cstr(`C${code}`), cstr(`M${text}`), Buffer.from([0])]));
}
