/**
 * The switches of the three hand-written parts, each against the real thing: with
 * `--http-fast-path=false` node:http serves every plain request (its 'request' event fires), with
 * `--pg-read-buffer=false` the pool reads with node-postgres' own socket and still answers large
 * results, and with `--pg-pipeline-depth=1` no unit is written behind another on a connection (seen
 * through a proxy), while the default depth does pipeline under the same load.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEngineServer } from '../../src/server/httpServer.js';
import { createDb } from '../../src/execution/index.js';
import { messageReaderSockets } from '../../src/execution/messageReader.js';
import { listenerContext } from '../support/listenerContext.js';
import { pipelinedSomewhere, startPgMessageProxy } from '../support/pgMessageProxy.js';
import { createTestDatabase } from './harness.js';

async function nodeRequestsServed(httpFastPath: boolean): Promise<number> {
  const ctx = listenerContext();
  ctx.config = { ...ctx.config, httpFastPath };
  const server = createEngineServer(ctx, { healthz: async () => ({ status: 200, body: 'OK' }) });
  let nodeRequests = 0;
  server.server.on('request', () => nodeRequests++);
  const port = await server.listen(0, '127.0.0.1');
  try {
    for (let i = 0; i < 5; i++) {
      const r = await fetch(`http://127.0.0.1:${port}/healthz`);
      assert.equal(r.status, 200);
      assert.equal(await r.text(), 'OK');
    }
  } finally {
    await server.close(1000);
  }
  return nodeRequests;
}

test('--http-fast-path=false: node:http serves every plain request; on (default): none', async () => {
  assert.equal(await nodeRequestsServed(false), 5);
  assert.equal(await nodeRequestsServed(true), 0);
});

test('--pg-read-buffer=false: the pool reads with pg\'s own socket and answers a 3 MB result the same', async () => {
  const database = await createTestDatabase('readbuf');
  const big = `SELECT json_build_object('rows', json_agg(repeat('x', 1000) || g))::text FROM generate_series(1, 3000) g`;
  try {
    const answers: Array<string | null> = [];
    for (const readBuffer of [false, true]) {
      const db = createDb(database.url, 2, { readBuffer });
      try {
        const before = messageReaderSockets.count;
        answers.push(await db.queryJsonText(big, [], { prepare: true }));
        assert.equal(messageReaderSockets.count > before, readBuffer, `readBuffer ${readBuffer}: sockets with a read buffer made`);
      } finally {
        await db.close();
      }
    }
    assert.ok(answers[0] && answers[0].length > 3_000_000);
    assert.equal(answers[0], answers[1]);
  } finally {
    await database.drop();
  }
});

test('--pg-pipeline-depth=1: no unit is written behind another on a busy pool; the default depth pipelines', async () => {
  const database = await createTestDatabase('depth');
  const proxy = await startPgMessageProxy(database.url);
  const q = `SELECT json_build_object('n', $1::int, 'slept', pg_sleep(0.002) IS NOT NULL)::text`;
  try {
    for (const [depth, expectPipelined] of [[1, false], [2, true]] as const) {
      const db = createDb(proxy.url, 2, { pipelineDepth: depth });
      try {
        proxy.flow.length = 0;
        const out = await Promise.all(Array.from({ length: 60 }, (_, i) => db.queryJsonText(q, [i], { prepare: true })));
        assert.deepEqual(out.map((t) => JSON.parse(t!).n), Array.from({ length: 60 }, (_, i) => i));
        assert.equal(pipelinedSomewhere(proxy), expectPipelined, `depth ${depth}`);
      } finally {
        await db.close();
      }
    }
  } finally {
    await proxy.close();
    await database.drop();
  }
});
