/**
 * SourcePools' outages (execution/sourcePools.ts): a probe names why a source does not answer; a source
 * marked away has its pool withheld (Hasura's database connection error, the probe's line inside) until
 * it is marked back; a remade or dropped pool forgets the outage.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../src/core/index.js';
import { SourcePools } from '../../../src/execution/index.js';

test('a probe of a closed port names it; away withholds the pool, back hands it out again', async () => {
  const pools = new SourcePools({ onError: () => undefined });
  const conn = { database_url: 'postgres://postgres@127.0.0.1:1/postgres' };
  try {
    assert.equal(await pools.probe('nope', 1000), undefined, 'no such pool: nothing to say');
    const made = pools.pool('shop', conn);
    const reason = await pools.probe('shop', 2000);
    assert.match(reason ?? '', /^cannot connect to Postgres at 127\.0\.0\.1:1: connection refused/);
    pools.markAway('shop', reason!);
    assert.deepEqual([...pools.outages().keys()], ['shop']);
    for (const use of [() => pools.get('shop'), () => pools.reads('shop', undefined), () => pools.pool('shop', conn)]) {
      assert.throws(use, (e: unknown) => e instanceof ApiError && e.code === 'database-error' && e.message === 'database connection error' && (e.internal as { error: string }).error === reason);
    }
    const since = pools.outages().get('shop')!.since;
    pools.markAway('shop', 'again');
    assert.equal(pools.outages().get('shop')!.since, since, 'the outage keeps its start');
    pools.markAway('shop', undefined);
    assert.equal(pools.get('shop'), made);
    // A new connection forgets the outage; so does the source's drop.
    pools.markAway('shop', 'away');
    assert.notEqual(pools.pool('shop', { ...conn, pool_settings: { max_connections: 2 } }), made);
    assert.equal(pools.outages().size, 0);
    pools.markAway('shop', 'away');
    pools.retain(new Set());
    assert.equal(pools.outages().size, 0);
    pools.markAway('gone', 'away');
    assert.equal(pools.outages().size, 0, 'no outage for a source without a pool');
  } finally {
    await pools.close();
  }
});
