/**
 * Worker thread of the built-in pg_dump (`pgDumpWasm.ts`): runs the WebAssembly pg_dump of
 * `@electric-sql/pglite-tools` over a PGlite-shaped object whose `execProtocolRawStream` hands the
 * bytes libpq writes to the parent thread (which holds the real connection, `pgDumpBridge.ts`) and
 * blocks this thread on `Atomics.wait` until the server's answer is there. pg_dump is synchronous
 * C: it reads the answer as soon as its write returns, so the wait is what lets it run against a
 * real server; blocking here never blocks the engine's event loop.
 */
import { parentPort, receiveMessageOnPort, workerData, type MessagePort } from 'node:worker_threads';
import { pgDump } from '@electric-sql/pglite-tools/pg_dump';

/** What the parent gives the worker. */
export interface PgDumpWorkerData {
  /** [0]: 0 while waiting, 1 when an answer was posted on `port`, 2 when the dump is cancelled. */
  signal: SharedArrayBuffer;
  port: MessagePort;
  args: string[];
}
/** What the worker posts back when pg_dump ends. */
export type PgDumpWorkerResult = { ok: true; sql: string } | { ok: false; error: string };

const WAIT_MS = 5_000;
const { signal, port, args } = workerData as PgDumpWorkerData;
const state = new Int32Array(signal);

/** Sends what libpq wrote; returns when the parent has posted the server's answer. */
function roundTrip(bytes: Uint8Array): Uint8Array {
  Atomics.store(state, 0, 0);
  port.postMessage(bytes.slice());
  while (Atomics.load(state, 0) === 0) Atomics.wait(state, 0, 0, WAIT_MS);
  if (Atomics.load(state, 0) === 2) throw new Error('the dump was cancelled');
  const answer = receiveMessageOnPort(port);
  return answer ? (answer.message as Uint8Array) : new Uint8Array(0);
}

// The wrapper reads the session's search_path before the dump and restores it after: PGlite
// shares one session with its caller, the engine's connection is pg_dump's own, so there is
// nothing to restore.
const pg = {
  query: async () => ({ rows: [{ search_path: 'public' }] }),
  exec: async () => [],
  execProtocolRawStream(bytes: Uint8Array, { onRawData }: { onRawData: (b: Uint8Array) => void }) {
    const answer = roundTrip(bytes);
    if (answer.length > 0) onRawData(answer);
  },
};

// The WebAssembly program takes its name from argv[1] (in its messages: `pg_dump: error: …`).
process.argv = [process.argv[0], 'pg_dump'];
let result: PgDumpWorkerResult;
try {
  const file = await pgDump({ pg: pg as unknown as Parameters<typeof pgDump>[0]['pg'], args });
  result = { ok: true, sql: await file.text() };
} catch (e) {
  result = { ok: false, error: e instanceof Error ? e.message : String(e) };
}
port.close();
parentPort?.postMessage(result);
