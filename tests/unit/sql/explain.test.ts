import { it } from 'node:test';
import assert from 'node:assert/strict';
import { compile, compileSelect, explain } from '../../../src/sql/index.js';
import { benchShapes } from './benchShapes.js';

it('wraps a statement in EXPLAIN and keeps its parameters', () => {
  const stmt = compile(compileSelect(benchShapes.b_list_filter.ir));
  const c = compile(explain(compileSelect(benchShapes.b_list_filter.ir)));
  assert.equal(c.text, `EXPLAIN (FORMAT TEXT) ${stmt.text}`);
  assert.deepEqual(c.params, stmt.params);
  assert.match(compile(explain(compileSelect(benchShapes.b_list_filter.ir), { analyze: true })).text, /^EXPLAIN \(ANALYZE, FORMAT TEXT\) SELECT/);
});
