/**
 * "Another client" of the schema benchmarks (benchSchema.mjs, benchSchemaSteps.mjs): a worker thread that,
 * between `start()` and `stop()`, sends an ordinary admin query every 20 ms (the next one 20 ms after the
 * last answer); `stop()` gives the slowest wait, the median and the count.
 */
import { Worker } from 'node:worker_threads';

const PROBE = `
const { parentPort, workerData } = require('node:worker_threads');
let on = false, times = [];
parentPort.on('message', async (m) => {
  if (m === 'stop') { on = false; return; }
  on = true; times = [];
  parentPort.postMessage('started');
  while (on) {
    const t0 = performance.now();
    const r = await fetch(workerData.url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-admin-secret': workerData.secret }, body: '{"query":"{ t0000(limit: 1) { id } }"}' });
    await r.text();
    times.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 20));
  }
  times.sort((a, b) => a - b);
  parentPort.postMessage({ max: times.at(-1) ?? 0, p50: times[Math.floor(times.length / 2)] ?? 0, n: times.length });
});`;

/** A probe of `url` (the engine's /v1/graphql) as admin with `secret`. */
export function stallProbe(url, secret) {
  const worker = new Worker(PROBE, { eval: true, workerData: { url, secret } });
  const next = () => new Promise((r) => worker.once('message', r));
  return {
    /** Resolves once the probe sends. */
    async start() {
      const started = next();
      worker.postMessage('start');
      await started;
    },
    /** Stops sending; resolves with `{max, p50, n}` (ms) of the waits since start(). */
    async stop() {
      const done = next();
      worker.postMessage('stop');
      return done;
    },
    terminate: () => worker.terminate(),
  };
}
