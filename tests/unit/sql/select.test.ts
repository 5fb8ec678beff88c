/**
 * compileSelect / compileRowJson: golden SQL for the bench shapes and each feature, plus the
 * properties the engine relies on (one json column, literal limits, unique aliases, json not jsonb).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { OrderByItem, SelectField, SelectIR } from '../../../src/ir/index.js';
import { compile, compileRowJson, compileSelect, sql } from '../../../src/sql/index.js';
import { benchShapes } from './benchShapes.js';
import { assertGolden } from './golden.js';

const t = (name: string) => ({ schema: 'public', name });
const col = (column: string, pgType = 'int4', alias = column): SelectField => ({ alias, kind: 'column', column, pgType });
const select = (name: string, fields: SelectField[], rest: Partial<SelectIR> = {}): SelectIR => ({ table: t(name), fields, where: { kind: 'true' }, ...rest });
const articleToAuthor = { remoteTable: t('author'), mapping: [{ local: 'author_id', remote: 'id' }] };
const authorToArticles = { remoteTable: t('article'), mapping: [{ local: 'id', remote: 'author_id' }] };

describe('compileSelect: bench shapes', () => {
  for (const [name, shape] of Object.entries(benchShapes)) {
    if (!('ir' in shape)) continue;
    it(name, () => assertGolden(`bench_${name}`, compileSelect(shape.ir, { single: 'single' in shape && shape.single })));
  }
});

describe('compileSelect', () => {
  it('writes numeric limits and offsets as literals, variables as parameters', () => {
    const lit = compile(compileSelect(select('track', [col('id')], { limit: 10, offset: 5 })));
    assert.match(lit.text, / LIMIT 10 OFFSET 5\)/);
    assert.deepEqual(lit.params, []);
    const param = compile(compileSelect(select('track', [col('id')], { limit: { source: { kind: 'variable', name: 'l' }, pgType: 'int4' } })));
    assert.match(param.text, / LIMIT \$1::"int4"\)/);
  });

  it('returns one json column named root, built with json (never jsonb) functions', () => {
    for (const f of [compileSelect(benchShapes.c_nested_3.ir), compileSelect(benchShapes.a_by_pk.ir, { single: true })]) {
      const text = compile(f).text;
      assert.match(text, /^SELECT coalesce\(.*\) AS "root"( FROM .*)?$/);
      assert.doesNotMatch(text, /jsonb/);
    }
  });

  it('gives every table and subquery its own alias', () => {
    const text = compile(compileSelect(benchShapes.f_object_rels.ir, { single: true })).text;
    const defined = [...text.matchAll(/ AS (_[tj]\d+)/g)].map((m) => m[1]);
    const perDerivedTable = new Map<string, number>();
    for (const a of defined) perDerivedTable.set(a, (perDerivedTable.get(a) ?? 0) + 1);
    // A table alias names the table inside its derived table and the derived table itself: twice, never more.
    for (const [a, n] of perDerivedTable) assert.ok(n <= 2, `${a} defined ${n} times`);
    assert.equal(new Set(defined.filter((a) => a.startsWith('_j'))).size, defined.filter((a) => a.startsWith('_j')).length);
  });

  it('orders through an object relationship, carrying the key to json_agg', () => {
    const byAuthorName: OrderByItem = {
      target: { kind: 'object_rel', join: articleToAuthor, filter: { kind: 'compare', column: { column: 'is_registered', pgType: 'bool' }, op: '_eq', value: { source: { kind: 'value', value: true }, pgType: 'bool' } }, target: { kind: 'column', column: 'name' } },
      direction: 'desc',
      nulls: 'last',
    };
    const f = compileSelect(select('article', [col('id')], { orderBy: [byAuthorName, { target: { kind: 'column', column: 'id' }, direction: 'asc' }], limit: 5 }));
    assertGolden('order_by_object_rel', f);
    assert.match(compile(f).text, /json_agg\(.* ORDER BY _t0\."__svc_ob_0" DESC NULLS LAST, _t0\."id" ASC\)/);
  });

  it('orders by an array-relationship aggregate and joins a repeated path once', () => {
    const count: OrderByItem = { target: { kind: 'array_agg', join: authorToArticles, filter: { kind: 'true' }, agg: { op: 'count' } }, direction: 'desc' };
    const maxId: OrderByItem = { target: { kind: 'array_agg', join: authorToArticles, filter: { kind: 'true' }, agg: { op: 'max', column: 'id' } }, direction: 'asc' };
    const f = compileSelect(select('author', [col('id')], { orderBy: [count, maxId, count] }));
    assertGolden('order_by_array_aggregate', f);
    assert.equal(compile(f).text.match(/LEFT JOIN LATERAL/g)?.length, 2);
  });

  it('puts distinct_on columns first in ORDER BY', () => {
    const f = compileSelect(select('employee', [col('id')], { distinctOn: ['department'], orderBy: [{ target: { kind: 'column', column: 'salary' }, direction: 'asc' }] }));
    assert.match(compile(f).text, /SELECT DISTINCT ON \(_t0\."department"\) \* FROM "public"\."employee" AS _t0 ORDER BY _t0\."department" ASC, _t0\."salary" ASC\)/);
    const already = compileSelect(select('employee', [col('id')], { distinctOn: ['department'], orderBy: [{ target: { kind: 'column', column: 'department' }, direction: 'desc' }] }));
    assert.match(compile(already).text, /ORDER BY _t0\."department" DESC\)/);
    assertGolden('distinct_on', f);
  });

  it('writes json paths, stringified numbers, typenames and PostGIS values', () => {
    const f = compileSelect(
      select('t', [
        { alias: 'p', kind: 'column', column: 'doc', pgType: 'jsonb', jsonPath: ['objs', '0', '你好'] },
        { alias: 'whole', kind: 'column', column: 'doc', pgType: 'jsonb', jsonPath: [] },
        { alias: 'big', kind: 'column', column: 'big', pgType: 'int8', stringify: true },
        { alias: 'geo', kind: 'column', column: 'geom', pgType: 'geometry' },
        { alias: '__typename', kind: 'typename', name: "t'x" },
      ]),
    );
    const c = compile(f);
    assert.match(c.text, /\(_t0\."doc" #> \$1::"text"\[\]\) AS "p", _t0\."doc" AS "whole", \(_t0\."big"\)::text AS "big", ST_AsGeoJSON\(_t0\."geom", 15, 4\)::json AS "geo", 't''x'::text AS "__typename"/);
    assert.deepEqual(c.params[0].source, { kind: 'value', value: ['objs', '0', '你好'] });
  });

  it('uses json_build_object for aliases past 63 bytes, in chunks of 50 keys', () => {
    const fields = Array.from({ length: 60 }, (_, i) => col('id', 'int4', i === 0 ? 'x'.repeat(64) : `k${i}`));
    const text = compile(compileSelect(select('a', fields))).text;
    assert.match(text, /^SELECT coalesce\(json_agg\(\(left\(json_build_object\('x{64}', _t0\."id", /);
    assert.equal(text.match(/json_build_object\(/g)?.length, 2);
    assert.match(text, / \|\| ',' \|\| substr\(json_build_object\('k50', _t0\."id"/);
  });

  it('calls computed fields with the row and keeps the row type under relationship ordering', () => {
    const byCount: OrderByItem = { target: { kind: 'array_agg', join: authorToArticles, filter: { kind: 'true' }, agg: { op: 'count' } }, direction: 'asc' };
    const fields: SelectField[] = [
      { alias: 'full_name', kind: 'computed_scalar', function: t('author_full_name'), pgType: 'text', tableArg: 0, args: [] },
      {
        alias: 'get_articles',
        kind: 'computed_table',
        function: t('author_get_articles'),
        tableArg: 0,
        sessionArg: 2,
        args: [{ value: { source: { kind: 'variable', name: 's' }, pgType: 'text' } }, { name: 'lim', value: { source: { kind: 'value', value: 3 }, pgType: 'int4' } }],
        select: select('article', [col('id')]),
      },
    ];
    const f = compileSelect(select('author', fields, { orderBy: [byCount], limit: 2 }));
    assertGolden('computed_fields', f);
    const text = compile(f).text;
    assert.match(text, /"public"\."author_get_articles"\(_t0, \$1::"text", \$2::"json", "lim" => \$3::"int4"\)/);
    assert.doesNotMatch(text, /__svc_ob_/);
  });

  it('reads from a function source', () => {
    const ir: SelectIR = { ...select('article', [col('id')]), source: { function: t('search_articles'), args: [{ value: { source: { kind: 'variable', name: 'q' }, pgType: 'text' } }], sessionArg: 0 } };
    assert.match(compile(compileSelect(ir)).text, /FROM \(SELECT \* FROM "public"\."search_articles"\(\$1::"json", \$2::"text"\) AS _t0\) AS _t0$/);
  });
});

describe('compileRowJson', () => {
  it('writes relationships as correlated scalar subqueries over the caller row', () => {
    const f = compileRowJson(
      [col('id'), { alias: 'author', kind: 'object_rel', join: articleToAuthor, select: select('author', [col('name', 'text')]) }],
      sql.ident('_svc_r'),
    );
    assertGolden('row_json_scalar', f);
    assert.match(compile(f).text, /^row_to_json\(\(SELECT _r FROM \(SELECT "_svc_r"\."id" AS "id", \(SELECT .* WHERE _mt0\."id" = "_svc_r"\."author_id"\) AS _mt0\) AS "author"\) AS _r\)\)$/);
  });
});
