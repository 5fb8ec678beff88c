import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatLsn, parseLsn, PrimaryHistory } from '../../../src/execution/walPosition.js';

test('LSNs: Postgres text form <-> bigint, ordered as WAL positions', () => {
  assert.equal(parseLsn('0/16B3748'), 0x16b3748n);
  assert.equal(parseLsn('16/B374D848'), (0x16n << 32n) | 0xb374d848n);
  assert.equal(formatLsn(parseLsn('16/B374D848')!), '16/B374D848');
  assert.ok(parseLsn('1/0')! > parseLsn('0/FFFFFFFF')!);
  for (const bad of ['', '0', '0/', 'x/1', '0/123456789', null, 7]) assert.equal(parseLsn(bad), undefined, String(bad));
});

test('lag: time since the primary was first seen past the replica, 0 when caught up, unknown before a sample', () => {
  const h = new PrimaryHistory(10_000);
  assert.equal(h.lagMs(5n, 1000), undefined);
  h.add(1000, 100n);
  h.add(2000, 100n); // idle primary: no lag however old the last replay
  assert.equal(h.lagMs(100n, 9000), 0);
  h.add(3000, 200n);
  h.add(4000, 300n);
  assert.equal(h.lagMs(150n, 4500), 1500); // primary past 150 since the sample at 3000
  assert.equal(h.lagMs(99n, 4500), 3500);
  assert.equal(h.lagMs(300n, 4500), 0);
});

test('history keeps only what a lag bound needs', () => {
  const h = new PrimaryHistory(1000);
  for (let t = 0; t <= 10_000; t += 100) h.add(t, BigInt(t));
  // The oldest kept sample is about keepMs old: the lag of a replica far behind is at least that.
  const lag = h.lagMs(-1n, 10_000)!;
  assert.ok(lag >= 1000 && lag <= 1100, String(lag));
});
