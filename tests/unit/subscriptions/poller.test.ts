import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Poller } from '../../../src/subscriptions/poller.js';
import { Timers } from '../../../src/subscriptions/timers.js';
import type { Db } from '../../../src/execution/index.js';
import type { SchemaCache } from '../../../src/metadata/index.js';

/** A Db that records how the poller runs its statement (the statement itself is covered by integration tests). */
function recordingDb(calls: Array<{ text: string; opts: unknown }>): Db {
  return {
    query: async (text: string, _values?: unknown[], opts?: unknown) => {
      calls.push({ text, opts });
      return { rows: [], fields: [], rowCount: 0, command: 'SELECT' };
    },
  } as unknown as Db;
}

for (const prepare of [true, false]) {
  test(`with change tracking off, each poll runs the multiplexed statement with prepare: ${prepare}`, async () => {
    const calls: Array<{ text: string; opts: unknown }> = [];
    let emptied = false;
    const db = recordingDb(calls);
    const poller = new Poller('SELECT multiplexed', {
      db, reads: () => db, timers: new Timers(), batchSize: 10, intervalMs: 5, prepare, watcher: undefined, key: undefined,
      watch: async () => ({ watch: false, reason: 'change tracking is off' }),
      errorBody: () => '{}', isStale: () => false, onEmpty: () => (emptied = true), onStale: () => {},
    }, {} as SchemaCache);
    const cohort = poller.cohort('["1"]', 0);
    // Two polls, however busy the machine: wait for them rather than for a fixed time.
    const deadline = Date.now() + 10_000;
    while (calls.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    poller.release(cohort);
    assert.ok(calls.length >= 2, `polled ${calls.length} times`);
    for (const c of calls) assert.deepEqual(c, { text: 'SELECT multiplexed', opts: { prepare } });
    assert.equal(emptied, true);
  });
}
