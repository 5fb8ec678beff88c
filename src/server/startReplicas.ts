/**
 * The read replicas of an engine: the URLs of `--read-replica-urls`, else the `read_replicas` of the
 * stored metadata (Hasura v2's source setting: `database_url` as a string or `{from_env}`,
 * `pool_settings.max_connections`). At start each is checked (a standby of this database,
 * checkReadReplicas) before the engine listens, then measured in the background. Its state changes
 * are logged, and its reads, fallbacks to the primary, lag and usability are metrics.
 *
 * Without the flag, a change of the metadata's `read_replicas` applies while the engine runs
 * (`ReplicaSetup`): a metadata operation that changes them checks the new ones inside its
 * transaction (`check`: one that does not answer, is not a standby of this database, or names an
 * unset variable refuses the operation, which then changes nothing); every engine, the one that
 * made the change and the others through the schema sync, then follows the installed metadata
 * (`follow`): new pools opened and measured, removed ones drained then closed. With no replica
 * left, `ctx.replicas` is unset again, so reads take the single-server path.
 */
import type { Logger } from 'pino';
import type { ServerConfig } from '../config/index.js';
import { ApiError } from '../core/index.js';
import type { EngineContext } from '../appState.js';
import { checkReadReplicas, DatabaseConnectionError, ReadReplicas, replicaName, type Db, type ReadReplicasOptions, type ReplicaSpec } from '../execution/index.js';
import type { Metadata } from '../metadata/index.js';
import type { EngineMetrics } from '../metrics/index.js';

/** The metadata's replicas (env references resolved now; an unset variable is an error naming the replica). */
function metadataSpecs(config: ServerConfig, metadata: Metadata, env: NodeJS.ProcessEnv): ReplicaSpec[] {
  return (metadata.read_replicas ?? []).map((r, i) => {
    let url = r.database_url;
    if (typeof url !== 'string') {
      const value = env[url.from_env];
      if (value === undefined || value === '') throw new DatabaseConnectionError(`read replica ${i + 1} of the metadata: environment variable ${url.from_env} is not set`);
      url = value;
    }
    return { url, poolSize: r.pool_settings?.max_connections ?? config.readReplicaPoolSize };
  });
}

/** The replicas to use: the flag's URLs, else the metadata's (env references resolved now). */
export function replicaSpecs(config: ServerConfig, metadata: Metadata, env: NodeJS.ProcessEnv = process.env): ReplicaSpec[] {
  if (config.readReplicaUrls) return config.readReplicaUrls.map((url) => ({ url, poolSize: config.readReplicaPoolSize }));
  return metadataSpecs(config, metadata, env);
}

const keyOf = (specs: readonly ReplicaSpec[]): string => JSON.stringify(specs.map((s) => [s.url, s.poolSize]));

/** The replicas' settings and their log lines. */
function replicaOptions(config: ServerConfig, logger: Logger): ReadReplicasOptions {
  const type = 'read-replica';
  return {
    maxLagMs: config.readReplicaMaxLagMs,
    checkIntervalMs: config.readReplicaCheckIntervalMs,
    waitForLsnMs: config.readReplicaWaitForLsnMs,
    drainMs: config.shutdownTimeoutMs,
    onChange: (e) => {
      if (e.replica === undefined) {
        if (e.usable) logger.info({ type }, 'reads go to the read replicas again');
        else logger.warn({ type }, 'no read replica is usable: reads go to the primary');
      } else if (e.usable) logger.info({ type, replica: e.replica }, e.again ? `read replica ${e.replica} is usable again` : `read replica ${e.replica} is usable: reads go to it`);
      else logger.warn({ type, replica: e.replica, reason: e.reason }, `read replica ${e.replica} gets no reads: ${e.reason}`);
    },
  };
}

/** An engine's read replicas over its life: the start, metadata changes, the stop. */
export class ReplicaSetup {
  private instance: ReadReplicas | undefined;
  private applied: string;
  private chain: Promise<void> = Promise.resolve();
  private ctx: EngineContext | undefined;
  private metrics: EngineMetrics | undefined;

  private constructor(
    private readonly config: ServerConfig, private readonly primaryUrl: string, private readonly primary: Db, private readonly logger: Logger, specs: ReplicaSpec[],
  ) {
    this.applied = keyOf(specs);
  }

  /** Checks and starts the replicas configured at start (refusing the start with one line naming a bad one). */
  static async start(config: ServerConfig, metadata: Metadata, primaryUrl: string, primary: Db, logger: Logger): Promise<ReplicaSetup> {
    const specs = replicaSpecs(config, metadata);
    const setup = new ReplicaSetup(config, primaryUrl, primary, logger, specs);
    if (specs.length === 0) return setup;
    await checkReadReplicas(primaryUrl, specs.map((s) => s.url));
    const replicas = new ReadReplicas(primary, specs, replicaOptions(config, logger));
    try {
      await replicas.start();
    } catch (e) {
      await replicas.stop();
      throw e;
    }
    setup.instance = replicas;
    logger.info({ type: 'startup', kind: 'read-replicas', replicas: replicas.statuses() }, `reading from ${specs.length} read replica(s), at most ${config.readReplicaMaxLagMs / 1000} s behind`);
    return setup;
  }

  /** The replicas in use (undefined: none). */
  get replicas(): ReadReplicas | undefined {
    return this.instance !== undefined && this.instance.size > 0 ? this.instance : undefined;
  }

