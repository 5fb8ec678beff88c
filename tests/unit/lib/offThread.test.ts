/**
 * offThreadRunner: the thread answers jobs, stays for the next one after a small job, and stops about a
 * second after a large one (its heap holds what the job made until it stops), then starts again on the
 * next job.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LARGE_JOB_BYTES, offThreadRunner } from '../../../src/lib/offThread.js';

const until = async (what: string, ok: () => boolean, ms: number): Promise<void> => {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) assert.fail(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

test('a thread stays after a small job and stops soon after a large one', async () => {
  const runner = offThreadRunner<string, number>(new URL('../../support/offThreadEchoWorker.js', import.meta.url));
  assert.equal(runner.running(), false);
  assert.equal(await runner.run('abc', 3), 3);
  assert.equal(runner.running(), true);
  // A small job keeps the thread for 30 s: still there well after the large-job pause.
  await new Promise((r) => setTimeout(r, 1_500));
  assert.equal(runner.running(), true, 'the thread stays after a small job');

  const big = 'x'.repeat(LARGE_JOB_BYTES);
  assert.equal(await runner.run(big, big.length), big.length);
  await until('the thread stops after a large job', () => !runner.running(), 10_000);

  // The next job starts a thread again; a small one after it keeps it.
  assert.equal(await runner.run('abcd', 4), 4);
  assert.equal(runner.running(), true);
  assert.deepEqual(runner.counts(), { answered: 3, failed: 0 });
});
