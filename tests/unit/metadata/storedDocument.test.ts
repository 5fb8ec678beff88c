/**
 * The stored metadata document is decoded and encoded in a worker thread when it is large
 * (metadata/catalog/storedDocument.ts). Differential: the thread's result equals the inline one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeStoredInline, decodeStoredMetadata, encodeStoredInline, encodeStoredMetadata, storedDocumentThreadCounts } from '../../../src/metadata/index.js';
import { OFF_THREAD_MIN_BYTES } from '../../../src/lib/index.js';

test('a large stored document is decoded and encoded off the main thread, exactly as inline', async () => {
  const queries = Array.from({ length: 20_000 }, (_, i) => ({ name: `q${i}`, query: `query q${i} { author { id name } }` }));
  const tables = Array.from({ length: 50 }, (_, i) => ({
    table: { schema: 'public', name: `t${i}` },
    select_permissions: [{ role: 'user', permission: { columns: ['id'], filter: { id: { _eq: 'X-Svc-User-Id' } }, allow_aggregations: true } }],
  }));
  const text = JSON.stringify({ version: 2, tables, query_collections: [{ name: 'big', definition: { queries } }], allowlist: [{ collection: 'big' }] });
  assert.ok(text.length >= OFF_THREAD_MIN_BYTES);
  const before = storedDocumentThreadCounts();
  const md = await decodeStoredMetadata(text);
  assert.deepStrictEqual(md, decodeStoredInline(text));
  const encoded = await encodeStoredMetadata(md);
  assert.equal(encoded, encodeStoredInline(md));
  const after = storedDocumentThreadCounts();
  assert.deepEqual({ answered: after.answered - before.answered, failed: after.failed - before.failed }, { answered: 2, failed: 0 });
  // A small one stays on the main thread.
  await decodeStoredMetadata('{"version": 2, "tables": []}');
  assert.equal(storedDocumentThreadCounts().answered, after.answered);
});
