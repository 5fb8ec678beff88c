import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AggregateIR } from '../../../src/ir/index.js';
import { compile, compileAggregate } from '../../../src/sql/index.js';
import { benchShapes } from './benchShapes.js';
import { assertGolden } from './golden.js';

const article = { schema: 'public', name: 'article' };

describe('compileAggregate', () => {
  it('bench d_aggregate', () => assertGolden('bench_d_aggregate', compileAggregate(benchShapes.d_aggregate.aggregate)));

  it('writes only the asked fields, aliases as keys, typenames as literals', () => {
    const ir: AggregateIR = {
      table: article,
      where: { kind: 'true' },
      orderBy: [{ target: { kind: 'column', column: 'id' }, direction: 'desc' }],
      limit: 2,
      fields: [
        { alias: '__typename', kind: 'typename', name: 'article_aggregate' },
        {
          alias: 'agg',
          kind: 'aggregate',
          ops: [
            { alias: 'n', kind: 'count', columns: ['author_id'], distinct: true },
            { alias: 'pairs', kind: 'count', columns: ['author_id', 'title'] },
            { alias: 'mx', kind: 'op', op: 'max', columns: [{ alias: 'id', column: 'id', pgType: 'int4' }, { alias: 'big', column: 'views', pgType: 'int8', stringify: true }, { alias: '__typename', kind: 'typename', name: 'article_max_fields' }] },
          ],
        },
        { alias: 'rows', kind: 'nodes', fields: [{ alias: 'id', kind: 'column', column: 'id', pgType: 'int4' }] },
      ],
    };
    const f = compileAggregate(ir);
    assertGolden('aggregate_fields', f);
    const text = compile(f).text;
    assert.match(text, /^SELECT json_build_object\('__typename', 'article_aggregate'::text, 'agg', json_build_object\('n', count\(DISTINCT \(_t0\."author_id"\)\), 'pairs', count\(\(_t0\."author_id", _t0\."title"\)\), 'mx', json_build_object\('id', max\(_t0\."id"\), 'big', \(max\(_t0\."views"\)\)::text, '__typename', 'article_max_fields'::text\)\), 'rows', coalesce\(json_agg\(.* ORDER BY _t0\."id" DESC\), '\[\]'\)\) AS "root" FROM \(SELECT \* FROM "public"\."article" AS _t0 ORDER BY _t0\."id" DESC LIMIT 2\) AS _t0$/);
  });

  it('reads nodes separately when a permission limit caps only them', () => {
    const ir: AggregateIR = {
      table: article,
      where: { kind: 'true' },
      nodesLimit: 10,
      fields: [
        { alias: 'aggregate', kind: 'aggregate', ops: [{ alias: 'count', kind: 'count' }] },
        { alias: 'nodes', kind: 'nodes', fields: [{ alias: 'id', kind: 'column', column: 'id', pgType: 'int4' }] },
      ],
    };
    assertGolden('aggregate_nodes_limit', compileAggregate(ir));
  });

  it('has no FROM when nothing aggregates (one row whatever the table holds)', () => {
    const text = compile(compileAggregate({ table: article, where: { kind: 'true' }, fields: [{ alias: 't', kind: 'typename', name: 'x' }] })).text;
    assert.equal(text, `SELECT json_build_object('t', 'x'::text) AS "root"`);
  });
});
