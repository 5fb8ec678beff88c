/**
 * The console's explain-plan parser (console/src/explainPlan.ts, drawn as a tree by Analyze in
 * GraphiQL) on real plans: what /v1/graphql/explain answers from Postgres, with and without
 * ANALYZE, for a query with a relationship, an aggregate and a filter.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine } from './harness.js';
import { parsePlan, type PlanNode } from '../../console/src/explainPlan.js';

const all = (nodes: PlanNode[]): PlanNode[] => nodes.flatMap((n) => [n, ...all(n.children)]);

test('explain plans from Postgres parse into a tree of typed nodes', async (t) => {
  const e = await startTestEngine({ adminSecret: 'adm' });
  t.after(() => e.stop());
  await e.runSql(`CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL);
    CREATE TABLE article (id serial PRIMARY KEY, title text NOT NULL, author_id int REFERENCES author (id));
    INSERT INTO author (name) SELECT 'a' || g FROM generate_series(1, 50) g;
    INSERT INTO article (title, author_id) SELECT 't' || g, 1 + g % 50 FROM generate_series(1, 200) g;`);
  const r = await e.query({ type: 'bulk', args: [
    { type: 'track_table', args: { table: 'author' } },
    { type: 'track_table', args: { table: 'article' } },
    { type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } },
  ] });
  assert.equal(r.status, 200, r.text);
  const query = '{ author(where: {name: {_like: "a1%"}}) { name articles(order_by: {id: asc}) { title } } author_aggregate { aggregate { count } } }';

  for (const analyze of [false, true]) {
    const res = await e.request('POST', '/v1/graphql/explain', { query: { query }, analyze });
    assert.equal(res.status, 200, res.text);
    const fields = res.body as Array<{ field: string; plan: string[] }>;
    assert.deepEqual(fields.map((f) => f.field), ['author', 'author_aggregate']);
    for (const f of fields) {
      const plan = parsePlan(f.plan);
      assert.equal(plan.roots.length, 1, `${f.field}: one root\n${f.plan.join('\n')}`);
      const nodes = all(plan.roots);
      // Every line that is a plan node became a node; nothing is lost.
      const nodeLines = f.plan.filter((l) => /\(cost=/.test(l)).length;
      assert.equal(nodes.length, nodeLines, f.plan.join('\n'));
      assert.ok(nodes.every((n) => n.type.length > 0 && !n.type.startsWith('->') && n.cost.total >= n.cost.startup), JSON.stringify(nodes));
      assert.ok(nodes.some((n) => n.relation === 'author'), `${f.field} scans author\n${f.plan.join('\n')}`);
      if (analyze) {
        assert.ok(nodes.filter((n) => !n.neverExecuted).every((n) => n.actual && n.actual.loops >= 1), 'actual figures on every executed node');
        assert.ok(plan.summary.some((s) => s.startsWith('Execution Time:')), plan.summary.join(' | '));
      } else {
        assert.ok(nodes.every((n) => n.actual === undefined));
      }
      if (f.field === 'author') {
        assert.ok(nodes.some((n) => n.relation === 'article'), 'the relationship reads article');
        assert.ok(nodes.some((n) => n.details.some((d) => /^Filter: .*name.*~~/.test(d))), 'the _like filter stays with its scan');
        assert.ok(nodes.some((n) => n.label?.startsWith('SubPlan') || n.children.length > 0), 'nested');
      }
    }
  }
});

test('plan lines of other shapes: never executed, InitPlan labels, index scans with aliases', () => {
  const plan = parsePlan([
    'Result  (cost=8.17..8.18 rows=1 width=32) (actual time=0.020..0.021 rows=1 loops=1)',
    '  InitPlan 1 (returns $0)',
    '    ->  Index Scan using author_pkey on author a  (cost=0.15..8.17 rows=1 width=32) (never executed)',
    '          Index Cond: (id = 3)',
    'Planning Time: 0.050 ms',
    'Execution Time: 0.040 ms',
  ]);
  assert.equal(plan.roots.length, 1);
  const [scan] = plan.roots[0].children;
  assert.deepEqual({ type: scan.type, index: scan.index, relation: scan.relation, alias: scan.alias, label: scan.label, never: scan.neverExecuted, details: scan.details },
    { type: 'Index Scan', index: 'author_pkey', relation: 'author', alias: 'a', label: 'InitPlan 1 (returns $0)', never: true, details: ['Index Cond: (id = 3)'] });
  assert.deepEqual(plan.roots[0].actual, { startup: 0.02, total: 0.021, rows: 1, loops: 1 });
  assert.deepEqual(plan.summary, ['Planning Time: 0.050 ms', 'Execution Time: 0.040 ms']);
});
