/**
 * Dropping or untracking a table that a custom type's relationship points to: refused with a
 * 4xx (never a 500), metadata unchanged; after the custom types let go of it, it goes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine } from './harness.js';

test('a table used by a custom-type relationship cannot be untracked or dropped from under it', async () => {
  const e = await startTestEngine({ adminSecret: 'k' });
  try {
    await e.runSql('CREATE TABLE "user" (id int PRIMARY KEY)');
    assert.equal((await e.query({ type: 'track_table', args: { schema: 'public', name: 'user' } })).status, 200);
    const types = { objects: [{ name: 'O', fields: [{ name: 'id', type: 'Int!' }], relationships: [{ name: 'u', type: 'object', remote_table: 'user', field_mapping: { id: 'id' } }] }] };
    assert.equal((await e.query({ type: 'set_custom_types', args: types })).status, 200);
    const before = (await e.query({ type: 'export_metadata', args: {} })).text;
    const untrack = await e.query({ type: 'untrack_table', args: { table: 'user' } });
    assert.ok(untrack.status >= 400 && untrack.status < 500, untrack.text);
    const drop = await e.query({ type: 'run_sql', args: { sql: 'DROP TABLE "user"' } });
    assert.ok(drop.status >= 400 && drop.status < 500, drop.text);
    for (const r of [untrack, drop]) assert.equal(r.body.internal?.[0]?.type, 'custom_types', r.text);
    assert.equal((await e.query({ type: 'export_metadata', args: {} })).text, before);
    assert.equal((await e.query({ type: 'set_custom_types', args: {} })).status, 200);
    assert.equal((await e.query({ type: 'untrack_table', args: { table: 'user' } })).status, 200);
  } finally {
    await e.stop();
  }
});
