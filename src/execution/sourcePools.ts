/**
 * The connection pools of the Postgres sources beside `default` (Hasura v2's `sources[i]`): one pool
 * per source, made from its `connection_info` (a URL, `{from_env}`, or `connection_parameters`) with
 * its `pool_settings` (`max_connections`, default 50 as Hasura's; `idle_timeout` seconds,
 * `pool_timeout` seconds to wait for a free connection). A source whose connection settings change gets
 * a new pool (the old one closed); `retain` closes the pools of sources no longer in the metadata.
 * Connections open lazily; a pool reconnects by itself when its database comes back.
 *
 * A source's read replicas (`configuration.read_replicas`) are a `ReadReplicas` over its pool,
 * measured against its primary as `default`'s are: `follow(name, specs)` makes the set the given
 * one (kept, added, drained); `reads(name, after)` is where its GraphQL queries read. A pool
 * remade for a new connection drops its replicas until the next `follow` (they measured the old
 * primary).
 *
 * Whether each source answers is probed on a fresh connection (`probe`: a busy pool is never taken
 * for a dead server) by server/sourceWatch.ts, which marks a source away (`markAway`) and back.
 * While a source is away its pool is not handed out (`get`, `reads`, `pool` throw Hasura's
 * `database connection error`): its requests fail at once instead of waiting on a server that is
 * gone (behind PgBouncer a query would wait for the pooler's `query_wait_timeout`), and
 * `get_inconsistent_metadata` reports it (`outages()`).
 */
import pg from 'pg';
import { ApiError } from '../core/index.js';
import { createDb, type CreateDbOptions } from './createDb.js';
import { connectionTarget, describeConnectionFailure } from './connectionFailure.js';
import type { Db } from './db.js';
import { ReadReplicas, type ReadAfter, type ReadDb, type ReadReplicasOptions, type ReplicaSpec } from './readReplicas.js';

/** A source's connection as the metadata gives it (metadata/model's `SourceConnectionInfo`, structurally). */
export interface SourceConnection {
  database_url: string | { from_env: string } | { connection_parameters: { host: string; port?: number; username?: string; password?: string; database: string } };
  pool_settings?: { max_connections?: number; idle_timeout?: number; pool_timeout?: number; [key: string]: unknown };
  isolation_level?: 'read-committed' | 'repeatable-read' | 'serializable';
  use_prepared_statements?: boolean;
}

/** The URL of a source's connection; a missing environment variable is a `not-exists` error. */
export function sourceUrl(c: SourceConnection, env: NodeJS.ProcessEnv = process.env): string {
  const u = c.database_url;
  if (typeof u === 'string') return u;
  if ('from_env' in u) {
    const v = env[u.from_env];
    if (v === undefined || v === '') throw new ApiError('not-exists', `environment variable "${u.from_env}" not set`);
    return v;
  }
  const p = u.connection_parameters;
  const auth = p.username === undefined ? '' : `${encodeURIComponent(p.username)}${p.password === undefined ? '' : `:${encodeURIComponent(p.password)}`}@`;
  const host = p.host.includes(':') && !p.host.startsWith('[') ? `[${p.host}]` : p.host;
  return `postgres://${auth}${host}:${p.port ?? 5432}/${encodeURIComponent(p.database)}`;
}

/** A source's pool and the settings its statements run with. */
export interface SourcePool {
  readonly name: string;
  readonly db: Db;
  /** `use_prepared_statements` (Hasura's default for a source: false). */
  readonly prepare: boolean;
  readonly isolation: 'read committed' | 'repeatable read' | 'serializable';
  /** `host:port` and database, for messages (never the password). */
  readonly target: string;
}

interface Held {
  key: string;
  url: string;
  pool: SourcePool;
  /** The source's read replicas (none: undefined) and the specs they were made from. */
  replicas?: ReadReplicas;
  replicaKey?: string;
}

const replicaKeyOf = (specs: readonly ReplicaSpec[]): string => JSON.stringify(specs.map((s) => [s.url, s.poolSize]));

/** A source that did not answer its last probe: why, and since when (ms since the epoch). */
export interface SourceOutage {
  reason: string;
  since: number;
}

export class SourcePools {
  private readonly held = new Map<string, Held>();
  private readonly down = new Map<string, SourceOutage>();

  constructor(private readonly options: CreateDbOptions & {
    env?: NodeJS.ProcessEnv;
    /** The settings of a source's read replicas (lag, checks, log lines); without: a source's `read_replicas` are not followed. */
    replicaOptions?: (source: string) => ReadReplicasOptions;
  } = {}) {}

  /** The pool of source `name` for `connection` (made, or remade when the settings changed). */
  pool(name: string, connection: SourceConnection): SourcePool {
    const url = sourceUrl(connection, this.options.env);
    const key = JSON.stringify([url, connection.pool_settings ?? null, connection.isolation_level ?? null, connection.use_prepared_statements ?? null]);
    const have = this.held.get(name);
    if (have && have.key === key) return this.handOut(name, have).pool;
    if (have) {
      this.down.delete(name);
      void have.replicas?.stop().catch(() => undefined);
      void have.pool.db.close().catch(() => undefined);
    }
    const ps = connection.pool_settings ?? {};
    const db = createDb(url, ps.max_connections ?? 50, {
      ...this.options,
      ...(ps.idle_timeout !== undefined ? { idleTimeoutMs: ps.idle_timeout * 1000 } : {}),
      connectionTimeoutMs: (ps.pool_timeout ?? 10) * 1000,
    });
    const t = connectionTarget(url);
    const pool: SourcePool = {
      name,
      db,
      prepare: connection.use_prepared_statements === true,
      isolation: connection.isolation_level === 'serializable' ? 'serializable' : connection.isolation_level === 'repeatable-read' ? 'repeatable read' : 'read committed',
      target: `${t.address}/${t.database}`,
    };
    this.held.set(name, { key, url, pool });
    return pool;
  }

