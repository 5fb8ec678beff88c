/**
 * A large `replace_metadata` is decoded on the main thread in slices (metadataApi/decodeBody.ts: its text
 * parsed in pieces, its tables decoded ahead between turns of the event loop). Differential: the same
 * decoded operation, or the same error, as the inline decoding, for documents of thousands of tables
 * (valid, one table broken half-way, a bad version before the tables, unsupported keys, broken JSON, the
 * wrapped and the version-3 forms of /v1/metadata); the worker thread is not used for them, and timers
 * keep running while a 3,000-table body is decoded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { outcome, type Outcome } from '../../support/apiOutcome.js';
import { decodeBody, decodeBodyInline, offThreadDecodeCounts, OFF_THREAD_MIN_BYTES } from '../../../src/metadataApi/index.js';
import type { BodyEndpoint } from '../../../src/metadataApi/index.js';

function tables(n: number): Array<Record<string, unknown>> {
  return Array.from({ length: n }, (_, i) => ({
    table: { schema: 'public', name: `t${String(i).padStart(4, '0')}` },
    object_relationships: [{ name: 'parent', using: { foreign_key_constraint_on: 'parent_id' } }],
    array_relationships: [{ name: `children_t${i}`, using: { foreign_key_constraint_on: { table: { schema: 'public', name: `t${i}` }, column: 'parent_id' } } }],
    insert_permissions: [{ role: 'r1', permission: { check: { owner_id: { _eq: 'X-Svc-User-Id' } }, columns: ['label'], set: { owner_id: 'x-svc-user-id' } } }],
    select_permissions: [{ role: 'r1', permission: { columns: ['id', 'label'], filter: { parent: { id: { _gt: 1 } } }, limit: 10, allow_aggregations: true } }],
    update_permissions: [{ role: 'r1', permission: { columns: ['label'], filter: {}, check: null } }],
  }));
}

/** The same outcome through decodeBody (sliced, not the worker) as inline. */
async function same(endpoint: BodyEndpoint, bodyValue: unknown | string): Promise<Outcome> {
  const body = Buffer.from(typeof bodyValue === 'string' ? bodyValue : JSON.stringify(bodyValue));
  assert.ok(body.length >= OFF_THREAD_MIN_BYTES, `a large body (${body.length} bytes)`);
  const before = offThreadDecodeCounts();
  const sliced = await outcome(() => decodeBody(body, endpoint));
  const after = offThreadDecodeCounts();
  assert.deepEqual(after, before, 'decoded on the main thread, not by the worker');
  const inline = await outcome(() => decodeBodyInline(body, endpoint));
  assert.deepStrictEqual(sliced, inline);
  return sliced;
}

test('a valid document of 3,000 tables: the same operation as inline, other work running meanwhile', async () => {
  const body = { type: 'replace_metadata', args: { version: 2, tables: tables(3000), functions: [{ function: { schema: 'public', name: 'f' } }] } };
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  const got = await same('query', body);
  clearInterval(timer);
  assert.ok('ok' in got);
  assert.ok(ticks > 0, 'timers ran while the body was decoded');
});

test('a table broken half-way, a bad version, unsupported keys: the inline error', async () => {
  const broken = tables(3000);
  (broken[1500].select_permissions as Array<{ permission: Record<string, unknown> }>)[0].permission.columns = 'id';
  const b1 = await same('query', { type: 'replace_metadata', args: { version: 2, tables: broken } });
  assert.ok('error' in b1 && b1.error.path.includes('tables[1500]'), JSON.stringify(b1));
  const b2 = await same('query', { type: 'replace_metadata', args: { version: 7, tables: broken } });
  assert.ok('error' in b2 && b2.error.message.includes('version'), JSON.stringify(b2));
  const odd = tables(3000);
  odd[2999].some_future_key = { x: 1 };
  odd[10] = 'not a table' as unknown as Record<string, unknown>;
  const b3 = await same('query', { type: 'replace_metadata', args: { version: 2, tables: odd } });
  assert.ok('error' in b3, JSON.stringify(b3).slice(0, 300));
  const b4 = await same('query', { type: 'replace_metadata', args: { version: 2, tables: tables(3000), some_unknown_section: [{ x: 1 }] } });
  assert.ok('error' in b4, JSON.stringify(b4).slice(0, 300));
  // Two tables with the same raw object: each decoded once ahead, the second by decodeMetadata itself.
  const shared = tables(3000);
  shared[7] = shared[6];
  const b5 = await same('query', { type: 'replace_metadata', args: { version: 2, tables: shared } });
  assert.ok('ok' in b5, JSON.stringify(b5).slice(0, 300));
});

test('broken JSON half-way: invalid-json, as inline', async () => {
  const text = JSON.stringify({ type: 'replace_metadata', args: { version: 2, tables: tables(3000) } });
  const cut = text.indexOf('"t1500"');
  const got = await same('query', `${text.slice(0, cut)}"t1500" "oops"${text.slice(cut + 7)}`);
  assert.ok('error' in got && got.error.code === 'invalid-json', JSON.stringify(got));
  assert.ok('error' in (await same('query', text.slice(0, -1))));
  assert.ok('error' in (await same('query', `${text},`)));
});

test('the wrapped form and /v1/metadata (version 3 with sources)', async () => {
  const wrapped = await same('query', { type: 'replace_metadata', args: { allow_inconsistent_metadata: true, metadata: { version: 2, tables: tables(3000) } } });
  assert.ok('ok' in wrapped);
  const v3 = { version: 3, sources: [{ name: 'default', kind: 'postgres', tables: tables(3000), configuration: { connection_info: { database_url: { from_env: 'SVC_GRAPHQL_DATABASE_URL' } } } }] };
  assert.ok('ok' in (await same('metadata', { type: 'replace_metadata', args: v3 })));
  assert.ok('ok' in (await same('metadata', { type: 'replace_metadata', args: { allow_inconsistent_metadata: false, metadata: v3 } })));
  const badV3 = structuredClone(v3);
  (badV3.sources[0].tables[2000] as Record<string, unknown>).table = 5;
  assert.ok('error' in (await same('metadata', { type: 'replace_metadata', args: badV3 })));
});
