/**
 * The local server of `svc-graphql-engine console --project DIR`: it serves the console's built files
 * (api/consoleFile) and forwards everything else, WebSocket upgrades included, to the project's
 * engine with the project's admin secret. Each forwarded /v1/query, /v2/query or /v1/metadata request
 * is planned by consoleRequest.ts: a schema change goes to the engine together with its record in
 * `hdb_catalog.schema_migrations` and, once the engine answered with success, is written as
 * `<migrations>/<database>/<version>_<name>/{up,down}.sql`; a metadata change rewrites the metadata
 * folder as `metadata export` does. The console gets its answer after the files are written, one
 * request at a time, so the files always follow the clicks in order.
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { consoleFile } from '../api/index.js';
import type { Connection } from './args.js';
import { CliError } from './cliError.js';
import { EngineClient } from './client.js';
import type { CliIo } from './io.js';
import { exportMetadataDir } from './metadataCommand.js';
import { planRequest, type RequestPlan } from './consoleRequest.js';
import { appliedVersions } from './schemaMigrations.js';
import { writeMigration } from './writeMigration.js';

export interface ConsoleProxyOptions {
  conn: Connection;
  /** Where migrations go: `<migrationsDir>/<database>/`, or `migrationsDir` itself when `flatMigrations` (config v2). */
  migrationsDir: string;
  flatMigrations: boolean;
  /** Written in its own layout (config v2 files, or v3 with databases/), else v2: as `metadata export` does. */
  metadataDir: string;
  database: string;
  port: number;
  address: string;
  io: CliIo;
}

export interface ConsoleProxy {
  /** `http://<address>:<port>` */
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** Hop-by-hop and framing headers, not passed on either way. */
const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'content-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer']);
const OWN = new Set(['host', 'origin', 'referer', 'accept-encoding', 'x-svc-migration', 'x-svc-migration-name', 'x-svc-migration-down']);

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
};

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

const headerText = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v.join(', ') : v);

/**
 * The local server adds the admin secret, so only the console's own page may use it: a request from
 * another site open in the browser (its Origin is not this server) or for another host name (DNS
 * rebinding: Host is not this server's) is refused before it reaches the engine.
 */
