/**
 * Runs a CPU-heavy job in a worker thread so that it does not stall the event loop, for jobs whose
 * inline version is the reference: `run()` resolves with the worker's answer, or `undefined` when
 * the worker could not answer (a result that does not clone, a thread that died), and the caller
 * then does the job inline. One thread per runner, started on first use, referenced only while a
 * job is pending, stopped after 30 s without work. `serveOffThread` is the worker side.
 *
 * The worker module is given as the URL of its TypeScript source's sibling `.js` (the built
 * engine); when the engine runs from TypeScript (under tsx, the tests) tsx is registered in the
 * thread and the `.ts` source is loaded.
 */
import { Worker, parentPort } from 'node:worker_threads';

const IDLE_MS = 30_000;

/**
 * Inputs from this size on are worth a thread: below it the job is a few milliseconds inline, less
 * than handing it over and back.
 */
export const OFF_THREAD_MIN_BYTES = 256 * 1024;

export interface OffThreadRunner<Job, Answer> {
  /** The worker's answer, or undefined when it could not give one. */
  run(job: Job): Promise<Answer | undefined>;
  /** Jobs answered by the worker, and jobs it could not answer. */
  counts(): { answered: number; failed: number };
}

type Reply<Answer> = { id: number; answer: Answer } | { id: number; failed: true };

/** A runner for the worker module at `moduleUrl` (`new URL('./x.js', import.meta.url)`). */
export function offThreadRunner<Job, Answer>(moduleUrl: URL): OffThreadRunner<Job, Answer> {
  let worker: Worker | undefined;
  let idle: NodeJS.Timeout | undefined;
  let nextId = 1;
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
      void w?.terminate();
    }, IDLE_MS).unref();
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
      if (worker === w) worker = undefined;
      failAll();
    });
    worker = w;
    return w;
  };

  return {
    run(job: Job): Promise<Answer | undefined> {
      const w = worker ?? start();
      if (idle) clearTimeout(idle);
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
