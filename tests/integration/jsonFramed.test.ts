/**
 * `queryJsonFramed` (execution/dataRowBytes.ts) over a real Postgres: the response body is the
 * frame's prefix + the bytes Postgres sent + the suffix, in one Buffer, byte for byte (multi-byte
 * UTF-8, values larger than one TCP read, SQL NULL, no row); ordinary queries on the same
 * connection still see decoded rows; errors leave the connection usable; the unprepared path
 * answers the same bytes.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../src/core/index.js';
import { createDb, type Db, type JsonFrame } from '../../src/execution/index.js';
import { dataRowBytesInstalled } from '../../src/execution/dataRowBytes.js';
import { createTestDatabase } from './harness.js';

let db: Db;
let testDb: Awaited<ReturnType<typeof createTestDatabase>>;

before(async () => {
  testDb = await createTestDatabase('jfr');
  db = createDb(testDb.url, 2);
  await db.query('CREATE TABLE doc (id int PRIMARY KEY, body text NOT NULL)');
  await db.query(`INSERT INTO doc VALUES (1, 'héllo ✓ 😀 "quoted" \\ back'), (2, repeat('ü€x', 60000))`);
});

after(async () => {
  await db?.close();
  await testDb?.drop();
});

const frame: JsonFrame = { prefix: Buffer.from('{"data":{"doc":'), suffix: Buffer.from('}}') };
const prepare = { prepare: true };
const Q = `SELECT json_build_object('id', id, 'body', body) FROM doc WHERE id = $1::int`;

test('the patch on the pg-protocol parser is in place (otherwise every body is decoded and re-encoded)', () => {
  assert.equal(dataRowBytesInstalled, true);
});

test('prefix + the bytes Postgres sent + suffix, multi-byte UTF-8 kept byte for byte', async () => {
  const body = await db.queryJsonFramed(Q, [1], frame, prepare);
  assert.ok(Buffer.isBuffer(body));
  const expected = `{"data":{"doc":{"id" : 1, "body" : "héllo ✓ 😀 \\"quoted\\" \\\\ back"}}}`;
  assert.equal(body.toString('utf8'), expected);
  assert.equal(body.length, Buffer.byteLength(expected));
  assert.deepEqual(JSON.parse(body.toString('utf8')).data.doc.body, 'héllo ✓ 😀 "quoted" \\ back');
});

test('a value larger than one socket read (≈ 360 kB) arrives whole', async () => {
  const body = await db.queryJsonFramed(Q, [2], frame, prepare);
  const parsed = JSON.parse(body.toString('utf8'));
  assert.equal(parsed.data.doc.body, 'ü€x'.repeat(60000));
  assert.ok(body.length > 300_000);
});

test('SQL NULL and no row both answer null inside the frame', async () => {
  assert.equal((await db.queryJsonFramed('SELECT NULL::json WHERE $1::int = 1', [1], frame, prepare)).toString(), '{"data":{"doc":null}}');
  assert.equal((await db.queryJsonFramed(Q, [999], frame, prepare)).toString(), '{"data":{"doc":null}}');
});

test('the unprepared path answers the same bytes', async () => {
  const a = await db.queryJsonFramed(Q, [1], frame, prepare);
  const b = await db.queryJsonFramed(Q, [1], frame);
  assert.deepEqual(b, a);
  assert.equal((await db.queryJsonFramed(Q, [999], frame)).toString(), '{"data":{"doc":null}}');
});

test('ordinary queries on the same connection still get decoded rows, before and after framed ones', async () => {
  await db.withClient(async (c) => {
    const before = await c.query('SELECT id, body FROM doc ORDER BY id');
    assert.equal(before.rows[0].body, 'héllo ✓ 😀 "quoted" \\ back');
    assert.equal((before.rows[1].body as string).length, 180000);
    const framed = await c.queryJsonFramed(Q, [1], frame, prepare);
    assert.match(framed.toString(), /^\{"data":\{"doc":\{"id" : 1/);
    const again = await c.query('SELECT id FROM doc WHERE id = $1', [2]);
    assert.deepEqual(again.rows, [{ id: 2 }]);
    assert.equal(await c.queryJsonText(Q, [1], prepare), framed.subarray(frame.prefix.length, framed.length - frame.suffix.length).toString());
  });
});

test('a Postgres error is an ApiError and the connection keeps working', async () => {
  await db.withClient(async (c) => {
    await assert.rejects(
      c.queryJsonFramed('SELECT json_build_object($1::int / 0)', [1], frame, prepare),
      (e: unknown) => e instanceof ApiError && /division by zero/.test(e.message),
    );
    assert.equal((await c.queryJsonFramed(Q, [999], frame, prepare)).toString(), '{"data":{"doc":null}}');
  });
});