  /** The pool of a source already made, or undefined; a source away is an error. */
  get(name: string): SourcePool | undefined {
    const h = this.held.get(name);
    return h && this.handOut(name, h).pool;
  }

  /** `h`, unless its source is away: then the error a client gets for a database it cannot reach. */
  private handOut(name: string, h: Held): Held {
    const away = this.down.get(name);
    if (away) throw new ApiError('database-error', 'database connection error', { status: 500, internal: { error: away.reason } });
    return h;
  }

  /**
   * Makes `specs` the read replicas of source `name` (its pool must exist): the same ones are kept,
   * new ones are measured before this resolves, removed ones drained then closed; `[]` stops them.
   * Returns what changed (undefined: nothing, or no such pool).
   */
  async follow(name: string, specs: readonly ReplicaSpec[]): Promise<{ added: string[]; removed: string[]; size: number } | undefined> {
    const h = this.held.get(name);
    const make = this.options.replicaOptions;
    if (!h || !make) return undefined;
    const key = replicaKeyOf(specs);
    if ((h.replicaKey ?? '[]') === key) return undefined;
    h.replicaKey = key;
    if (specs.length === 0) {
      const old = h.replicas;
      h.replicas = undefined;
      const removed = old?.statuses().map((r) => r.name) ?? [];
      await old?.stop();
      return { added: [], removed, size: 0 };
    }
    if (!h.replicas) {
      const replicas = new ReadReplicas(h.pool.db, specs, { ...make(name), source: name });
      await replicas.start();
      // Remade or dropped meanwhile: these measured a pool no longer in use.
      if (this.held.get(name) !== h || h.replicaKey !== key) {
        await replicas.stop();
        return undefined;
      }
      h.replicas = replicas;
      return { added: replicas.statuses().map((r) => r.name), removed: [], size: replicas.size };
    }
    const { added, removed } = await h.replicas.update(specs);
    return { added, removed, size: h.replicas.size };
  }

  /** The read replicas of source `name` (undefined: none). */
  replicas(name: string): ReadReplicas | undefined {
    return this.held.get(name)?.replicas;
  }

  /** Whether any source has read replicas (the read-your-writes headers are read then). */
  get anyReplicas(): boolean {
    for (const h of this.held.values()) if (h.replicas) return true;
    return false;
  }

  /** Where a GraphQL read of source `name` runs: its read replicas (`after`: read-your-writes), else its pool; undefined: no such pool. */
  reads(name: string, after: ReadAfter): ReadDb | undefined {
    const h = this.held.get(name);
    if (!h) return undefined;
    this.handOut(name, h);
    return h.replicas ? h.replicas.reads(after) : h.pool.db;
  }

  /**
   * Connects to source `name` afresh and runs `SELECT 1` (at most `timeoutMs`): undefined when it
   * answered (or is no longer there), else why not (one line naming its address).
   */
  async probe(name: string, timeoutMs: number): Promise<string | undefined> {
    const h = this.held.get(name);
    if (!h) return undefined;
    const client = new pg.Client({ connectionString: h.url, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs });
    client.on('error', () => undefined);
    let reason: string | undefined;
    try {
      await client.connect();
      await client.query('SELECT 1');
    } catch (e) {
      reason = describeConnectionFailure(e, h.url);
    } finally {
      void client.end().catch(() => undefined);
    }
    return this.held.get(name) === h ? reason : undefined;
  }

  /** Source `name` is away (`reason`: the probe's line) or, with undefined, back. */
  markAway(name: string, reason: string | undefined): void {
    if (reason === undefined) this.down.delete(name);
    else if (this.held.has(name)) this.down.set(name, { reason, since: this.down.get(name)?.since ?? Date.now() });
  }

  /** The sources whose last probe failed (dropped ones left out). */
  outages(): ReadonlyMap<string, SourceOutage> {
    return this.down;
  }

  /** Why a connection failed, in one line naming the source's address (never the password). */
  describe(name: string, err: unknown): string {
    const h = this.held.get(name);
    return h ? describeConnectionFailure(err, h.url) : String((err as Error)?.message ?? err);
  }

  /** Closes the pools of sources not in `names` (dropped or renamed). */
  retain(names: ReadonlySet<string>): void {
    for (const [name, h] of this.held) {
      if (names.has(name)) continue;
      this.held.delete(name);
      this.down.delete(name);
      void h.replicas?.stop().catch(() => undefined);
      void h.pool.db.close().catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    const all = [...this.held.values()];
    this.held.clear();
    this.down.clear();
    await Promise.all(all.map(async (h) => {
      await h.replicas?.stop().catch(() => undefined);
      await h.pool.db.close().catch(() => undefined);
    }));
  }
}
