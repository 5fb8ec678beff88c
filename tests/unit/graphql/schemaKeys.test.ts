import { test } from 'node:test';
import assert from 'node:assert/strict';
import { prepareSchemaKeys } from '../../../src/graphql/index.js';
import { roleShapeKey, structureKey } from '../../../src/graphql/schema/schemaShape.js';
import { TurnBudget } from '../../../src/lib/index.js';
import { makeCache } from './fixtures.js';

test('prepareSchemaKeys computes the keys\' parts a slice per turn, and the keys are what they are without it', async () => {
  const prepared = makeCache();
  const plain = makeCache();
  assert.notEqual(prepared.tables.get('public.author'), plain.tables.get('public.author'));
  let turns = 0;
  let running = true;
  const tick = () => {
    turns++;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  // A zero-length slice: a turn of the event loop after every table.
  await prepareSchemaKeys(prepared, new TurnBudget(0));
  running = false;
  assert.ok(turns >= prepared.tables.size, `${turns} turns for ${prepared.tables.size} tables`);
  assert.equal(structureKey(prepared), structureKey(plain));
  for (const role of ['user', 'anonymous', 'nobody']) {
    assert.equal(roleShapeKey(prepared, role), roleShapeKey(plain, role), role);
    assert.equal(roleShapeKey(prepared, role, true), roleShapeKey(plain, role, true), role);
  }
});
