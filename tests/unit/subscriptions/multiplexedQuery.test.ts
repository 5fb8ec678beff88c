import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cohortVariables, multiplexedStatement } from '../../../src/subscriptions/index.js';
import { compile, sql } from '../../../src/sql/index.js';
import { roleSession } from '../../../src/core/index.js';

const field = {
  alias: 'a"b',
  ...compile(sql`SELECT json_agg(x) AS "root" FROM t WHERE id = ${sql.param(sql.variable('id'), 'int4')} AND owner = ${sql.param(sql.session('x-svc-user-id'), 'text')} AND tags && ${sql.value(['x', 'y"z'], '_text')}`),
};

test('the multiplexed statement reads every parameter from the cohort row', () => {
  const text = multiplexedStatement(field);
  assert.match(text, /^SELECT "_subs"\."result_id", '\{"a\\"b":' \|\| coalesce\("_fld"\."root"::text, 'null'\) \|\| '\}' AS "result"/);
  assert.match(text, /FROM unnest\(\$1::"_uuid", \$2::"_json"\) AS "_subs"\("result_id", "result_vars"\)/);
  assert.match(text, /id = \("_subs"\."result_vars"->>0\)::"int4" AND owner = \("_subs"\."result_vars"->>1\)::"text" AND tags && \("_subs"\."result_vars"->>2\)::"_text"/);
  assert.match(text, /LEFT OUTER JOIN LATERAL \(.*\) AS "_fld"\("root"\) ON true$/s);
  assert.doesNotMatch(text, /\$3/);
  assert.equal(multiplexedStatement(field), text, 'memoised');
});

test('cohort variables: every parameter as Postgres text, session variables included', () => {
  const s = roleSession('user', { 'x-svc-user-id': '7' });
  assert.equal(cohortVariables(field, { id: 5 }, s), JSON.stringify(['5', '7', '{"x","y\\"z"}']));
  assert.equal(cohortVariables(field, { id: null }, s), JSON.stringify([null, '7', '{"x","y\\"z"}']));
  assert.throws(() => cohortVariables(field, { id: 5 }, roleSession('user', {})), /x-svc-user-id/);
});
