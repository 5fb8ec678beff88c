/**
 * `reload_remote_schema` as Hasura v1.3 runs it (withNewInconsistentObjsCheck): a remote that was
 * consistent and is now down, or now serves an invalid schema, refuses the reload with 400 unexpected
 * "cannot continue due to new inconsistent metadata" (the reason in `internal`), nothing changes and
 * the schema fetched before stays in use; a remote that changed its schema is picked up by the reload.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, type TestEngine } from './harness.js';
import { startRemoteGraphqlServer, type RemoteGraphqlServer } from '../support/remoteGraphqlServer.js';

let e: TestEngine;
let remote: RemoteGraphqlServer;

before(async () => {
  remote = await startRemoteGraphqlServer('type Query { ping: String }', { ping: () => 'pong' });
  e = await startTestEngine();
  const r = await e.query({ type: 'add_remote_schema', args: { name: 'pinger', definition: { url: remote.url, timeout_seconds: 5 } } });
  assert.equal(r.status, 200, r.text);
});
after(async () => {
  await e?.stop();
  await remote?.stop();
});

test('a remote that is down: the reload is refused, metadata and schema unchanged', async () => {
  const before = (await e.query({ type: 'export_metadata', args: {} })).text;
  await remote.stop();
  const r = await e.query({ type: 'reload_remote_schema', args: { name: 'pinger' } });
  assert.equal(r.status, 400, r.text);
  assert.equal(r.body.code, 'unexpected');
  assert.equal(r.body.error, 'cannot continue due to new inconsistent metadata');
  assert.equal(r.body.internal[0].type, 'remote_schema', r.text);
  assert.equal((await e.query({ type: 'export_metadata', args: {} })).text, before);
  assert.deepEqual((await e.query({ type: 'get_inconsistent_metadata', args: {} })).body.inconsistent_objects, []);
  await remote.listen();
  assert.deepEqual((await e.graphql('{ ping }')).body, { data: { ping: 'pong' } }, 'the schema fetched before is still served');
});

test('a remote that changed its schema: the reload picks the new one up', async () => {
  const port = Number(new URL(remote.url).port);
  await remote.stop();
  const changed = await startRemoteGraphqlServer('type Query { ping: String bye: String }', { ping: () => 'pong', bye: () => 'ciao' }, port);
  try {
    assert.equal((await e.graphql('{ bye }')).body.errors?.[0]?.extensions?.code, 'validation-failed', 'not known before the reload');
    const r = await e.query({ type: 'reload_remote_schema', args: { name: 'pinger' } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual((await e.graphql('{ bye }')).body, { data: { bye: 'ciao' } });
  } finally {
    await changed.stop();
  }
});
