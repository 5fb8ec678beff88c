/**
 * The placement rules of execution/sharedConnections.ts over a scripted pool: fresh connections
 * first, pipelining only when none is free, depth and stall limits, first come first served for
 * units that wait, fairness to other callers of the pool, the one-tick linger, `accepts`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SharedConnections, type LanePool } from '../../../src/execution/sharedConnections.js';

interface Conn {
  id: number;
  broken: boolean;
}

/** A pool of `size` connections; `others` stands for callers outside the module waiting in its queue. */
function scriptedPool(size: number) {
  let next = 1;
  const idle: Conn[] = [];
  let open = 0;
  const queue: Array<(c: Conn) => void> = [];
  const state = { others: 0, released: [] as number[], checkouts: 0 };
  const pool: LanePool<Conn> = {
    checkout() {
      state.checkouts++;
      if (idle.length > 0) return Promise.resolve(idle.pop()!);
      if (open < size) {
        open++;
        return Promise.resolve({ id: next++, broken: false });
      }
      return new Promise((resolve) => queue.push(resolve));
    },
    release(c) {
      state.released.push(c.id);
      if (c.broken) {
        // destroyed, as pg-pool does with a connection released as broken
        open--;
        const waiter = queue.shift();
        if (waiter) {
          open++;
          waiter({ id: next++, broken: false });
        }
        return;
      }
      const waiter = queue.shift();
      if (waiter) waiter(c);
      else idle.push(c);
    },
    available: () => idle.length + size - open - queue.length,
    waiting: () => queue.length + state.others,
    usable: (c) => !c.broken,
  };
  return { pool, state, idle, queue };
}

/** A unit whose answer the test gives by hand; records the connection it was written on. */
function unit(log: number[]) {
  let finish!: (v: number) => void;
  let fail!: (e: Error) => void;
  let conn: Conn | undefined;
  const start = (c: Conn) => {
    conn = c;
    log.push(c.id);
    return new Promise<number>((resolve, reject) => {
      finish = resolve;
      fail = reject;
    });
  };
  return {
    start,
    conn: () => conn,
    finish: (v = 1) => finish(v),
    fail: (e: Error) => fail(e),
  };
}

const tick = () => new Promise((r) => setImmediate(r));
const flush = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

test('free connections come first; pipelining starts only when none is free, on the least-loaded one', async () => {
  const { pool } = scriptedPool(2);
  const shared = new SharedConnections(pool, { maxDepth: 8 });
  const log: number[] = [];
  const units = Array.from({ length: 6 }, () => unit(log));
  const done = units.map((u) => shared.run(u.start));
  await flush();
  // both connections of the pool are used, and nothing waits while one has room
  assert.deepEqual([...new Set(log)].sort(), [1, 2]);
  assert.deepEqual(shared.stats(), { connections: 2, units: 6, waiting: 0 });
  units.forEach((u, i) => u.finish(i));
  assert.deepEqual(await Promise.all(done), [0, 1, 2, 3, 4, 5]);
  // once running, a new unit goes to the least-loaded connection
  const a = unit(log);
  const b = unit(log);
  const c = unit(log);
  const more = [a, b, c].map((u) => shared.run(u.start));
  await flush();
  b.finish();
  await more[1];
  const d = unit(log);
  const pd = shared.run(d.start);
  await flush();
  assert.equal(d.conn()?.id, b.conn()?.id, 'the connection with fewer units on the wire');
  for (const u of [a, c, d]) u.finish();
  await Promise.all([...more, pd]);
});

test('at most maxDepth units per connection; the rest wait here and go in order as units finish', async () => {
  const { pool } = scriptedPool(1);
  const shared = new SharedConnections(pool, { maxDepth: 2 });
  const log: number[] = [];
  const units = Array.from({ length: 5 }, () => unit(log));
  const done = units.map((u) => shared.run(u.start));
  await flush();
  assert.equal(log.length, 2);
  assert.deepEqual(shared.stats(), { connections: 1, units: 2, waiting: 3 });
  units[0]!.finish();
  await flush();
  assert.equal(log.length, 3, 'the first waiting unit took the freed place');
  assert.equal(units[2]!.conn()?.id, 1);
  assert.ok(units[3]!.conn() === undefined);
  for (const u of units.slice(1)) {
    u.finish();
    await flush();
  }
  await Promise.all(done);
  assert.deepEqual(shared.stats(), { connections: 1, units: 0, waiting: 0 });
  await tick();
  assert.deepEqual(shared.stats(), { connections: 0, units: 0, waiting: 0 }, 'released after the linger');
});

