/**
 * Metrics (Prometheus, prom-client): the per-engine registry, request counters/histograms,
 * schema rebuilds, and `registerGauge` / `registerCounter` for the other stages.
 */
export { EngineMetrics } from './engineMetrics.js';
export type { GaugeReading } from './engineMetrics.js';
