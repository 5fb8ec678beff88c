/**
 * Integration-test harness: a real engine over real HTTP on a fresh database.
 *
 *   const e = await startTestEngine({ adminSecret: 's' });
 *   await e.runSql('CREATE TABLE author (id serial PRIMARY KEY, name text)');
 *   const r = await e.graphql('{ author { id } }');
 *   await e.stop(); // stops the engine and drops its database
 *
 * Needs SVC_TEST_DATABASE_URL (set by `npm test`, scripts/test.mjs): a Postgres server on which
 * each engine gets its own `CREATE DATABASE t_<random>`. Requests made through these functions carry
 * the admin secret when one is configured, unless the given headers say otherwise.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { loadConfig, startEngine, type EngineHandle, type ServerConfig, type StartEngineOptions } from '../../src/index.js';
import { createLogger, silentLogger } from '../../src/server/index.js';

export interface HttpResult {
  status: number;
  headers: Headers;
  /** Parsed JSON when the body is JSON, else the text. */
  body: any;
  text: string;
}

export interface TestEngine {
  url: string;
  port: number;
  engine: EngineHandle;
  /** URL of this engine's own database. */
  databaseUrl: string;
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<HttpResult>;
  /** POST /v1/query. */
  query(body: unknown, headers?: Record<string, string>): Promise<HttpResult>;
  /** POST /v1/graphql. */
  graphql(query: string, variables?: Record<string, unknown>, headers?: Record<string, string>): Promise<HttpResult>;
  /** run_sql through /v1/query as admin; throws when the status is not 200. */
  runSql(sql: string): Promise<any>;
  stop(): Promise<void>;
}

export type TestEngineOptions = Partial<ServerConfig> & { env?: Record<string, string>; startOptions?: StartEngineOptions };

function maintenanceUrl(): string {
  const url = process.env.SVC_TEST_DATABASE_URL;
  if (!url) throw new Error('SVC_TEST_DATABASE_URL is not set: run integration tests with `npm test` (scripts/test.mjs)');
  return url;
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: maintenanceUrl() });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

function databaseUrlFor(name: string): string {
  const u = new URL(maintenanceUrl());
  u.pathname = '/' + name;
  return u.toString();
}

export async function startTestEngine(opts: TestEngineOptions = {}): Promise<TestEngine> {
  const { env = {}, startOptions = {}, ...overrides } = opts;
  // A given databaseUrl is used as it is (and not dropped); otherwise a fresh database per engine.
  const own = overrides.databaseUrl === undefined;
  const dbName = 't_' + randomBytes(6).toString('hex');
  if (own) await admin((c) => c.query(`CREATE DATABASE ${c.escapeIdentifier(dbName)}`));
  const databaseUrl = overrides.databaseUrl ?? databaseUrlFor(dbName);
  const base = loadConfig([], env);
  const config: ServerConfig = Object.freeze({
    ...base,
    pgConnections: 8,
    ...overrides,
    serverHost: overrides.serverHost ?? '127.0.0.1',
    serverPort: 0,
    databaseUrl,
  });
  const logger = process.env.SVC_TEST_LOG ? createLogger(config.logLevel, 2) : silentLogger();
  let engine: EngineHandle;
  try {
    engine = await startEngine(config, { logger, ...startOptions });
  } catch (err) {
    if (own) await dropDatabase(dbName);
    throw err;
  }

  const adminHeaders = (): Record<string, string> => (config.adminSecret !== undefined ? { 'x-svc-admin-secret': config.adminSecret } : {});
  const request = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpResult> => {
    const init: RequestInit = { method, headers: { ...adminHeaders(), ...headers } };
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
    }
    const res = await fetch(engine.url + path, init);
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json')) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  };

  let stopped: Promise<void> | undefined;
  return {
    url: engine.url,
    port: engine.port,
    engine,
    databaseUrl,
    request,
    query: (body, headers) => request('POST', '/v1/query', body, headers),
    graphql: (query, variables, headers) => request('POST', '/v1/graphql', { query, variables }, headers),
    async runSql(sql) {
      const r = await request('POST', '/v1/query', { type: 'run_sql', args: { sql } });
      if (r.status !== 200) throw new Error(`run_sql failed (${r.status}): ${r.text}`);
      return r.body;
    },
    stop: () =>
      (stopped ??= (async () => {
        await engine.stop();
        if (own) await dropDatabase(dbName);
      })()),
  };
}

async function dropDatabase(name: string): Promise<void> {
  await admin((c) => c.query(`DROP DATABASE IF EXISTS ${c.escapeIdentifier(name)} WITH (FORCE)`));
}

/** Runs `sql` (one or more statements) on its own connection to the database at `url`. */
export async function sqlOn(url: string, sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** A database of its own on the test server (`t_<prefix>_<random>`): its URL and how to drop it. */
export async function createTestDatabase(prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `t_${prefix}_${randomBytes(5).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${c.escapeIdentifier(name)}`));
  return { url: databaseUrlFor(name), drop: () => dropDatabase(name) };
}
