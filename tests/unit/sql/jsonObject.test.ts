import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Aliases, compile, sql } from '../../../src/sql/index.js';
import { jsonBuildObject, rowObject, rowToJson } from '../../../src/sql/jsonObject.js';

const e = (key: string) => ({ key, value: sql`1` });

describe('row objects', () => {
  it('are records with quoted aliases while keys fit in an identifier', () => {
    const r = rowObject([e('a'), e('we"ird')]);
    assert.equal(r.json, false);
    assert.equal(compile(r.expr).text, '(SELECT _r FROM (SELECT 1 AS "a", 1 AS "we""ird") AS _r)');
    assert.equal(compile(rowToJson(r)).text, 'row_to_json((SELECT _r FROM (SELECT 1 AS "a", 1 AS "we""ird") AS _r))');
  });

  it('switch to json_build_object with escaped literal keys for long keys', () => {
    const long = "it's".padEnd(64, 'x');
    const r = rowObject([e(long)]);
    assert.equal(r.json, true);
    assert.equal(compile(r.expr).text, `json_build_object('it''s${'x'.repeat(60)}', 1)`);
    assert.equal(compile(rowToJson(r)).text, compile(r.expr).text);
  });

  it('concatenate chunks of 50 pairs past json_build_object’s 100 arguments', () => {
    const text = compile(jsonBuildObject(Array.from({ length: 120 }, (_, i) => e(`k${i}`)))).text;
    assert.equal(text.match(/json_build_object\(/g)?.length, 3);
    assert.match(text, /^\(left\(json_build_object\('k0', 1, .*'k49', 1\)::text, -1\) \|\| ',' \|\| substr\(left\(json_build_object\('k50', 1, .*'k99', 1\)::text, -1\), 2\) \|\| ',' \|\| substr\(json_build_object\('k100', 1, .*\)::text, 2\)\)::json$/);
    assert.equal(compile(jsonBuildObject([])).text, 'json_build_object()');
  });
});

describe('Aliases', () => {
  it('counts up per statement with a kind letter, and rejects odd prefixes', () => {
    const a = new Aliases();
    assert.deepEqual([a.next(), a.next('j'), a.next()].map((f) => compile(f).text), ['_t0', '_j1', '_t2']);
    assert.equal(compile(new Aliases('_m').next()).text, '_mt0');
    assert.throws(() => new Aliases('x"; --'));
  });
});
