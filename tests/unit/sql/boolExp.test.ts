import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { BoolExp, ComparisonOp, IrValue } from '../../../src/ir/index.js';
import { Aliases, compile, compileBoolExp, sql } from '../../../src/sql/index.js';

const t = sql.unsafeRaw('_t0');
const v = (value: unknown, pgType: string): IrValue => ({ source: { kind: 'value', value }, pgType });
const cmp = (op: ComparisonOp, value: IrValue, column = 'c', pgType = 'int4'): BoolExp => ({ kind: 'compare', column: { column, pgType }, op, value });
const text = (e: BoolExp) => compile(compileBoolExp(e, t, { aliases: new Aliases() })).text;

describe('compileBoolExp', () => {
  it('writes each comparison operator with a typed parameter', () => {
    const cases: Array<[ComparisonOp, IrValue, string]> = [
      ['_eq', v(1, 'int4'), '_t0."c" = $1::"int4"'],
      ['_neq', v(1, 'int4'), '_t0."c" <> $1::"int4"'],
      ['_gt', v(1, 'int4'), '_t0."c" > $1::"int4"'],
      ['_lt', v(1, 'int4'), '_t0."c" < $1::"int4"'],
      ['_gte', v(1, 'int4'), '_t0."c" >= $1::"int4"'],
      ['_lte', v(1, 'int4'), '_t0."c" <= $1::"int4"'],
      ['_in', v([1, 2], '_int4'), '_t0."c" = ANY($1::"_int4")'],
      ['_nin', v([1, 2], 'int4[]'), '_t0."c" <> ALL($1::"int4"[])'],
      ['_like', v('a%', 'text'), '_t0."c" LIKE $1::"text"'],
      ['_nlike', v('a%', 'text'), '_t0."c" NOT LIKE $1::"text"'],
      ['_ilike', v('a%', 'text'), '_t0."c" ILIKE $1::"text"'],
      ['_nilike', v('a%', 'text'), '_t0."c" NOT ILIKE $1::"text"'],
      ['_similar', v('a%', 'text'), '_t0."c" SIMILAR TO $1::"text"'],
      ['_nsimilar', v('a%', 'text'), '_t0."c" NOT SIMILAR TO $1::"text"'],
      ['_contains', v({ a: 1 }, 'jsonb'), '_t0."c" @> $1::"jsonb"'],
      ['_contained_in', v({ a: 1 }, 'jsonb'), '_t0."c" <@ $1::"jsonb"'],
      ['_has_key', v('a', 'text'), '_t0."c" ? $1::"text"'],
      ['_has_keys_any', v(['a'], '_text'), '_t0."c" ?| $1::"_text"'],
      ['_has_keys_all', v(['a'], '_text'), '_t0."c" ?& $1::"_text"'],
    ];
    for (const [op, value, want] of cases) assert.equal(text(cmp(op, value)), want, op);
  });

  it('never writes values into the text', () => {
    const c = compile(compileBoolExp(cmp('_eq', v("x' OR true --", 'text')), t));
    assert.equal(c.text, '_t0."c" = $1::"text"');
    assert.deepEqual(c.params, [{ source: { kind: 'value', value: "x' OR true --" }, pgType: 'text' }]);
  });

  it('combines with and/or/not and drops trues', () => {
    const a = cmp('_eq', v(1, 'int4'), 'a');
    const b = cmp('_eq', v(2, 'int4'), 'b');
    assert.equal(text({ kind: 'and', items: [a, { kind: 'true' }, b] }), '(_t0."a" = $1::"int4") AND (_t0."b" = $2::"int4")');
    assert.equal(text({ kind: 'and', items: [{ kind: 'true' }, a] }), '_t0."a" = $1::"int4"');
    assert.equal(text({ kind: 'and', items: [] }), 'true');
    assert.equal(text({ kind: 'or', items: [a, b] }), '((_t0."a" = $1::"int4") OR (_t0."b" = $2::"int4"))');
    assert.equal(text({ kind: 'or', items: [] }), 'false');
    assert.equal(text({ kind: 'not', item: a }), 'NOT (_t0."a" = $1::"int4")');
    assert.equal(text({ kind: 'true' }), 'true');
  });

  it('tests nulls with a literal or a variable flag', () => {
    const column = { column: 'c', pgType: 'text' };
    assert.equal(text({ kind: 'is_null', column, isNull: true }), '_t0."c" IS NULL');
    assert.equal(text({ kind: 'is_null', column, isNull: false }), '_t0."c" IS NOT NULL');
    assert.equal(text({ kind: 'is_null', column, isNull: { source: { kind: 'variable', name: 'n' }, pgType: 'bool' } }), '(_t0."c" IS NULL) = $1::"bool"');
  });

  it('traverses relationships with EXISTS and keeps the root table for $-comparisons', () => {
    const exp: BoolExp = {
      kind: 'exists_rel',
      rel: { remoteTable: { schema: 'public', name: 'author' }, mapping: [{ local: 'author_id', remote: 'id' }] },
      where: {
        kind: 'and',
        items: [
          { kind: 'compare_column', column: { column: 'id', pgType: 'int4' }, op: '_ceq', other: { column: 'owner_id', pgType: 'int4' }, otherIsRoot: true },
          { kind: 'compare_column', column: { column: 'a', pgType: 'int4' }, op: '_cgt', other: { column: 'b', pgType: 'int4' } },
        ],
      },
    };
    const aliases = new Aliases();
    const root = aliases.next();
    assert.equal(
      compile(compileBoolExp(exp, root, { aliases })).text,
      'EXISTS (SELECT 1 FROM "public"."author" AS _t1 WHERE (_t1."id" = _t0."author_id") AND ((_t1."id" = _t0."owner_id") AND (_t1."a" > _t1."b")))',
    );
  });

  it('uses aliases from the given counter, distinct from the outer table', () => {
    const exp: BoolExp = {
      kind: 'exists_rel',
      rel: { remoteTable: { schema: 's', name: 'r' }, mapping: [{ local: 'l', remote: 'x' }] },
      where: cmp('_eq', { source: { kind: 'session', name: 'x-svc-user-id' }, pgType: 'int4' }),
    };
    const aliases = new Aliases();
    aliases.next();
    const c = compile(compileBoolExp(exp, t, { aliases }));
    assert.equal(c.text, 'EXISTS (SELECT 1 FROM "s"."r" AS _t1 WHERE (_t1."x" = _t0."l") AND (_t1."c" = $1::"int4"))');
    assert.deepEqual(c.params[0].source, { kind: 'session', name: 'x-svc-user-id' });
    // Without a counter the EXISTS alias cannot clash with the caller's `_t…` aliases.
    assert.match(compile(compileBoolExp(exp, t)).text, /AS _bet0 WHERE \(_bet0\."x" = _t0\."l"\)/);
  });
});

describe('columns an inherited role sees in only some rows', () => {
  it('reads the column through CASE WHEN <condition> in comparisons, null checks and column comparisons', () => {
    const visibleIf = cmp('_eq', v(7, 'int4'), 'owner');
    const hidden = { column: 'email', pgType: 'text', visibleIf };
    assert.equal(text({ kind: 'compare', column: hidden, op: '_eq', value: v('a', 'text') }), '(CASE WHEN _t0."owner" = $1::"int4" THEN _t0."email" END) = $2::"text"');
    assert.equal(text({ kind: 'is_null', column: hidden, isNull: true }), '(CASE WHEN _t0."owner" = $1::"int4" THEN _t0."email" END) IS NULL');
    assert.equal(
      text({ kind: 'compare_column', column: { column: 'a', pgType: 'text' }, op: '_ceq', other: hidden }),
      '_t0."a" = (CASE WHEN _t0."owner" = $1::"int4" THEN _t0."email" END)',
    );
    assert.equal(text(cmp('_eq', v(1, 'int4'))), '_t0."c" = $1::"int4"', 'a column without a condition is read as before');
  });
});
