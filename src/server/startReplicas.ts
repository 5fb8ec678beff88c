/**
 * The read replicas of an engine at start: the URLs of `--read-replica-urls`, else the
 * `read_replicas` of the stored metadata (Hasura v2's source setting: `database_url` as a string
 * or `{from_env}`, `pool_settings.max_connections`). Each is checked (a standby of this database,
 * checkReadReplicas) before the engine listens; then measured in the background. Its state changes
 * are logged, and its reads, fallbacks to the primary, lag and usability are metrics.
 */
import type { Logger } from 'pino';
import type { ServerConfig } from '../config/index.js';
import { checkReadReplicas, DatabaseConnectionError, ReadReplicas, type Db, type ReplicaSpec } from '../execution/index.js';
import type { Metadata } from '../metadata/index.js';
import type { EngineMetrics } from '../metrics/index.js';

/** The replicas to use: the flag's URLs, else the metadata's (env references resolved now). */
export function replicaSpecs(config: ServerConfig, metadata: Metadata, env: NodeJS.ProcessEnv = process.env): ReplicaSpec[] {
  if (config.readReplicaUrls) return config.readReplicaUrls.map((url) => ({ url, poolSize: config.readReplicaPoolSize }));
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

/** Checks and starts the replicas (undefined when none are configured). */
export async function startReplicas(config: ServerConfig, metadata: Metadata, primaryUrl: string, primary: Db, logger: Logger): Promise<ReadReplicas | undefined> {
  const specs = replicaSpecs(config, metadata);
  if (specs.length === 0) return undefined;
  await checkReadReplicas(primaryUrl, specs.map((s) => s.url));
  const replicas = new ReadReplicas(primary, specs, {
    maxLagMs: config.readReplicaMaxLagMs,
    checkIntervalMs: config.readReplicaCheckIntervalMs,
    onChange: (e) => {
      const type = 'read-replica';
      if (e.replica === undefined) {
        if (e.usable) logger.info({ type }, 'reads go to the read replicas again');
        else logger.warn({ type }, 'no read replica is usable: reads go to the primary');
      } else if (e.usable) logger.info({ type, replica: e.replica }, `read replica ${e.replica} is usable again`);
      else logger.warn({ type, replica: e.replica, reason: e.reason }, `read replica ${e.replica} gets no reads: ${e.reason}`);
    },
  });
  try {
    await replicas.start();
  } catch (e) {
    await replicas.stop();
    throw e;
  }
  logger.info({ type: 'startup', kind: 'read-replicas', replicas: replicas.statuses() }, `reading from ${specs.length} read replica(s), at most ${config.readReplicaMaxLagMs / 1000} s behind`);
  return replicas;
}

/** Metrics of the replicas, read at scrape time. */
export function replicaMetrics(m: EngineMetrics, replicas: ReadReplicas): void {
  m.registerGauge('svc_read_replica_lag_seconds', 'Lag of each read replica at its last check', () =>
    replicas.statuses().map((s) => ({ labels: { replica: s.name }, value: (s.lagMs ?? Number.NaN) / 1000 })), ['replica']);
  m.registerGauge('svc_read_replica_usable', 'Whether each read replica gets reads (1) or not (0)', () =>
    replicas.statuses().map((s) => ({ labels: { replica: s.name }, value: s.usable ? 1 : 0 })), ['replica']);
  m.registerCounterReading('svc_read_replica_reads_total', 'GraphQL reads served by each read replica', () =>
    replicas.statuses().map((s) => ({ labels: { replica: s.name }, value: s.reads })), ['replica']);
  m.registerCounterReading('svc_read_replica_primary_reads_total', 'GraphQL reads served by the primary while replicas are configured, by reason', () =>
    Object.entries(replicas.fallbacks).map(([reason, value]) => ({ labels: { reason }, value })), ['reason']);
  m.registerCounterReading('svc_read_replica_retries_total', 'Reads run again elsewhere after their replica failed mid-request', () => [{ labels: {}, value: replicas.retries }]);
}
