/**
 * The mutation compilers' SQL text: one statement per field, data-modifying CTE, values only as
 * parameters, the check column, ON CONFLICT clauses, the jsonb update operators, and the JSON
 * response built in the statement. (Behaviour against a real Postgres: integration/mutationSql.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { BoolExp, InsertIR, IrValue, MutationOutputIR } from '../../../src/ir/index.js';
import { mutationSqlText } from '../../../src/sql/index.js';

const author = { schema: 'public', name: 'author' };
const v = (value: unknown, pgType: string): IrValue => ({ source: { kind: 'value', value }, pgType });
const output: MutationOutputIR = {
  kind: 'response',
  fields: [{ alias: 'affected_rows', kind: 'affected_rows' }, { alias: 'returning', kind: 'returning', fields: [{ alias: 'id', kind: 'column', column: 'id', pgType: 'int4' }] }],
};
const sessionCheck: BoolExp = {
  kind: 'compare', column: { column: 'id', pgType: 'int4' }, op: '_eq', value: { source: { kind: 'session', name: 'x-svc-user-id' }, pgType: 'int4' },
};
const row = (cols: Record<string, IrValue>) => ({
  columns: Object.entries(cols).map(([column, value]) => ({ column, value })), objectRelationships: [], arrayRelationships: [],
});

test('an insert is one statement: INSERT in a CTE, values as parameters, DEFAULT for missing columns', () => {
  const ir: InsertIR = {
    kind: 'insert', table: author, check: { kind: 'true' }, output,
    rows: [row({ name: v("x'); DROP TABLE author; --", 'text') }), row({ id: v(5, 'int4'), name: v('y', 'text') })],
  };
  const { text, params } = mutationSqlText(ir);
  assert.match(text, /^WITH "_svc_m" AS \(INSERT INTO "public"."author" AS "_svc_t" \("name", "id"\) VALUES \(\$1::"text", DEFAULT\), \(\$2::"text", \$3::"int4"\)/);
  assert.ok(!text.includes('DROP TABLE'));
  assert.equal(params.length, 3);
  assert.match(text, /RETURNING \*, NULL::text AS "svc_check"/);
  assert.match(text, /\) SELECT json_build_object\('affected_rows', \(SELECT count\(\*\) FROM "_svc_m"\), 'returning', /);
});

test('a check becomes the row check column, which raises check_violation with Hasura\'s message for a failing row', () => {
  const ir: InsertIR = { kind: 'insert', table: author, check: sessionCheck, output, rows: [row({ id: v(1, 'int4') })] };
  const { text, params } = mutationSqlText(ir);
  assert.match(text, /CASE WHEN "_svc_t"."id" = \$2::"int4" THEN NULL ELSE hdb_catalog.svc_check_violation\('insert\/update check constraint failed'\) END AS "svc_check"/);
  assert.match(text, /\) SELECT json_build_object\('affected_rows', /);
  assert.deepEqual(params[1].source, { kind: 'session', name: 'x-svc-user-id' });
});

test('upserts: DO NOTHING on a constraint; DO UPDATE with EXCLUDED values, presets, the filter, and insert-or-update checks', () => {
  const base: InsertIR = { kind: 'insert', table: author, check: sessionCheck, output, rows: [row({ id: v(1, 'int4'), name: v('n', 'text') })] };
  const nothing = mutationSqlText({ ...base, onConflict: { action: 'nothing', target: { kind: 'constraint', name: 'author_pkey' } } }).text;
  assert.match(nothing, /ON CONFLICT ON CONSTRAINT "author_pkey" DO NOTHING RETURNING/);
  const update = mutationSqlText({
    ...base,
    updateCheck: { kind: 'is_null', column: { column: 'name', pgType: 'text' }, isNull: false },
    onConflict: {
      action: 'update', target: { kind: 'columns', columns: ['id'] }, columns: ['name'],
      presets: [{ column: 'is_registered', value: v(false, 'bool') }], where: sessionCheck,
    },
  }).text;
  assert.match(update, /ON CONFLICT \("id"\) DO UPDATE SET "name" = EXCLUDED."name", "is_registered" = \$\d+::"bool" WHERE "_svc_t"."id" = \$\d+::"int4"/);
  assert.match(update, /CASE WHEN "_svc_t"."xmax" = 0 THEN CASE WHEN .* THEN NULL ELSE hdb_catalog.svc_check_violation\('insert\/update check constraint failed'\) END ELSE CASE WHEN "_svc_t"."name" IS NOT NULL THEN NULL ELSE hdb_catalog.svc_check_violation\('update check constraint failed'\) END END/);
});

test('update operators and delete', () => {
  const upd = mutationSqlText({
    kind: 'update', table: author, where: sessionCheck, output,
    set: [
      { column: 'name', op: { kind: 'set', value: v('n', 'text') } },
      { column: 'n', op: { kind: 'inc', value: v(2, 'int4') } },
      { column: 'j', op: { kind: 'prepend', value: v({ a: 1 }, 'jsonb') } },
      { column: 'k', op: { kind: 'delete_at_path', value: v(['a', '0'], '_text') } },
      { column: 'd', op: { kind: 'default' } },
    ],
  }).text;
  assert.match(upd, /^WITH "_svc_m" AS \(UPDATE "public"."author" AS "_svc_t" SET "name" = \$1::"text", "n" = "_svc_t"."n" \+ \$2::"int4", "j" = \$3::"jsonb" \|\| "_svc_t"."j", "k" = "_svc_t"."k" #- \$4::"_text", "d" = DEFAULT WHERE "_svc_t"."id" = \$5::"int4" RETURNING \*, NULL::text AS "svc_check"\)/);
  const del = mutationSqlText({ kind: 'delete', table: author, where: { kind: 'true' }, output: { kind: 'single', fields: [{ alias: 'id', kind: 'column', column: 'id', pgType: 'int4' }] } }).text;
  assert.match(del, /^WITH "_svc_m" AS \(DELETE FROM "public"."author" AS "_svc_t" RETURNING \*\) SELECT \(SELECT .* FROM "_svc_m" AS "_svc_r" LIMIT 1\)$/);
});
