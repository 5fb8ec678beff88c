/**
 * The request counter and latency histogram, kept in plain arrays on the hot path (one Map lookup
 * per request, a bucket scan, a few additions: ~tens of ns, where prom-client's labelled children
 * hash their label object on every call) and turned into prom-client's exposition shape only when
 * scraped: two metric objects registered in the engine's Registry (`get()` as prom-client's own).
 */
import type { Registry } from 'prom-client';

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface Series {
  labels: { endpoint: string; kind: string; status: string };
  count: number;
  sum: number;
  /** Per-bucket (non-cumulative) counts; the last slot is +Inf. */
  buckets: Float64Array;
}

type Value = { value: number; labels: Record<string, string | number>; metricName?: string };

export class RequestMetrics {
  private readonly series = new Map<string, Series>();
  /** endpoint → kind → status → series: the hot path's lookup, allocating nothing. */
  private readonly index = new Map<string, Map<string, Map<number, Series>>>();

  constructor(registry: Registry, prefix: string) {
    const series = this.series;
    const requests = {
      name: `${prefix}_http_requests_total`,
      help: 'HTTP requests by endpoint, operation kind and status code',
      type: 'counter',
      get: () => ({ name: requests.name, help: requests.help, type: 'counter', aggregator: 'sum', values: [...series.values()].map((s) => ({ value: s.count, labels: s.labels })) }),
    };
    const latency = {
      name: `${prefix}_http_request_duration_seconds`,
      help: 'HTTP request latency in seconds by endpoint, operation kind and status code',
      type: 'histogram',
      get: () => {
        const values: Value[] = [];
        for (const s of series.values()) {
          let acc = 0;
          BUCKETS.forEach((le, i) => {
            acc += s.buckets[i]!;
            values.push({ value: acc, labels: { ...s.labels, le }, metricName: `${latency.name}_bucket` });
          });
          values.push({ value: s.count, labels: { ...s.labels, le: '+Inf' }, metricName: `${latency.name}_bucket` });
          values.push({ value: s.sum, labels: s.labels, metricName: `${latency.name}_sum` });
          values.push({ value: s.count, labels: s.labels, metricName: `${latency.name}_count` });
        }
        return { name: latency.name, help: latency.help, type: 'histogram', aggregator: 'sum', values };
      },
    };
    // prom-client's Registry takes any object with name/help/type/get (its own metrics are such objects).
    registry.registerMetric(requests as never);
    registry.registerMetric(latency as never);
  }

  observe(endpoint: string, kind: string, status: number, seconds: number): void {
    let s = this.index.get(endpoint)?.get(kind)?.get(status);
    if (s === undefined) s = this.create(endpoint, kind, status);
    s.count++;
    s.sum += seconds;
    let i = 0;
    while (i < BUCKETS.length && seconds > BUCKETS[i]!) i++;
    s.buckets[i]!++;
  }

  private create(endpoint: string, kind: string, status: number): Series {
    const s: Series = { labels: { endpoint, kind, status: String(status) }, count: 0, sum: 0, buckets: new Float64Array(BUCKETS.length + 1) };
    this.series.set(`${endpoint} ${kind} ${status}`, s);
    let byKind = this.index.get(endpoint);
    if (!byKind) this.index.set(endpoint, (byKind = new Map()));
    let byStatus = byKind.get(kind);
    if (!byStatus) byKind.set(kind, (byStatus = new Map()));
    byStatus.set(status, s);
    return s;
  }
}
