/**
 * Response compression (server/compressResponse.ts) and kept introspection answers as gzip bytes
 * (api/introspectionAnswers.ts), over real HTTP (node:http, so the test chooses `Accept-Encoding` itself and
 * reads the bytes as sent) on a real database: a client that accepts gzip gets `Content-Encoding: gzip` and
 * bytes that inflate to the answer an identity client gets; bodies under 700 bytes stay as they are unless
 * identity is refused; `br` alone, `gzip;q=0` and no header leave the response alone; /v1/query and
 * /v1/metadata answers are compressed too; a kept introspection answer is kept compressed and sent as its
 * gzip bytes, inflated for a client that does not accept gzip and inside a batch.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { getIntrospectionQuery } from 'graphql';
import { startTestEngine, type TestEngine } from './harness.js';
import { keptIntrospectionBytes } from '../../src/api/introspectionAnswers.js';

const SECRET = 'compression-secret';
let e: TestEngine;

interface Sent {
  status: number;
  encoding: string | undefined;
  vary: string | undefined;
  length: number;
  /** The body as sent (compressed or not). */
  raw: Buffer;
  /** The body inflated when it was sent compressed. */
  text: string;
}

/** A POST with exactly these headers (plus the admin secret and content type), its bytes read as sent. */
function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Sent> {
  const data = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = request(`${e.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': data.length, 'x-svc-admin-secret': SECRET, ...headers } }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => {
        const raw = Buffer.concat(parts);
        const encoding = res.headers['content-encoding'];
        assert.equal(Number(res.headers['content-length']), raw.length, 'content-length is the length of the bytes sent');
        resolve({ status: res.statusCode!, encoding, vary: res.headers.vary, length: raw.length, raw, text: (encoding === 'gzip' ? gunzipSync(raw) : raw).toString('utf8') });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(data);
  });
}

before(async () => {
  e = await startTestEngine({ adminSecret: SECRET });
  await e.runSql(`CREATE TABLE item (id serial PRIMARY KEY, label text NOT NULL);
    INSERT INTO item (label) SELECT 'item number ' || g FROM generate_series(1, 200) g;`);
  const r = await e.request('POST', '/v1/metadata', { type: 'pg_track_table', args: { table: 'item' } }, { 'x-svc-admin-secret': SECRET });
  assert.equal(r.status, 200, r.text);
  const p = await e.request('POST', '/v1/metadata', { type: 'pg_create_select_permission', args: { table: 'item', role: 'reader', permission: { columns: ['id', 'label'], filter: {} } } }, { 'x-svc-admin-secret': SECRET });
  assert.equal(p.status, 200, p.text);
});

after(async () => {
  await e?.stop();
});

const MANY = { query: '{ item(order_by: {id: asc}) { id label } }' };
const ONE = { query: '{ item(where: {id: {_eq: 1}}) { id label } }' };

test('a client that accepts gzip gets a gzip body that inflates to the identity answer; others get it as it is', async () => {
  const plain = await post('/v1/graphql', MANY);
  assert.equal(plain.status, 200);
  assert.equal(plain.encoding, undefined);
  assert.equal(JSON.parse(plain.text).data.item.length, 200);
  for (const accept of ['gzip', 'gzip, deflate, br', 'br;q=1.0, gzip;q=0.8, *;q=0.1', 'GZIP', 'deflate, gzip;q=0.5']) {
    const zipped = await post('/v1/graphql', MANY, { 'accept-encoding': accept });
    assert.equal(zipped.encoding, 'gzip', accept);
    assert.equal(zipped.vary, 'Accept-Encoding', accept);
    assert.equal(zipped.text, plain.text, accept);
    assert.ok(zipped.length < plain.length / 3, `${accept}: ${zipped.length} of ${plain.length} bytes`);
  }
  for (const accept of ['br', 'deflate', 'gzip;q=0', 'gzip;q=0, br', 'identity', '']) {
    const sent = await post('/v1/graphql', MANY, { 'accept-encoding': accept });
    assert.equal(sent.encoding, undefined, accept);
    assert.deepEqual(sent.raw, plain.raw, accept);
  }
});

test('under 700 bytes a body is sent as it is, unless identity is refused', async () => {
  const small = await post('/v1/graphql', ONE, { 'accept-encoding': 'gzip' });
  assert.ok(small.length < 700);
  assert.equal(small.encoding, undefined);
  assert.equal(JSON.parse(small.text).data.item[0].label, 'item number 1');
  for (const accept of ['gzip, identity;q=0', 'gzip, *;q=0']) {
    const refused = await post('/v1/graphql', ONE, { 'accept-encoding': accept });
    assert.equal(refused.encoding, 'gzip', accept);
    assert.equal(refused.text, small.text, accept);
  }
  // An error answer is JSON too: compressed by the same rule (small, so only when identity is refused).
  const error = await post('/v1/graphql', { query: '{ nope }' }, { 'accept-encoding': 'gzip, identity;q=0' });
  assert.equal(error.encoding, 'gzip');
  assert.match(JSON.parse(error.text).errors[0].message, /nope/);
});

test('/v1/query and /v1/metadata answers are compressed for a gzip client', async () => {
  const select = { type: 'select', args: { table: 'item', columns: ['id', 'label'], order_by: ['id'] } };
  const plain = await post('/v1/query', select);
  const zipped = await post('/v1/query', select, { 'accept-encoding': 'gzip' });
  assert.equal(plain.encoding, undefined);
  assert.equal(zipped.encoding, 'gzip');
  assert.equal(zipped.text, plain.text);
  // The exported document of one table is under 700 bytes: compressed when identity is refused.
  const exported = await post('/v1/metadata', { type: 'export_metadata', args: {} }, { 'accept-encoding': 'gzip, identity;q=0' });
  assert.equal(exported.encoding, 'gzip');
  assert.equal(JSON.parse(exported.text).sources[0].tables[0].table.name, 'item');
});

test('a kept introspection answer is kept as gzip bytes: sent as they are to a gzip client, inflated for others and in a batch', async () => {
  const introspection = { query: getIntrospectionQuery() };
  const reader = { 'x-svc-role': 'reader' };
  const keptBefore = keptIntrospectionBytes();
  const first = await post('/v1/graphql', introspection, reader);
  assert.equal(first.encoding, undefined);
  assert.ok(first.length > 20_000, `${first.length} bytes`);
  assert.equal(JSON.parse(first.text).data.__schema.queryType.name, 'query_root');
  // Kept once compressed (in the thread pool): then its bytes in the budget are the compressed ones.
  let zipped = await post('/v1/graphql', introspection, { ...reader, 'accept-encoding': 'gzip' });
  while (keptIntrospectionBytes() === keptBefore) {
    await new Promise((r) => setImmediate(r));
    zipped = await post('/v1/graphql', introspection, { ...reader, 'accept-encoding': 'gzip' });
  }
  const kept = keptIntrospectionBytes() - keptBefore;
  assert.ok(kept > 0 && kept < first.length / 4, `kept ${kept} bytes for an answer of ${first.length}`);
  zipped = await post('/v1/graphql', introspection, { ...reader, 'accept-encoding': 'gzip' });
  assert.equal(zipped.encoding, 'gzip');
  assert.equal(zipped.vary, 'Accept-Encoding');
  assert.equal(zipped.length, kept, 'the kept gzip bytes are what is sent');
  assert.equal(zipped.text, first.text);
  const again = await post('/v1/graphql', introspection, reader);
  assert.equal(again.encoding, undefined);
  assert.deepEqual(again.raw, first.raw);
  // In a batch the kept answer is inflated before it is put beside the other answers.
  const batch = await post('/v1/graphql', [introspection, ONE], { ...reader, 'accept-encoding': 'gzip' });
  assert.equal(batch.encoding, 'gzip');
  assert.equal(batch.text, `[${first.text},${(await post('/v1/graphql', ONE, reader)).text}]`);
});
