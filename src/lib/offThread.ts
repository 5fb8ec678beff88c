/**
 * Runs a CPU-heavy job in a worker thread so that it does not stall the event loop, for jobs whose
 * inline version is the reference: `run()` resolves with the worker's answer, or `undefined` when
 * the worker could not answer (a result that does not clone, a thread that died), and the caller
 * then does the job inline. One thread per runner, started on first use, referenced only while a
 * job is pending, stopped after 30 s without work, or 1 s after a large job (`LARGE_JOB_BYTES`: the
 * thread's heap holds what the job made until it stops, ~60 MB for a 5,000-table document, and V8
 * collects a thread's idle heap late). `serveOffThread` is the worker side.
 *
 * The worker module is given as the URL of its TypeScript source's sibling `.js` (the built
 * engine); when the engine runs from TypeScript (under tsx, the tests) tsx is registered in the
 * thread and the `.ts` source is loaded.
 */
import { Worker, parentPort } from 'node:worker_threads';

const IDLE_MS = 30_000;
/** Jobs from this size on stop the thread soon after (see the module comment). */
export const LARGE_JOB_BYTES = 4 * 1024 * 1024;
const IDLE_AFTER_LARGE_MS = 1_000;

/**
 * Inputs from this size on are worth a thread: below it the job is a few milliseconds inline, less
 * than handing it over and back.
 */
export const OFF_THREAD_MIN_BYTES = 256 * 1024;

export interface OffThreadRunner<Job, Answer> {
  /** The worker's answer, or undefined when it could not give one. `bytes`: the job's size, about. */
  run(job: Job, bytes?: number): Promise<Answer | undefined>;
  /** Jobs answered by the worker, and jobs it could not answer. */
  counts(): { answered: number; failed: number };
  /** Whether the thread is started (not stopped since its last job). */
  running(): boolean;
}

type Reply<Answer> = { id: number; answer: Answer } | { id: number; failed: true };

/** A runner for the worker module at `moduleUrl` (`new URL('./x.js', import.meta.url)`). */
export function offThreadRunner<Job, Answer>(moduleUrl: URL): OffThreadRunner<Job, Answer> {
  let worker: Worker | undefined;
  let idle: NodeJS.Timeout | undefined;
  let nextId = 1;
  /** A large job ran since the thread started: it stops sooner when idle. */
  let large = false;
  const pending = new Map<number, (a: Answer | undefined) => void>();
  const counts = { answered: 0, failed: 0 };

  const settle = (id: number, answer: Answer | undefined): void => {
    const resolve = pending.get(id);
    if (!resolve) return;
    pending.delete(id);
    if (answer === undefined) counts.failed++;
    else counts.answered++;
    resolve(answer);
    if (pending.size > 0) return;
    worker?.unref();
    idle = setTimeout(() => {
      const w = worker;
      worker = undefined;
      large = false;
      void w?.terminate();
    }, large ? IDLE_AFTER_LARGE_MS : IDLE_MS).unref();
  };
  const failAll = (): void => {
    for (const id of [...pending.keys()]) settle(id, undefined);
  };

  const start = (): Worker => {
    // The main thread's stack (~1 MB), so that what overflows inline overflows in the thread too.
    const resourceLimits = { stackSizeMb: 1 };
    const ts = import.meta.url.endsWith('.ts');
    const w = ts
      ? new Worker(
          `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((t) => { t.register(); return import(${JSON.stringify(moduleUrl.href.replace(/\.js$/, '.ts'))}); })`,
          { eval: true, resourceLimits },
        )
      : new Worker(moduleUrl, { resourceLimits });
    w.on('message', (r: Reply<Answer>) => settle(r.id, 'failed' in r ? undefined : r.answer));
    w.on('messageerror', failAll);
    w.on('error', failAll);
    w.on('exit', () => {
      // A thread stopped when idle had no jobs; the pending ones may be its successor's.
      if (worker !== w) return;
      worker = undefined;
      large = false;
      failAll();
    });
    worker = w;
    return w;
  };

  return {
    run(job: Job, bytes = 0): Promise<Answer | undefined> {
      const w = worker ?? start();
      if (idle) clearTimeout(idle);
      if (bytes >= LARGE_JOB_BYTES) large = true;
      w.ref();
      const id = nextId++;
      return new Promise((resolve) => {
        pending.set(id, resolve);
        try {
          w.postMessage({ id, job });
        } catch {
          settle(id, undefined);
        }
      });
    },
    counts: () => ({ ...counts }),
    running: () => worker !== undefined,
  };
}

/** The worker side: answers each job with `handle(job)` (which must not throw). */
export function serveOffThread<Job, Answer>(handle: (job: Job) => Answer): void {
  parentPort?.on('message', ({ id, job }: { id: number; job: Job }) => {
    let reply: Reply<Answer>;
    try {
      reply = { id, answer: handle(job) };
    } catch {
      reply = { id, failed: true };
    }
    try {
      parentPort?.postMessage(reply);
    } catch {
      parentPort?.postMessage({ id, failed: true } satisfies Reply<Answer>);
    }
  });
}
