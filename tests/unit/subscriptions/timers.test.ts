import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Timers } from '../../../src/subscriptions/timers.js';

test('Timers counts live timers: fired and cleared ones stop counting', async () => {
  const t = new Timers();
  let fired = 0;
  t.after(5, () => fired++);
  const cleared = t.after(5, () => fired++);
  const every = t.every(5, () => {});
  assert.equal(t.size, 3);
  t.clear(cleared);
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(fired, 1);
  assert.equal(t.size, 1);
  t.clear(every);
  assert.equal(t.size, 0);
});
