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
 *
 * The sources beside `default` have their own `configuration.read_replicas` (followed whether or
 * not the flag is given): checked the same way against the source's primary when a metadata
 * operation changes them (or the source's connection), then followed by every engine on install
 * (`SourcePools.follow`: kept, added, drained). At start a source's replicas are only measured: one
 * that does not answer gets no reads (the source's primary serves them), the engine starts.
 */
import type { Logger } from 'pino';
import type { ServerConfig } from '../config/index.js';
import { ApiError } from '../core/index.js';
import type { EngineContext } from '../appState.js';
import { checkReadReplicas, DatabaseConnectionError, ReadReplicas, replicaName, sourceUrl, type Db, type ReadReplicasOptions, type ReplicaSpec } from '../execution/index.js';
import type { Metadata, ReadReplicaMetadata, SourceMetadata } from '../metadata/index.js';
import type { EngineMetrics } from '../metrics/index.js';

/** The metadata's replicas (env references resolved now; an unset variable is an error naming the replica). */
function metadataSpecs(config: ServerConfig, metadata: Metadata, env: NodeJS.ProcessEnv): ReplicaSpec[] {
  return listSpecs(config, metadata.read_replicas, env, 'the metadata');
}

/** A `read_replicas` list as specs (`of`: whose, for the message naming an unset variable). */
function listSpecs(config: ServerConfig, list: readonly ReadReplicaMetadata[] | undefined, env: NodeJS.ProcessEnv, of: string): ReplicaSpec[] {
  return (list ?? []).map((r, i) => {
    let url = r.database_url;
    if (typeof url !== 'string') {
      const value = env[url.from_env];
      if (value === undefined || value === '') throw new DatabaseConnectionError(`read replica ${i + 1} of ${of}: environment variable ${url.from_env} is not set`);
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

/** The replicas' settings and their log lines (`source`: a source beside `default`, named in each line). */
export function replicaOptions(config: ServerConfig, logger: Logger, source?: string): ReadReplicasOptions {
  const type = 'read-replica';
  if (source !== undefined) {
    const of = `source ${JSON.stringify(source)}`;
    return {
      ...replicaOptions(config, logger),
      onChange: (e) => {
        if (e.replica === undefined) {
          if (e.usable) logger.info({ type, source }, `${of}: reads go to its read replicas again`);
          else logger.warn({ type, source }, `${of}: no read replica is usable: reads go to its primary`);
        } else if (e.usable) logger.info({ type, source, replica: e.replica }, `${of}: read replica ${e.replica} is usable${e.again ? ' again' : ': reads go to it'}`);
        else logger.warn({ type, source, replica: e.replica, reason: e.reason }, `${of}: read replica ${e.replica} gets no reads: ${e.reason}`);
      },
    };
  }
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
    // The sources' replicas of the first build (`settled()` resolves once they are measured).
    this.follow(ctx.state.current.metadata);
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
    await this.checkSources(md);
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

  /**
   * The sources' part of `check`: each source whose replicas (or connection) `md` changes must have
   * replicas that answer and are standbys of its database (`invalid-configuration` otherwise).
   */
  private async checkSources(md: Metadata): Promise<void> {
    const before = new Map((this.ctx?.state.current.metadata.sources ?? []).map((s) => [s.name, s]));
    for (const s of md.sources ?? []) {
      const list = s.configuration.read_replicas ?? [];
      if (list.length === 0) continue;
      const was = before.get(s.name);
      if (was && JSON.stringify(was.configuration) === JSON.stringify(s.configuration)) continue;
      const refuse = (message: string) => new ApiError('invalid-configuration', `Inconsistent object: source ${JSON.stringify(s.name)}: ${message}`, { path: '$.args' });
      let specs: ReplicaSpec[];
      let primary: string;
      try {
        specs = listSpecs(this.config, list, process.env, `source ${JSON.stringify(s.name)}`);
        primary = sourceUrl(s.configuration.connection_info);
      } catch (e) {
        throw refuse((e as Error).message);
      }
      try {
        await checkReadReplicas(primary, specs.map((r) => r.url), 5000);
      } catch (e) {
        throw refuse((e as Error).message);
      }
    }
  }

  /** After a schema cache was installed (here or by the schema sync): applies its `read_replicas` (and each source's) when they changed. */
  follow(md: Metadata): void {
    this.chain = this.chain.then(async () => {
      if (this.followsMetadata) await this.apply(md);
    }).catch((e: unknown) => {
      this.logger.error({ type: 'read-replica', err: e }, `applying the metadata's read replicas failed: ${(e as Error).message}`);
    }).then(() => this.applySources(md.sources ?? []));
  }

  /** Each source's read replicas as `sources` give them (one whose variable is unset: none, with a line saying so). */
  private async applySources(sources: readonly SourceMetadata[]): Promise<void> {
    const pools = this.ctx?.sources;
    if (!pools) return;
    const type = 'read-replica';
    for (const s of sources) {
      let specs: ReplicaSpec[];
      try {
        specs = listSpecs(this.config, s.configuration.read_replicas, process.env, `source ${JSON.stringify(s.name)}`);
      } catch (e) {
        this.logger.error({ type, source: s.name }, `source ${JSON.stringify(s.name)}: its read replicas are not used: ${(e as Error).message}`);
        specs = [];
      }
      try {
        const changed = await pools.follow(s.name, specs);
        if (changed) {
          this.logger.info({ type, source: s.name, added: changed.added, removed: changed.removed }, `source ${JSON.stringify(s.name)}: ${changed.size} read replica(s) in use (${changed.added.length} added, ${changed.removed.length} removed)`);
        }
      } catch (e) {
        this.logger.error({ type, source: s.name, err: e }, `source ${JSON.stringify(s.name)}: applying its read replicas failed: ${(e as Error).message}`);
      }
    }
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
