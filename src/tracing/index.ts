export { injectTraceHeaders, startTracing, traced, tracedRequest, tracedSync, tracesUrl, tracingOn, type SpanAttributes, type SpanNote, type TracingOptions } from './tracing.js';
