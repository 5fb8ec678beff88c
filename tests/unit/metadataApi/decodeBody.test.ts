/**
 * Large admin bodies are decoded in a worker thread (metadataApi/decodeBody.ts). Differential: every
 * /v1/query and /v1/metadata body of the conformance corpus, and malformed ones, decoded off the
 * main thread must give exactly what the inline decoding gives (the same operations, prototypes
 * included, or the same error: code, message, path, status).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { outcome } from '../../support/apiOutcome.js';
import { decodeBody, decodeBodyInline, decodeBodyOffThread, offThreadDecodeCounts, OFF_THREAD_MIN_BYTES } from '../../../src/metadataApi/index.js';
import type { BodyEndpoint } from '../../../src/metadataApi/index.js';

const CASES = resolve(import.meta.dirname, '../../conformance/cases');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : n.endsWith('.json') ? [p] : [];
  });
}

/** Every step body the corpus sends to /v1/query or /v1/metadata. */
function corpusBodies(): Array<{ endpoint: BodyEndpoint; body: string }> {
  const out: Array<{ endpoint: BodyEndpoint; body: string }> = [];
  for (const f of files(CASES)) {
    const c = JSON.parse(readFileSync(f, 'utf8')) as { steps?: Array<{ url?: string; body?: unknown }> };
    for (const s of c.steps ?? []) {
      if (s.url === '/v1/query' || s.url === '/v1/metadata') out.push({ endpoint: s.url === '/v1/query' ? 'query' : 'metadata', body: JSON.stringify(s.body) });
    }
  }
  return out;
}

const MALFORMED: Array<{ endpoint: BodyEndpoint; body: string }> = [
  { endpoint: 'query', body: '{"type": "run_sql", "args": ' },
  { endpoint: 'query', body: '[1, 2, 3]' },
  { endpoint: 'query', body: '{"type": "no_such_op", "args": {}}' },
  { endpoint: 'query', body: '{"type": "bulk", "args": [{"type": "track_table", "args": {"name": 3}}]}' },
  { endpoint: 'query', body: JSON.stringify({ type: 'replace_metadata', args: { version: 2, tables: [], query_collections: [{ name: 'c', definition: { queries: [{ name: 'q', query: 'query {' }] } }] } }) },
  { endpoint: 'metadata', body: '{"type": "pg_track_table", "args": {"source": "default", "table": {"schema": 1}}}' },
  { endpoint: 'metadata', body: '"text"' },
  { endpoint: 'query', body: `{"type": "run_sql", "args": ${'['.repeat(50_000)}${']'.repeat(50_000)}}` },
];

test('off the main thread, every corpus and malformed body decodes exactly as inline', async () => {
  const bodies = [...corpusBodies(), ...MALFORMED];
  assert.ok(bodies.length > 500, `the corpus has ${bodies.length} bodies`);
  const before = offThreadDecodeCounts();
  for (const { endpoint, body } of bodies) {
    const buf = Buffer.from(body);
    const inline = await outcome(() => decodeBodyInline(buf, endpoint));
    const offThread = await outcome(() => decodeBodyOffThread(buf, endpoint));
    assert.deepStrictEqual(offThread, inline, `${endpoint}: ${body.slice(0, 200)}`);
  }
  // Every one was answered by the worker, none decoded inline after all.
  const after = offThreadDecodeCounts();
  assert.deepEqual({ answered: after.answered - before.answered, failed: after.failed - before.failed }, { answered: bodies.length, failed: 0 });
});

test('a large replace_metadata goes to the worker thread and its query texts are still checked there', async () => {
  const queries = Array.from({ length: 20_000 }, (_, i) => ({ name: `q${i}`, query: `query q${i} { __typename }` }));
  queries[12_345].query = 'query broken {';
  const body = Buffer.from(JSON.stringify({ type: 'replace_metadata', args: { version: 2, tables: [], query_collections: [{ name: 'big', definition: { queries } }] } }));
  assert.ok(body.length >= OFF_THREAD_MIN_BYTES);
  const before = offThreadDecodeCounts().answered;
  const got = await outcome(() => decodeBody(body, 'query'));
  assert.equal(offThreadDecodeCounts().answered, before + 1, 'decoded by the worker');
  assert.deepStrictEqual(got, {
    error: { code: 'parse-failed', message: 'parsing the graphql query failed', path: '$.query_collections[0].definition.queries[12345].query', status: 400 },
  });
  queries[12_345].query = 'query fixed { __typename }';
  const ok = await decodeBody(Buffer.from(JSON.stringify({ type: 'replace_metadata', args: { version: 2, tables: [], query_collections: [{ name: 'big', definition: { queries } }] } })), 'query');
  assert.equal(ok.query.type, 'replace_metadata');
});