function foreign(req: IncomingMessage, port: number, address: string): string | undefined {
  const host = req.headers.host ?? '';
  const own = new Set([`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, `${address.includes(':') ? `[${address}]` : address}:${port}`]);
  if (!own.has(host.toLowerCase())) return `the console server answers only for its own address, not for host ${JSON.stringify(host)}`;
  const origin = headerText(req.headers.origin);
  if (origin !== undefined && origin !== 'null') {
    let o: string;
    try {
      o = new URL(origin).host.toLowerCase();
    } catch {
      o = origin;
    }
    if (o !== host.toLowerCase()) return `a request from ${origin} is refused: only the console served here may use the project's admin secret`;
  } else if (origin === 'null') return 'a request from an opaque origin is refused: only the console served here may use the project\'s admin secret';
  return undefined;
}

export async function startConsoleProxy(o: ConsoleProxyOptions): Promise<ConsoleProxy> {
  const client = new EngineClient(o.conn);
  // Reaches the engine with the admin secret (a wrong one or an unreachable engine stops here, in one
  // line) and makes sure the table recording migrations is there before the first one is written.
  await appliedVersions(client);
  const migrationsFolder = (database: string) => (o.flatMigrations ? o.migrationsDir : join(o.migrationsDir, database));
  let lastVersion = 0n;
  const nextVersion = (): bigint => {
    const now = BigInt(Date.now());
    lastVersion = now > lastVersion ? now : lastVersion + 1n;
    return lastVersion;
  };
  /** One console request with effects at a time: files follow the clicks in order. */
  let queue: Promise<unknown> = Promise.resolve();

  const upstreamHeaders = (req: IncomingMessage): Record<string, string> => {
    const h: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (HOP.has(k) || OWN.has(k) || v === undefined) continue;
      h[k] = headerText(v)!;
    }
    if (o.conn.adminSecret !== undefined && h['x-svc-admin-secret'] === undefined) h['x-svc-admin-secret'] = o.conn.adminSecret;
    return h;
  };

  /** After the engine's success: the migration's files, then the metadata folder. */
  async function record(plan: RequestPlan): Promise<void> {
    if (plan.migration) {
      const folder = await writeMigration(migrationsFolder(plan.migration.database), plan.migration);
      o.io.progress(`migration written: ${folder}`);
    }
    if (plan.metadata) {
      const n = await exportMetadataDir(client, o.metadataDir);
      o.io.progress(`metadata exported to ${o.metadataDir}/ (${n} files)`);
    }
  }

  async function forward(req: IncomingMessage, res: ServerResponse, path: string, search: string): Promise<void> {
    const raw = await readBody(req);
    const headers = upstreamHeaders(req);
    let plan: RequestPlan | undefined;
    if (req.method === 'POST') {
      let body: unknown;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        body = undefined; // not JSON: the engine answers it
      }
      if (body !== undefined) {
        const p = planRequest(path, body, { 'x-svc-migration-name': headerText(req.headers['x-svc-migration-name']), 'x-svc-migration-down': headerText(req.headers['x-svc-migration-down']), 'x-svc-migration': headerText(req.headers['x-svc-migration']) }, { database: o.database, nextVersion });
        if (p.migration || p.metadata) plan = p;
      }
    }
    const send = async (): Promise<void> => {
      const up = await fetch(o.conn.endpoint + path + search, {
        method: req.method,
        headers,
        body: req.method === 'GET' || req.method === 'HEAD' ? undefined : plan ? JSON.stringify(plan.body) : new Uint8Array(raw),
        redirect: 'manual',
      });
      const out: Record<string, string> = {};
      up.headers.forEach((v, k) => {
        if (!HOP.has(k)) out[k] = v;
      });
      const bytes = Buffer.from(await up.arrayBuffer());
      if (!plan) {
        res.writeHead(up.status, out);
        res.end(bytes);
        return;
      }
      let answer: unknown;
      try {
        answer = JSON.parse(bytes.toString('utf8'));
      } catch {
        res.writeHead(up.status, out);
        res.end(bytes);
        return;
      }
      if (up.ok) {
        try {
          await record(plan);
        } catch (e) {
          o.io.err(`svc-graphql-engine console: the engine made the change, but the project was not updated: ${(e as Error).message}`);
        }
      }
      res.writeHead(up.status, { ...out, 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(plan.answer(up.status, answer)));
    };
    if (!plan) return send();
    const turn = queue.then(send);
    queue = turn.catch(() => undefined);
    return turn;
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://console.local');
    const path = url.pathname;
    const answer = async () => {
      if ((req.method === 'GET' || req.method === 'HEAD') && (path === '/' || path === '/console' || path.startsWith('/console/'))) {
        if (path === '/') {
          res.writeHead(307, { location: '/console' });
          res.end();
          return;
        }
        const f = consoleFile(path);
        let body = f.body;
        // The console learns it runs in migrations mode (the SQL page's "this is a migration" box).
        if (f.status === 200 && (path === '/console' || path === '/console/')) {
          const meta = JSON.stringify({ database: o.database }).replace(/&/g, '&amp;').replace(/"/g, '&quot;');
          body = body.toString().replace('<head>', `<head>\n<meta name="svc-console-project" content="${meta}">`);
        }
        res.writeHead(f.status, { 'content-type': 'application/json; charset=utf-8', ...f.headers });
        res.end(body);
        return;
      }
      const refused = foreign(req, port, o.address);
      if (refused !== undefined) return json(res, 403, { path: '$', error: refused, code: 'access-denied' });
      await forward(req, res, path, url.search);
    };
    answer().catch((e: unknown) => {
      const cause = (e as { cause?: { code?: string } }).cause?.code;
      if (!res.headersSent) json(res, 502, { path: '$', error: `the console's engine at ${o.conn.endpoint} did not answer: ${cause ?? (e as Error).message}`, code: 'unexpected' });
      else res.destroy();
    });
  });

  /** The port listened on (known once listening; no request arrives before). */
  let port = o.port;
  const upgraded = new Set<Socket>();
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    if (foreign(req, port, o.address) !== undefined) {
      socket.end('HTTP/1.1 403 Forbidden\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    upgraded.add(socket);
    socket.on('close', () => upgraded.delete(socket));
    socket.on('error', () => socket.destroy());
    const target = new URL(o.conn.endpoint + (req.url ?? '/'));
    const headers: Record<string, string> = { ...upstreamHeaders(req), connection: 'Upgrade', upgrade: headerText(req.headers.upgrade) ?? 'websocket' };
    const up = (target.protocol === 'https:' ? httpsRequest : httpRequest)(target, { method: req.method, headers });
    up.on('upgrade', (r: IncomingMessage, upSocket: Socket, upHead: Buffer) => {
      upgraded.add(upSocket);
      upSocket.on('close', () => (upgraded.delete(upSocket), socket.destroy()));
      upSocket.on('error', () => upSocket.destroy());
      socket.on('close', () => upSocket.destroy());
      const lines = [`HTTP/1.1 ${r.statusCode} ${r.statusMessage ?? ''}`];
      for (let i = 0; i < r.rawHeaders.length; i += 2) lines.push(`${r.rawHeaders[i]}: ${r.rawHeaders[i + 1]}`);
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (upHead.length > 0) socket.write(upHead);
      if (head.length > 0) upSocket.write(head);
      upSocket.pipe(socket);
      socket.pipe(upSocket);
    });
    up.on('response', (r: IncomingMessage) => {
      socket.end(`HTTP/1.1 ${r.statusCode} ${r.statusMessage ?? ''}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
      r.resume();
    });
    up.on('error', () => socket.end('HTTP/1.1 502 Bad Gateway\r\nconnection: close\r\ncontent-length: 0\r\n\r\n'));
    up.end();
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => reject(new CliError(`cannot listen on ${o.address}:${o.port}: ${e.code ?? e.message}`)));
    server.listen(o.port, o.address, () => resolve());
  });
  port = (server.address() as { port: number }).port;
  const host = o.address.includes(':') ? `[${o.address}]` : o.address;
  return {
    url: `http://${host}:${port}`,
    port,
    stop: async () => {
      for (const s of upgraded) s.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await queue;
    },
  };
}
