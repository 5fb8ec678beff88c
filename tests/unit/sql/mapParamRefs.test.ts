import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mapParamRefs } from '../../../src/sql/index.js';

test('mapParamRefs rewrites $n outside quotes only', () => {
  const text = `SELECT '$1' AS "$2", x = $1::"int4", y = $12 FROM t WHERE a = 'it''s $3' AND b = $2`;
  assert.equal(
    mapParamRefs(text, (i) => `(v->>${i})`),
    `SELECT '$1' AS "$2", x = (v->>0)::"int4", y = (v->>11) FROM t WHERE a = 'it''s $3' AND b = (v->>1)`,
  );
  assert.equal(mapParamRefs('SELECT a$1 FROM t', () => 'X'), 'SELECT a$1 FROM t');
});
