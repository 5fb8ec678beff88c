/**
 * restingPoll: the pause doubles after each tick that may rest, up to the maximum; a tick that may
 * not rest, or `soon()`, brings it back to the base pause; ticks never overlap.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { restingPoll } from '../../../src/lib/index.js';

test('the pause doubles while ticks may rest, up to the maximum, and soon() shortens it again', async () => {
  const at: number[] = [];
  let rest = true;
  let running = 0;
  let overlapped = false;
  const p = restingPoll({
    baseMs: 10,
    maxMs: 640,
    tick: async () => {
      running++;
      if (running > 1) overlapped = true;
      at.push(Date.now());
      await new Promise((r) => setTimeout(r, 1));
      running--;
      return rest;
    },
  });
  const waitTicks = async (n: number) => {
    while (at.length < n) await new Promise((r) => setTimeout(r, 2));
  };
  await waitTicks(8);
  const gaps = at.slice(1).map((t, i) => t - at[i]!);
  // 20, 40, …, 640, 640 after the first: each at least the doubled pause, then the maximum.
  [20, 40, 80, 160, 320, 640, 640].forEach((g, i) => assert.ok(gaps[i]! >= g - 1, `gaps ${gaps}`));
  // soon(): the next tick comes within the base pause, not the resting one.
  const before = at.length;
  const t0 = Date.now();
  p.soon();
  await waitTicks(before + 1);
  assert.ok(at[before]! - t0 < 320, `after soon() the tick came ${at[before]! - t0} ms later (resting: 640)`);
  // A tick that may not rest keeps the base pause.
  rest = false;
  await waitTicks(at.length + 3);
  const last = at.slice(-3);
  assert.ok(last[2]! - last[1]! < 320, `base pause kept: ${last[2]! - last[1]!} ms`);
  p.stop();
  const stoppedAt = at.length;
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(at.length, stoppedAt, 'no tick after stop()');
  assert.equal(overlapped, false);
});