test('a connection that finished nothing for stallMs takes no new unit', async () => {
  let now = 0;
  const { pool } = scriptedPool(1);
  const shared = new SharedConnections(pool, { stallMs: 50, now: () => now });
  const log: number[] = [];
  const slow = unit(log);
  const p1 = shared.run(slow.start);
  await flush();
  now = 10;
  const quick = unit(log);
  const p2 = shared.run(quick.start);
  await flush();
  assert.equal(quick.conn()?.id, 1, 'pipelined while the connection makes progress');
  now = 100;
  const late = unit(log);
  const p3 = shared.run(late.start);
  await flush();
  assert.ok(late.conn() === undefined, 'not behind a stalled connection');
  assert.equal(shared.stats().waiting, 1);
  slow.finish();
  quick.finish();
  await flush();
  assert.equal(late.conn()?.id, 1, 'placed once the connection moved again');
  late.finish();
  await Promise.all([p1, p2, p3]);
});

test('while another caller waits for a connection, shared ones take nothing new, drain and go back to the pool', async () => {
  const { pool, state, queue } = scriptedPool(1);
  const shared = new SharedConnections(pool);
  const log: number[] = [];
  const a = unit(log);
  const pa = shared.run(a.start);
  await flush();
  // another caller (a transaction) now waits in the pool's queue
  let other: Conn | undefined;
  void pool.checkout().then((c) => (other = c));
  const b = unit(log);
  const pb = shared.run(b.start);
  await flush();
  assert.ok(b.conn() === undefined, 'not pipelined behind a, the other caller goes first');
  a.finish();
  await flush();
  assert.equal(other?.id, 1, 'the connection went to the other caller');
  assert.ok(b.conn() === undefined);
  assert.equal(queue.length, 1, "the module's own request for a connection waits behind it");
  pool.release(other!);
  await flush();
  assert.equal(b.conn()?.id, 1);
  b.finish();
  await Promise.all([pa, pb]);
  assert.ok(state.released.length >= 1);
});

test('a unit may refuse a busy connection: it waits, then goes first on an emptied one', async () => {
  const { pool } = scriptedPool(1);
  const shared = new SharedConnections(pool);
  const log: number[] = [];
  const a = unit(log);
  const pa = shared.run(a.start);
  await flush();
  const picky = unit(log);
  let asked = 0;
  const pp = shared.run(picky.start, () => {
    asked++;
    return false;
  });
  const c = unit(log);
  const pc = shared.run(c.start);
  await flush();
  assert.ok(asked > 0);
  assert.ok(picky.conn() === undefined);
  assert.ok(c.conn() === undefined, 'first come first served: nothing overtakes the waiting unit');
  a.finish();
  await flush();
  assert.equal(picky.conn()?.id, 1, 'first on the emptied connection');
  await flush();
  assert.equal(c.conn()?.id, 1, 'then the next one behind it');
  picky.finish();
  c.finish();
  await Promise.all([pa, pp, pc]);
});

test('an emptied connection is kept for the tick: a unit issued right after reuses it without the pool', async () => {
  const { pool, state } = scriptedPool(1);
  const shared = new SharedConnections(pool);
  const log: number[] = [];
  const a = unit(log);
  const pa = shared.run(a.start);
  await flush();
  a.finish();
  await pa;
  const b = unit(log);
  const pb = shared.run(b.start);
  await flush();
  assert.equal(b.conn()?.id, 1);
  assert.equal(state.checkouts, 1, 'one checkout for both units');
  assert.deepEqual(state.released, []);
  b.finish();
  await pb;
  await tick();
  assert.deepEqual(state.released, [1], 'released once nothing came in the tick');
});

test('a failed unit ends alone; a broken connection takes no more units; a failed checkout fails the waiting units', async () => {
  const { pool } = scriptedPool(1);
  const shared = new SharedConnections(pool);
  const log: number[] = [];
  const a = unit(log);
  const b = unit(log);
  const pa = shared.run(a.start);
  const pb = shared.run(b.start);
  await flush();
  a.fail(new Error('boom'));
  b.finish(2);
  await assert.rejects(pa, /boom/);
  assert.equal(await pb, 2);

  const broken = scriptedPool(1);
  const s2 = new SharedConnections(broken.pool);
  const c = unit(log);
  const pc = s2.run(c.start);
  await flush();
  c.conn()!.broken = true;
  const d = unit(log);
  const pd = s2.run(d.start);
  await flush();
  assert.ok(d.conn() === undefined, 'not written to a broken connection');
  c.fail(new Error('connection lost'));
  await assert.rejects(pc);
  await flush();
  assert.deepEqual(broken.state.released, [1], 'the broken one went back to the pool (which destroys it)');
  assert.ok(d.conn() !== undefined);
  d.finish();
  await pd;

  const failing: LanePool<Conn> = {
    checkout: () => Promise.reject(new Error('no server')),
    release() {},
    available: () => 0,
    waiting: () => 0,
    usable: () => true,
  };
  const s3 = new SharedConnections(failing);
  await assert.rejects(Promise.all([s3.run(unit(log).start), s3.run(unit(log).start)]), /no server/);
});