  /** Wires the engine: its `replicas`, and the metrics once there are replicas. */
  attach(ctx: EngineContext): void {
    this.ctx = ctx;
    this.metrics = ctx.metrics;
    this.expose();
  }

  /** Whether the metadata's `read_replicas` are followed (not with --read-replica-urls). */
  get followsMetadata(): boolean {
    return this.config.readReplicaUrls === undefined;
  }

  /**
   * Inside a metadata operation's transaction: the replicas `md` adds must be standbys of this
   * database that answer, or the operation is refused (`invalid-configuration`, nothing applied).
   */
  async check(md: Metadata): Promise<void> {
    if (!this.followsMetadata) return;
    if (JSON.stringify(md.read_replicas ?? []) === JSON.stringify(this.ctx?.state.current.metadata.read_replicas ?? [])) return;
    let specs: ReplicaSpec[];
    try {
      specs = metadataSpecs(this.config, md, process.env);
    } catch (e) {
      throw new ApiError('invalid-configuration', `Inconsistent object: ${(e as Error).message}`, { path: '$.args' });
    }
    if (keyOf(specs) === this.applied) return;
    const inUse = new Set(this.instance?.statuses().map((s) => s.name));
    const fresh = specs.filter((s) => !inUse.has(replicaName(s.url)));
    try {
      await checkReadReplicas(this.primaryUrl, fresh.map((s) => s.url), 5000);
    } catch (e) {
      throw new ApiError('invalid-configuration', `Inconsistent object: ${(e as Error).message}`, { path: '$.args' });
    }
  }

  /** After a schema cache was installed (here or by the schema sync): applies its `read_replicas` when they changed. */
  follow(md: Metadata): void {
    if (!this.followsMetadata) return;
    this.chain = this.chain.then(() => this.apply(md)).catch((e: unknown) => {
      this.logger.error({ type: 'read-replica', err: e }, `applying the metadata's read replicas failed: ${(e as Error).message}`);
    });
  }

  /** Resolves once every change followed so far is applied. */
  settled(): Promise<void> {
    return this.chain;
  }

  async stop(): Promise<void> {
    await this.chain;
    await this.instance?.stop();
  }

  private async apply(md: Metadata): Promise<void> {
    const specs = metadataSpecs(this.config, md, process.env);
    const key = keyOf(specs);
    if (key === this.applied) return;
    const type = 'read-replica';
    if (specs.length > 0) await checkReadReplicas(this.primaryUrl, specs.map((s) => s.url), 5000);
    if (this.instance === undefined) {
      const replicas = new ReadReplicas(this.primary, specs, replicaOptions(this.config, this.logger));
      await replicas.start();
      this.instance = replicas;
      this.applied = key;
      this.expose();
      this.logger.info({ type, added: replicas.statuses().map((s) => s.name) }, `read replicas of the metadata: reading from ${specs.length} read replica(s)`);
      return;
    }
    const replicas = this.instance;
    const { added, removed, drained } = await replicas.update(specs);
    this.applied = key;
    this.expose();
    this.logger.info({ type, added, removed }, `read replicas of the metadata changed: ${replicas.size} in use (${added.length} added, ${removed.length} removed)`);
    if (removed.length > 0) {
      void drained.then(() => this.logger.info({ type, removed }, `removed read replica(s) drained and closed: ${removed.join(', ')}`));
    }
  }

  /** Sets or unsets `ctx.replicas` (no replica: the single-server path), and registers the metrics once. */
  private expose(): void {
    const ctx = this.ctx;
    if (!ctx) return;
    // Assigned, never deleted: a deleted property would turn ctx into a slow dictionary object.
    ctx.replicas = this.replicas;
    if (this.instance && this.metrics) {
      replicaMetrics(this.metrics, this.instance);
      this.metrics = undefined;
    }
  }
}

/** Metrics of the replicas, read at scrape time. */
function replicaMetrics(m: EngineMetrics, replicas: ReadReplicas): void {
  m.registerGauge('svc_read_replica_lag_seconds', 'Lag of each read replica at its last check', () =>
    replicas.statuses().map((s) => ({ labels: { replica: s.name }, value: (s.lagMs ?? Number.NaN) / 1000 })), ['replica']);
  m.registerGauge('svc_read_replica_usable', 'Whether each read replica gets reads (1) or not (0)', () =>
    replicas.statuses().map((s) => ({ labels: { replica: s.name }, value: s.usable ? 1 : 0 })), ['replica']);
  m.registerCounterReading('svc_read_replica_reads_total', 'GraphQL reads served by each read replica', () =>
    replicas.statuses().map((s) => ({ labels: { replica: s.name }, value: s.reads })), ['replica']);
  m.registerCounterReading('svc_read_replica_primary_reads_total', 'GraphQL reads served by the primary while replicas are configured, by reason', () =>
    Object.entries(replicas.fallbacks).map(([reason, value]) => ({ labels: { reason }, value })), ['reason']);
  m.registerCounterReading('svc_read_replica_retries_total', 'Reads run again elsewhere after their replica failed mid-request', () => [{ labels: {}, value: replicas.retries }]);
  m.registerCounterReading('svc_read_replica_replay_questions_total', 'Round trips asking a replica whether it has replayed a read-your-writes commit', () => [{ labels: {}, value: replicas.replayQuestions }]);
}
