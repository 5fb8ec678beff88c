/**
 * The built-in pg_dump: PostgreSQL 18's pg_dump compiled to WebAssembly (npm
 * `@electric-sql/pglite-tools`), for when no installed pg_dump is as new as the server (the
 * embedded Postgres ships no client tools). One worker thread per dump runs it
 * (`pgDumpWasmWorker.ts`); this thread holds its connection (`pgDumpBridge.ts`) and answers each of
 * its writes, so a dump never blocks the event loop. It dumps servers from 9.2 to 18.
 *
 * The wrapper always adds `-U postgres --inserts -j 1 -f <file>` after the caller's options: the
 * user is replaced by the engine's (the bridge rewrites the startup), and table data comes as
 * INSERT statements, one row each, instead of COPY (the same rows; a data dump restores the same).
 */
import { Worker } from 'node:worker_threads';
import { MessageChannel } from 'node:worker_threads';
import { PgDumpBridge, bridgeTarget } from './pgDumpBridge.js';
import type { PgDumpWorkerData, PgDumpWorkerResult } from './pgDumpWasmWorker.js';

/** The newest server major version the built-in pg_dump can dump. */
export const WASM_PG_DUMP_MAJOR = 18;

/** Runs the built-in pg_dump with `opts` against `url`; resolves with the dump, rejects with pg_dump's error text. */
export function runWasmPgDump(url: string, opts: string[], timeoutMs: number): Promise<string> {
  const signal = new SharedArrayBuffer(4);
  const state = new Int32Array(signal);
  const { port1, port2 } = new MessageChannel();
  const bridge = new PgDumpBridge(bridgeTarget(url));
  const data: PgDumpWorkerData = { signal, port: port2, args: opts };
  const moduleUrl = new URL('./pgDumpWasmWorker.js', import.meta.url);
  // The process's Node options, less one that only applies to its own entry (`--input-type`).
  const options = { workerData: data, transferList: [port2], execArgv: process.execArgv.filter((a) => !a.startsWith('--input-type')) };
  const worker = import.meta.url.endsWith('.ts')
    ? new Worker(
        `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((t) => { t.register(); return import(${JSON.stringify(moduleUrl.href.replace(/\.js$/, '.ts'))}); })`,
        { ...options, eval: true },
      )
    : new Worker(moduleUrl, options);
  const post = (answer: Uint8Array, code: number): void => {
    if (code === 1) port1.postMessage(answer);
    Atomics.store(state, 0, code);
    Atomics.notify(state, 0);
  };
  // One write at a time: libpq waits for each answer before it writes again.
  port1.on('message', (bytes: Uint8Array) => {
    bridge.answer(bytes).then((a) => post(a, 1), () => post(new Uint8Array(0), 1));
  });
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (error: string | undefined, sql?: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      bridge.close();
      port1.close();
      post(new Uint8Array(0), 2);
      void worker.terminate();
      if (error === undefined) resolve(sql!);
      else reject(new Error(error));
    };
    const timer = setTimeout(() => finish(`pg_dump did not finish within ${Math.round(timeoutMs / 1000)} s`), timeoutMs);
    worker.on('message', (r: PgDumpWorkerResult) => (r.ok ? finish(undefined, r.sql) : finish(r.error)));
    worker.on('error', (e) => finish(e.message));
    worker.on('exit', (code) => finish(`pg_dump's thread stopped (exit code ${code})`));
  });
}
