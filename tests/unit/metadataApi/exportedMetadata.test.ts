/**
 * `export_metadata`'s text is written a slice of tables at a time (metadataApi/exportedMetadata.ts).
 * Differential: every metadata document of the conformance corpus's replace_metadata bodies, exported
 * as text, must be byte for byte `JSON.stringify` of the encoded document (cron triggers last), in
 * version 2 and reshaped to version 3; a document whose values spell the tables' marker too.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { decodeMetadata, encodeMetadata, encodeStoredInline, type Metadata } from '../../../src/metadata/index.js';
import { encodeQueryResult, metadataToV3, v2MetadataResult } from '../../../src/metadataApi/index.js';
import { exportMetadata, ExportedMetadata } from '../../../src/metadataApi/exportedMetadata.js';

const CASES = resolve(import.meta.dirname, '../../conformance/cases');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : n.endsWith('.json') ? [p] : [];
  });
}

/** The documents the corpus replaces the metadata with (those that decode). */
function corpusDocuments(): Metadata[] {
  const out: Metadata[] = [];
  const visit = (body: unknown): void => {
    if (typeof body !== 'object' || body === null) return;
    const b = body as { type?: unknown; args?: unknown };
    if (b.type === 'bulk' && Array.isArray(b.args)) b.args.forEach(visit);
    if (b.type !== 'replace_metadata' || typeof b.args !== 'object' || b.args === null) return;
    const args = b.args as Record<string, unknown>;
    try {
      out.push(decodeMetadata('metadata' in args ? args.metadata : args));
    } catch { /* refused documents have no export */ }
  };
  for (const f of files(CASES)) {
    const c = JSON.parse(readFileSync(f, 'utf8')) as { steps?: Array<{ url?: string; body?: unknown }> };
    for (const s of c.steps ?? []) if (s.url === '/v1/query') visit(s.body);
  }
  return out;
}

function expected(md: Metadata, crons: unknown[]): Record<string, unknown> {
  const out = encodeMetadata(md) as Record<string, unknown>;
  delete out.cron_triggers;
  if (crons.length > 0) out.cron_triggers = crons;
  return out;
}

const CRONS = [{ name: 'nightly', webhook: 'http://example.com', schedule: '0 0 * * *', include_in_metadata: true }];

test('the exported text is JSON.stringify of the encoded document, in version 2 and 3', async () => {
  const docs = corpusDocuments();
  assert.ok(docs.length >= 4, `corpus documents: ${docs.length}`);
  let withTables = 0;
  for (const md of docs) {
    if (md.tables.length > 0) withTables++;
    for (const crons of [[], CRONS]) {
      const exported = await exportMetadata(md, crons);
      assert.equal(encodeQueryResult(exported), JSON.stringify(expected(md, crons)));
      const v3 = v2MetadataResult({ type: 'export_metadata' }, exported);
      assert.ok(v3 instanceof ExportedMetadata, "still text written from its pieces");
      assert.equal(encodeQueryResult(v3), JSON.stringify(metadataToV3(expected(md, crons))));
      // Inside a bulk, as /v1/metadata answers it.
      const bulk = v2MetadataResult({ type: 'bulk', args: [{ type: 'export_metadata' }] }, [exported]);
      assert.equal(encodeQueryResult(bulk), `[${JSON.stringify(metadataToV3(expected(md, crons)))}]`);
    }
  }
  assert.ok(withTables >= 2, `documents with tables: ${withTables}`);
});

test('many tables: each table encoded once per table object, the text unchanged after an edit', async () => {
  const tables = Array.from({ length: 3000 }, (_, i) => ({
    table: { schema: 'public', name: `t${i}` },
    object_relationships: [{ name: 'parent', using: { foreign_key_constraint_on: 'parent_id' } }],
    select_permissions: [{ role: 'r1', permission: { columns: ['id', 'label'], filter: { id: { _gt: 'X-Svc-User-Id' } } } }],
  }));
  const md = decodeMetadata({ version: 2, tables, query_collections: [{ name: 'c', definition: { queries: [{ name: 'q', query: 'query { a }' }] } }] });
  const first = await exportMetadata(md, []);
  assert.equal(first.text, JSON.stringify(expected(md, [])));
  const edited: Metadata = { ...md, tables: [...md.tables] };
  edited.tables[5] = { ...md.tables[5], is_enum: true };
  const second = await exportMetadata(edited, []);
  assert.equal(second.text, JSON.stringify(expected(edited, [])));
  assert.notEqual(second.text, first.text);
});

test('a table with a pre-1.0 allow_upsert: exported without it (the stored text keeps it)', async () => {
  const md = decodeMetadata({
    version: 2,
    tables: [
      { table: { schema: 'public', name: 'a' }, insert_permissions: [{ role: 'r', permission: { check: {}, columns: ['x'], allow_upsert: true } }] },
      { table: { schema: 'public', name: 'b' }, insert_permissions: [{ role: 'r', permission: { check: {}, columns: ['x'] } }] },
    ],
  }, '$', { stored: true });
  assert.equal(md.tables[0].insert_permissions?.[0].permission.allow_upsert, true, 'the fixture keeps allow_upsert');
  const exported = await exportMetadata(md, []);
  assert.equal(exported.text, JSON.stringify(expected(md, [])));
  assert.ok(!exported.text.includes('allow_upsert'));
  assert.ok(encodeStoredInline(md).includes('allow_upsert'));
});

test('a value spelling the marker does not move the tables', async () => {
  const md = decodeMetadata({
    version: 2,
    tables: [{ table: { schema: 'public', name: 'a' }, configuration: { custom_root_fields: { select: 'x' }, custom_column_names: {} } }],
    remote_schemas: [{ name: 'r', definition: { url: 'http://example.com', forward_client_headers: false, headers: [{ name: 'h', value: '\u0000export_metadata.tables\u0000' }] }, comment: ['\u0000export_metadata.tables\u0000'] }],
  });
  const exported = await exportMetadata(md, []);
  assert.equal(exported.text, JSON.stringify(expected(md, [])));
});
