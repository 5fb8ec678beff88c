/**
 * EngineMetrics: one prom-client Registry per engine (several engines may share a process, as in
 * the tests). The hot path is `observeRequest`: one Map lookup for the label set's pre-bound
 * counter and histogram children, then two increments — no label hashing per request. Gauges
 * (pool, WebSockets, cohorts, queues) are read only when scraped, through `registerGauge`.
 */
import client from 'prom-client';

type Labels = Record<string, string | number>;
/** A gauge's value(s) at scrape time: a number, or one value per label set. */
export type GaugeReading = number | ReadonlyArray<{ labels: Labels; value: number }>;

const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface RequestChildren {
  count: client.Counter.Internal;
  latency: client.Histogram.Internal<string>;
}

export class EngineMetrics {
  readonly registry = new client.Registry();
  private readonly requests: client.Counter<string>;
  private readonly latency: client.Histogram<string>;
  private readonly rebuilds: client.Counter<string>;
  private readonly children = new Map<string, RequestChildren>();

  constructor() {
    this.requests = new client.Counter({
      name: 'svc_http_requests_total',
      help: 'HTTP requests by endpoint, operation kind and status code',
      labelNames: ['endpoint', 'kind', 'status'],
      registers: [this.registry],
    });
    this.latency = new client.Histogram({
      name: 'svc_http_request_duration_seconds',
      help: 'HTTP request latency by endpoint, operation kind and status code',
      labelNames: ['endpoint', 'kind', 'status'],
      buckets: LATENCY_BUCKETS,
      registers: [this.registry],
    });
    this.rebuilds = new client.Counter({ name: 'svc_schema_rebuilds_total', help: 'Schema caches built and installed', registers: [this.registry] });
  }

  /** Counts one finished request and its latency (seconds). */
  observeRequest(endpoint: string, kind: string, status: number, seconds: number): void {
    const key = `${endpoint} ${kind} ${status}`;
    let c = this.children.get(key);
    if (c === undefined) {
      const labels = { endpoint, kind, status: String(status) };
      c = { count: this.requests.labels(labels), latency: this.latency.labels(labels) };
      this.children.set(key, c);
    }
    c.count.inc();
    c.latency.observe(seconds);
  }

  schemaRebuilt(): void {
    this.rebuilds.inc();
  }

  /**
   * A gauge read when scraped (pool use, connections, queue depths). The lead's queue gauges for
   * events, scheduled events and async actions plug in here.
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
