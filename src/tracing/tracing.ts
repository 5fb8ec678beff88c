/**
 * OpenTelemetry tracing of a request through its SQL and outbound calls — off by default, and then
 * free: nothing of OpenTelemetry is loaded (the SDK is imported only by `startTracing`), and each
 * seam below is one null check before calling straight through. On (`--otel-exporter-otlp-endpoint`,
 * or the standard `OTEL_EXPORTER_OTLP_ENDPOINT`), spans go to an OTLP/HTTP (JSON) collector through
 * a batch processor: the HTTP request (server span; a W3C `traceparent` from the client continues its
 * trace), the GraphQL parse / validate / plan step, each SQL round trip (`db.system`, the
 * parameterised `db.statement`, never values), and each webhook / remote call (client span, with
 * `traceparent` injected into its headers). The tracer is process-wide, as OpenTelemetry's is.
 */
import type * as OtelApi from '@opentelemetry/api';

interface Otel {
  api: typeof OtelApi;
  tracer: OtelApi.Tracer;
}

let otel: Otel | null = null;

export type SpanAttributes = Record<string, string | number | boolean | undefined>;
/** What a seam may add to its span once it knows more (status, operation kind). */
export interface SpanNote {
  set(key: string, value: string | number | boolean): void;
}

export interface TracingOptions {
  /** OTLP/HTTP base URL (`http://collector:4318`); spans go to `<endpoint>/v1/traces`. */
  endpoint: string;
  serviceName: string;
  serviceVersion: string;
}

/** True while tracing is on. Hot paths check it once (e.g. when a database handle is made). */
export function tracingOn(): boolean {
  return otel !== null;
}

/** The traces URL of an OTLP/HTTP endpoint (a URL already ending in /v1/traces is kept). */
export function tracesUrl(endpoint: string): string {
  const base = endpoint.replace(/\/+$/, '');
  return base.endsWith('/v1/traces') ? base : `${base}/v1/traces`;
}

/** Loads the SDK and starts exporting; resolves to the function that flushes and stops it. */
export async function startTracing(o: TracingOptions): Promise<() => Promise<void>> {
  const [api, sdk, hooks, core, resources, otlp] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/core'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/exporter-trace-otlp-http'),
  ]);
  const provider = new sdk.TracerProvider({
    resource: resources.resourceFromAttributes({ 'service.name': o.serviceName, 'service.version': o.serviceVersion }),
    spanProcessors: [new sdk.BatchSpanProcessor({ exporter: new otlp.OTLPTraceExporter({ url: tracesUrl(o.endpoint) }) })],
  });
  api.context.setGlobalContextManager(new hooks.AsyncLocalStorageContextManager().enable());
  api.propagation.setGlobalPropagator(new core.W3CTraceContextPropagator());
  api.trace.setGlobalTracerProvider(provider);
  otel = { api, tracer: provider.getTracer('svc-graphql-engine', o.serviceVersion) };
  return async () => {
    otel = null;
    await provider.shutdown();
    api.trace.disable();
    api.propagation.disable();
    api.context.disable();
  };
}

function clean(attrs: SpanAttributes): OtelApi.Attributes {
  const out: OtelApi.Attributes = {};
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined) out[k] = v;
  return out;
}

async function run<T>(t: Otel, name: string, kind: OtelApi.SpanKind, attrs: SpanAttributes, fn: (note: SpanNote) => Promise<T>, parent?: OtelApi.Context): Promise<T> {
  const start = (span: OtelApi.Span) => {
    const note: SpanNote = { set: (k, v) => void span.setAttribute(k, v) };
    return fn(note).then(
      (v) => {
        span.end();
        return v;
      },
      (e: unknown) => {
        span.recordException(e instanceof Error ? e : String(e));
        span.setStatus({ code: t.api.SpanStatusCode.ERROR, message: e instanceof Error ? e.message : String(e) });
        span.end();
        throw e;
      },
    );
  };
  const opts = { kind, attributes: clean(attrs) };
  return parent ? t.tracer.startActiveSpan(name, opts, parent, start) : t.tracer.startActiveSpan(name, opts, start);
}

/** An internal / database step: `fn` runs in its span (a child of the current one). */
export function traced<T>(name: string, attrs: SpanAttributes, fn: (note: SpanNote) => Promise<T>, kind: 'internal' | 'client' = 'internal'): Promise<T> {
  const t = otel;
  if (t === null) return fn(NO_NOTE);
  return run(t, name, kind === 'client' ? t.api.SpanKind.CLIENT : t.api.SpanKind.INTERNAL, attrs, fn);
}

/** A synchronous step (parse / validate / plan) in its span. */
export function tracedSync<T>(name: string, attrs: SpanAttributes, fn: (note: SpanNote) => T): T {
  const t = otel;
  if (t === null) return fn(NO_NOTE);
  return t.tracer.startActiveSpan(name, { attributes: clean(attrs) }, (span) => {
    try {
      return fn({ set: (k, v) => void span.setAttribute(k, v) });
    } catch (e) {
      span.setStatus({ code: t.api.SpanStatusCode.ERROR, message: e instanceof Error ? e.message : String(e) });
      throw e;
    } finally {
      span.end();
    }
  });
}

/** The server span of one HTTP request, continuing the client's trace when it sent `traceparent`. */
export function tracedRequest<T extends { status: number }>(headers: Record<string, string | string[] | undefined>, method: string, path: string, fn: () => Promise<T>): Promise<T> {
  const t = otel;
  if (t === null) return fn();
  const parent = t.api.propagation.extract(t.api.ROOT_CONTEXT, headers);
  return run(t, `${method} ${path}`, t.api.SpanKind.SERVER, { 'http.request.method': method, 'url.path': path, 'http.route': path }, async (note) => {
    const r = await fn();
    note.set('http.response.status_code', r.status);
    return r;
  }, parent);
}

/** Adds `traceparent` (and `tracestate`) of the current span to outbound headers; a no-op when off. */
export function injectTraceHeaders(headers: Record<string, string>): void {
  const t = otel;
  if (t !== null) t.api.propagation.inject(t.api.context.active(), headers);
}

const NO_NOTE: SpanNote = { set: () => undefined };
