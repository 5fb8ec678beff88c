/**
 * EngineMetrics: one prom-client Registry per engine (several engines may share a process, as in
 * the tests). The hot path is `observeRequest` (requestMetrics.ts: plain counters, exposed at
 * scrape time). Gauges
 * (pool, WebSockets, cohorts, queues) are read only when scraped, through `registerGauge`.
 */
import client from 'prom-client';
import { RequestMetrics } from './requestMetrics.js';

type Labels = Record<string, string | number>;
/** A gauge's value(s) at scrape time: a number, or one value per label set. */
export type GaugeReading = number | ReadonlyArray<{ labels: Labels; value: number }>;

export class EngineMetrics {
  readonly registry = new client.Registry();
  private readonly requests: RequestMetrics;
  private readonly rebuilds: client.Counter<string>;

  constructor() {
    this.requests = new RequestMetrics(this.registry, 'svc');
    this.rebuilds = new client.Counter({ name: 'svc_schema_rebuilds_total', help: 'Schema caches built and installed', registers: [this.registry] });
  }

  /** Counts one finished request and its latency (seconds). */
  observeRequest(endpoint: string, kind: string, status: number, seconds: number): void {
    this.requests.observe(endpoint, kind, status, seconds);
  }

  schemaRebuilt(): void {
    this.rebuilds.inc();
  }

  /**
   * A gauge read when scraped (pool use, connections, queue depths): the delivery queues' gauges
   * (events, scheduled events, async actions) plug in here.
   */
  registerGauge(name: string, help: string, read: () => GaugeReading | Promise<GaugeReading>, labelNames: string[] = []): void {
    new client.Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        const v = await read();
        this.reset();
        if (typeof v === 'number') this.set(v);
        else for (const x of v) this.set(x.labels, x.value);
      },
    });
  }

  /**
   * A counter whose totals another stage keeps (e.g. a worker's delivered / failed counts since it
   * started), read when scraped: nothing is counted twice on the hot path.
   */
  registerCounterReading(name: string, help: string, read: () => ReadonlyArray<{ labels: Labels; value: number }>, labelNames: string[] = []): void {
    new client.Counter({
      name,
      help,
      labelNames,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const x of read()) if (x.value > 0) this.inc(x.labels, x.value);
      },
    });
  }

  /** A counter other stages increment (deliveries, failures); returns its `inc`. */
  registerCounter(name: string, help: string, labelNames: string[] = []): (labels?: Labels, by?: number) => void {
    const c = new client.Counter({ name, help, labelNames, registers: [this.registry] });
    return (labels, by = 1) => (labels ? c.inc(labels, by) : c.inc(by));
  }

  /** The Prometheus text exposition. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
