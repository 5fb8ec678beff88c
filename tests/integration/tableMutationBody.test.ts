/**
 * Over HTTP, an operation of table mutations on one source is answered as bytes assembled around the
 * bytes Postgres sent for each field (api/executeMutation.ts `tableMutationBody`): the body is a
 * Buffer, and its text is exactly what the mutation executor's path answers (over WebSockets, which
 * keeps that path) — keys in order, `__typename`, fields answering `null` or a constant, non-ASCII
 * text; a failure still answers the error with its path and keeps nothing; an operation with an
 * action root field still goes to the executor.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, type TestEngine } from './harness.js';
import { executeGraphql } from '../../src/api/executeGraphql.js';
import { adminSession, roleSession } from '../../src/core/index.js';

let e: TestEngine;
const USER = roleSession('user', { 'x-svc-role': 'user', 'x-svc-user-id': '7' });

before(async () => {
  e = await startTestEngine({ adminSecret: 's' });
  await e.runSql(`
    CREATE TABLE note (id serial PRIMARY KEY, body text NOT NULL, owner int NOT NULL, score int NOT NULL DEFAULT 0);
    CREATE TABLE counter (id int PRIMARY KEY, label text NOT NULL, hits int NOT NULL DEFAULT 0);
    INSERT INTO counter SELECT g, 'seed-' || g, 0 FROM generate_series(1, 20) g;
  `);
  const r = await e.query({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { schema: 'public', name: 'note' } },
      { type: 'track_table', args: { schema: 'public', name: 'counter' } },
      { type: 'create_insert_permission', args: { table: 'note', role: 'user', permission: { check: { owner: { _eq: 'X-Svc-User-Id' } }, columns: '*' } } },
      { type: 'create_select_permission', args: { table: 'note', role: 'user', permission: { filter: {}, columns: '*' } } },
    ],
  });
  assert.equal(r.status, 200, r.text);
  const a = await e.query({
    type: 'set_custom_types',
    args: { objects: [{ name: 'EchoOut', fields: [{ name: 'text', type: 'String!' }] }] },
  });
  assert.equal(a.status, 200, a.text);
  const b = await e.query({
    type: 'create_action',
    args: { name: 'echo', definition: { kind: 'synchronous', type: 'mutation', arguments: [{ name: 'text', type: 'String!' }], output_type: 'EchoOut', handler: 'http://127.0.0.1:9/never-called' } },
  });
  assert.equal(b.status, 200, b.text);
});

after(async () => {
  await e?.stop();
});

const run = (query: string, variables: Record<string, unknown>, transport: 'http' | 'ws', session = adminSession()) =>
  executeGraphql(e.engine.ctx, session, { query, operationName: null, variables }, transport as 'http');

const text = (body: string | Buffer) => (typeof body === 'string' ? body : body.toString('utf8'));

const SEVERAL = `mutation ($body: String!, $id: Int!, $missing: Int!) {
  first: __typename
  insert_note_one(object: {body: $body, owner: 7, score: 3}) { body owner score }
  update_counter_by_pk(pk_columns: {id: $id}, _set: {label: $body}, _inc: {hits: 2}) { id label hits }
  nothing: update_counter_by_pk(pk_columns: {id: $missing}, _set: {label: "x"}) { id }
  empty: update_counter(where: {id: {_eq: $id}}, _set: {}) { affected_rows }
  delete_counter(where: {id: {_eq: $missing}}) { affected_rows returning { id } }
}`;

describe('table mutations answered as bytes', () => {
  it('the HTTP body is a Buffer holding exactly the text the executor answers, in field order', async () => {
    const http = await run(SEVERAL, { body: 'über ✓ "quoted" \\ back', id: 3, missing: 404 }, 'http');
    assert.ok(Buffer.isBuffer(http.body), `answered as bytes: ${text(http.body)}`);
    assert.equal(http.kind, 'mutation');
    const expected = {
      data: {
        first: 'mutation_root',
        insert_note_one: { body: 'über ✓ "quoted" \\ back', owner: 7, score: 3 },
        update_counter_by_pk: { id: 3, label: 'über ✓ "quoted" \\ back', hits: 2 },
        nothing: null,
        empty: { affected_rows: 0 },
        delete_counter: { affected_rows: 0, returning: [] },
      },
    };
    assert.deepEqual(JSON.parse(text(http.body)), expected);
    const ws = await run(SEVERAL, { body: 'über ✓ "quoted" \\ back', id: 3, missing: 404 }, 'ws');
    assert.equal(typeof ws.body, 'string', 'the executor path');
    assert.equal(JSON.parse(text(ws.body)).data.update_counter_by_pk.hits, 4, 'the second run incremented again');
    assert.equal(text(ws.body).replace('"hits":4', '"hits":2'), text(http.body), 'the same text, byte for byte, the counter set aside');
  });

  it('over /v1/graphql the same bytes reach the client', async () => {
    const r = await e.graphql(`mutation { insert_note_one(object: {body: "ç", owner: 7}) { body } }`);
    assert.equal(r.status, 200);
    assert.equal(r.text, '{"data":{"insert_note_one":{"body":"ç"}}}');
    assert.equal(r.headers.get('content-length'), String(Buffer.byteLength(r.text)));
  });

  it('a failed check in a later field answers the error with its path and keeps nothing', async () => {
    const q = `mutation {
      insert_note(objects: [{body: "kept?", owner: 7}]) { affected_rows }
      insert_note_one(object: {body: "refused", owner: 8}) { id }
    }`;
    const r = await run(q, {}, 'http', USER);
    assert.equal(typeof r.body, 'string');
    const body = JSON.parse(text(r.body));
    assert.equal(body.data, undefined, 'as the executor answers: no data');
    assert.equal(body.errors[0].extensions.code, 'permission-error', text(r.body));
    assert.equal(body.errors[0].extensions.path, '$.selectionSet.insert_note_one.args.object');
    const left = await e.graphql('{ note(where: {body: {_eq: "kept?"}}) { id } }');
    assert.deepEqual(left.body.data.note, []);
  });

  it('a role whose statements read the session gets the same bytes (session set in the same pipeline)', async () => {
    const r = await run(`mutation { insert_note_one(object: {body: "mine", owner: 7}) { body owner } }`, {}, 'http', USER);
    assert.ok(Buffer.isBuffer(r.body));
    assert.equal(text(r.body), '{"data":{"insert_note_one":{"body":"mine","owner":7}}}');
  });

  it('an operation with an action root field goes to the executor (its handler is called, and fails here)', async () => {
    const r = await run(`mutation { insert_note_one(object: {body: "with action", owner: 7}) { id } echo(text: "x") { text } }`, {}, 'http');
    assert.equal(typeof r.body, 'string', 'not the bytes path');
    const body = JSON.parse(text(r.body));
    assert.ok(body.errors?.length > 0, text(r.body));
  });
});
