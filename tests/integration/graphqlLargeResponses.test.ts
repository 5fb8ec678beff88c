/**
 * Large /v1/graphql answers over real HTTP: the body is the bytes Postgres sent inside the `data`
 * frame, from a pooled buffer that goes back to the pool once the socket has taken it. Many
 * concurrent requests with different large answers must each get exactly their own bytes (a
 * buffer reused before its response was flushed would mix them up), with the right
 * content-length, multi-byte UTF-8 intact.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, type TestEngine } from './harness.js';
import { pooledFreeBytes } from '../../src/lib/index.js';

let e: TestEngine;

before(async () => {
  e = await startTestEngine();
  await e.runSql(`CREATE TABLE blob (id int PRIMARY KEY, body text NOT NULL);
    INSERT INTO blob SELECT g, repeat(chr(945 + g % 20) || '€' || g::text, 2000 + g * 100) FROM generate_series(1, 40) g;`);
  const r = await e.query({ type: 'track_table', args: { schema: 'public', name: 'blob' } });
  assert.equal(r.status, 200, r.text);
});

after(async () => {
  await e?.stop();
});

const expected = (g: number) => (String.fromCharCode(945 + (g % 20)) + '€' + String(g)).repeat(2000 + g * 100);

test('concurrent large answers each carry exactly their own bytes', async () => {
  for (let round = 0; round < 3; round++) {
    const ids = Array.from({ length: 40 }, (_, i) => i + 1);
    const results = await Promise.all(
      // Without Accept-Encoding (fetch sends `gzip, deflate` unless told otherwise): the pooled buffers' bytes as they are.
      ids.map((id) => e.request('POST', '/v1/graphql', { query: 'query($id: Int!) { blob_by_pk(id: $id) { id body } }', variables: { id } }, { 'accept-encoding': 'identity' })),
    );
    results.forEach((r, i) => {
      const id = ids[i]!;
      assert.equal(r.status, 200);
      assert.equal(Number(r.headers.get('content-length')), Buffer.byteLength(r.text));
      assert.deepEqual(r.body, { data: { blob_by_pk: { id, body: expected(id) } } });
    });
  }
  // The engine runs in this process: its response buffers went back to the pool.
  assert.ok(pooledFreeBytes() > 0);
});

test('a batch of large answers is one JSON array in request order', async () => {
  const r = await e.request('POST', '/v1/graphql', [
    { query: '{ blob_by_pk(id: 40) { id body } }' },
    { query: '{ blob(where: {id: {_lt: 3}}, order_by: {id: asc}) { id } }' },
    { query: '{ blob_by_pk(id: 1) { id body } }' },
  ]);
  assert.equal(r.status, 200);
  assert.deepEqual(r.body, [
    { data: { blob_by_pk: { id: 40, body: expected(40) } } },
    { data: { blob: [{ id: 1 }, { id: 2 }] } },
    { data: { blob_by_pk: { id: 1, body: expected(1) } } },
  ]);
});
