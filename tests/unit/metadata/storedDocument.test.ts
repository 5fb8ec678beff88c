/**
 * The stored metadata document is decoded and encoded in a worker thread when it is large
 * (metadata/catalog/storedDocument.ts). Differential: the thread's result equals the inline one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeStoredInline, decodeStoredMetadata, encodeStoredBytes, encodeStoredChunked, encodeStoredInline, encodeStoredMetadata, storedDocumentThreadCounts } from '../../../src/metadata/index.js';
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

test('a document of many tables is encoded a slice of tables per event-loop turn, exactly as inline', async () => {
  const tables = Array.from({ length: 1_200 }, (_, i) => ({
    table: { schema: 'public', name: `t${i}` },
    object_relationships: i === 0 ? undefined : [{ name: 'parent', using: { foreign_key_constraint_on: 'parent_id' } }],
    select_permissions: [{ role: 'user', permission: { columns: ['id'], filter: { id: { _eq: 'X-Svc-User-Id' } } } }],
  }));
  const text = JSON.stringify({ version: 2, tables, remote_schemas: [{ name: 'r', definition: { url: 'http://localhost:1/graphql' } }], inherited_roles: [{ role_name: 'both', role_set: ['user', 'other'] }] });
  const md = decodeStoredInline(text);
  const turns = { n: 0 };
  let ticking = true;
  const tick = () => { turns.n++; if (ticking) setImmediate(tick); };
  setImmediate(tick);
  const encoded = await encodeStoredMetadata(md);
  ticking = false;
  assert.equal(encoded, encodeStoredInline(md));
  assert.ok(turns.n >= 3, `the event loop turned ${turns.n} times while encoding`);
  assert.equal(await encodeStoredChunked({ ...md, tables: [] }), encodeStoredInline({ ...md, tables: [] }));
});

test('a large document of many tables is decoded on the main thread a slice per turn, exactly as inline', async () => {
  const tables = Array.from({ length: 2_000 }, (_, i) => ({
    table: { schema: 'public', name: `t${i}` },
    object_relationships: [{ name: 'parent', using: { foreign_key_constraint_on: 'parent_id' } }],
    select_permissions: [{ role: 'user', permission: { columns: ['id', 'label'], filter: { parent: { id: { _eq: 'X-Svc-User-Id' } } }, allow_aggregations: true } }],
    update_permissions: [{ role: 'user', permission: { columns: ['label'], filter: {}, check: null } }],
  }));
  const text = JSON.stringify({ version: 2, tables, query_collections: [{ name: 'c', definition: { queries: [{ name: 'q', query: 'query q { t0 { id } }' }] } }], allowlist: [{ collection: 'c' }] });
  assert.ok(text.length >= OFF_THREAD_MIN_BYTES);
  const before = storedDocumentThreadCounts();
  let turns = 0;
  let ticking = true;
  const tick = () => { turns++; if (ticking) setImmediate(tick); };
  setImmediate(tick);
  const md = await decodeStoredMetadata(text);
  ticking = false;
  assert.deepStrictEqual(md, decodeStoredInline(text));
  assert.deepEqual(storedDocumentThreadCounts(), before, 'not by the thread');
  assert.ok(turns >= 3, `the event loop turned ${turns} times while decoding`);
});

test('the bytes written for a document of many tables are its stored text, non-ASCII included, and a table edited later is encoded again', async () => {
  const tables = Array.from({ length: 1_200 }, (_, i) => ({
    table: { schema: 'public', name: `t${i}` },
    configuration: { custom_root_fields: {}, custom_column_names: { label: `label_${i}` } },
    select_permissions: [{ role: 'user', permission: { columns: ['id', 'label'], filter: { note: { _eq: 'naïve – ✓' } }, allow_aggregations: true } }],
  }));
  const text = JSON.stringify({ version: 2, tables, remote_schemas: [] });
  const md = decodeStoredInline(text);
  const bytes = await encodeStoredBytes(md);
  assert.ok(Buffer.isBuffer(bytes));
  assert.equal(bytes.toString('utf8'), encodeStoredInline(md));
  // The next document shares every table but one (as an operation's draft does): that one's bytes are new.
  const next = { ...md, tables: md.tables.map((t, i) => (i === 3 ? { ...t, select_permissions: [] } : t)) };
  assert.equal((await encodeStoredBytes(next)).toString('utf8'), encodeStoredInline(next));
  // A document of few tables is written as its text.
  const small = decodeStoredInline(JSON.stringify({ version: 2, tables: tables.slice(0, 3) }));
  assert.equal(await encodeStoredBytes(small), encodeStoredInline(small));
});
