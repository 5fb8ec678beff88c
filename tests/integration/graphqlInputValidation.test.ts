/**
 * GraphQL input is checked before any SQL runs: variables and literals of every scalar
 * the engine exposes are coerced per the GraphQL spec (Int is 32-bit, Boolean is a boolean...) and
 * the Postgres scalars are checked the way Postgres would parse them (uuid, dates and times,
 * numeric, bigint, arrays...), so bad input is `validation-failed` at the variable's path, never a
 * `data-exception` from Postgres. Also: object relationships are typed as Hasura v1.3 types them.
 * Every request goes over real HTTP (or WebSocket) to a real engine on a real Postgres. That the
 * check runs before SQL shows in the code (`validation-failed`, where Postgres would answer
 * `data-exception`) and in mutations: a bad value in a later object leaves no row behind.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, type TestEngine } from './harness.js';
import { TestSocket } from './subscriptionsClient.js';

let e: TestEngine;

before(async () => {
  e = await startTestEngine({ adminSecret: 'adm' });
  await e.runSql(`
    CREATE TYPE mood AS ENUM ('happy', 'sad');
    CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL);
    CREATE TABLE article (id serial PRIMARY KEY, title text, author_id int NOT NULL REFERENCES author(id),
      editor_id int REFERENCES author(id), reviewer_id int NOT NULL);
    CREATE TABLE thing (id serial PRIMARY KEY, u uuid, d date, ts timestamptz, tsl timestamp, t time, tz timetz,
      iv interval, n numeric, b bigint, s smallint, f8 float8, r real, flag boolean, j jsonb, tags text[], nums int[], m mood);
    INSERT INTO author (name) VALUES ('A1'), ('A2');
    INSERT INTO article (title, author_id, editor_id, reviewer_id) VALUES ('T1', 1, NULL, 1), ('T2', 2, 1, 99);
    INSERT INTO thing (u, d, ts, n, b, tags, m) VALUES ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '2020-02-29', '2020-01-01T00:00:00Z',
      12345678901234567890.123456789, 9007199254740993, '{x,y}', 'happy');
  `);
  const r = await e.query({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { name: 'author' } },
      { type: 'track_table', args: { name: 'article' } },
      { type: 'track_table', args: { name: 'thing' } },
      { type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
      { type: 'create_object_relationship', args: { table: 'article', name: 'editor', using: { foreign_key_constraint_on: 'editor_id' } } },
      // manual, over a NOT NULL column: the target row may still be missing (reviewer 99 does not exist)
      { type: 'create_object_relationship', args: { table: 'article', name: 'reviewer', using: { manual_configuration: { remote_table: 'author', column_mapping: { reviewer_id: 'id' } } } } },
      // manual, with the same columns as a real foreign key: still nullable (Hasura: isManual || isNullable)
      { type: 'create_object_relationship', args: { table: 'article', name: 'author_manual', using: { manual_configuration: { remote_table: 'author', column_mapping: { author_id: 'id' } } } } },
    ],
  });
  assert.equal(r.status, 200, r.text);
});

after(async () => {
  await e?.stop();
});

/** The error of a /v1/graphql answer (HTTP 200, one error). */
async function gqlError(query: string, variables?: Record<string, unknown>): Promise<{ code: string; path: string; message: string }> {
  const r = await e.graphql(query, variables);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.errors?.length, 1, r.text);
  assert.equal(r.body.data, undefined, r.text);
  const err = r.body.errors[0];
  return { code: err.extensions.code, path: err.extensions.path, message: err.message };
}

async function gqlData(query: string, variables?: Record<string, unknown>): Promise<any> {
  const r = await e.graphql(query, variables);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.errors, undefined, r.text);
  return r.body.data;
}

describe('object relationships are typed as Hasura v1.3 types them', () => {
  it('FK over NOT NULL columns → non-null; FK over a nullable column → nullable; manual → always nullable', async () => {
    const data = await gqlData('{ __type(name: "article") { fields { name type { kind name ofType { name } } } } }');
    const byName = Object.fromEntries(data.__type.fields.map((f: any) => [f.name, f.type]));
    assert.deepEqual(byName.author, { kind: 'NON_NULL', name: null, ofType: { name: 'author' } });
    assert.deepEqual(byName.editor, { kind: 'OBJECT', name: 'author', ofType: null });
    assert.deepEqual(byName.reviewer, { kind: 'OBJECT', name: 'author', ofType: null });
    assert.deepEqual(byName.author_manual, { kind: 'OBJECT', name: 'author', ofType: null });
  });
  it('a manual relationship whose target row is missing answers null (no error)', async () => {
    const data = await gqlData('{ article(order_by: {id: asc}) { id reviewer { name } editor { name } author_manual { name } } }');
    assert.deepEqual(data.article, [
      { id: 1, reviewer: { name: 'A1' }, editor: null, author_manual: { name: 'A1' } },
      { id: 2, reviewer: null, editor: { name: 'A1' }, author_manual: { name: 'A2' } },
    ]);
  });
});

const V = '$.variableValues';

describe('variables and literals are coerced before any SQL runs', () => {
  it('{"id": "abc"} for an Int! variable is validation-failed at $.variableValues.id (not a data-exception)', async () => {
    assert.deepEqual(await gqlError('query ($id: Int!) { author_by_pk(id: $id) { name } }', { id: 'abc' }),
      { code: 'validation-failed', path: `${V}.id`, message: 'expected a 32-bit integer for type "Int", but found a string' });
    // also on a plan-cache hit: the same document first succeeds, then refuses the bad value
    assert.deepEqual(await gqlData('query ($id: Int!) { author_by_pk(id: $id) { name } }', { id: 1 }), { author_by_pk: { name: 'A1' } });
    assert.equal((await gqlError('query ($id: Int!) { author_by_pk(id: $id) { name } }', { id: 1.5 })).path, `${V}.id`);
  });

  it('Int is 32-bit: limit 2147483648 (literal or variable) and out-of-range Int values are refused', async () => {
    const oob = 'The value 2147483648 lies outside the bounds or is not an integer. Maybe it is a float, or is there integer overflow?';
    assert.deepEqual(await gqlError('{ author(limit: 2147483648) { id } }'),
      { code: 'validation-failed', path: '$.selectionSet.author.args.limit', message: oob });
    assert.deepEqual(await gqlError('query ($l: Int) { author(limit: $l) { id } }', { l: 2147483648 }),
      { code: 'validation-failed', path: `${V}.l`, message: oob });
    assert.deepEqual(await gqlError('{ author(where: {id: {_eq: 2147483648}}) { id } }'),
      { code: 'validation-failed', path: '$.selectionSet.author.args.where.id._eq', message: oob });
    assert.deepEqual(await gqlData('{ author(limit: 2147483647, order_by: {id: asc}) { id } }'), { author: [{ id: 1 }, { id: 2 }] });
  });

  it('String, Boolean and Float take only their own JSON kinds', async () => {
    assert.deepEqual(await gqlError('query ($n: String) { author(where: {name: {_eq: $n}}) { id } }', { n: 5 }),
      { code: 'validation-failed', path: `${V}.n`, message: 'expected a string for type "String", but found a number' });
    assert.deepEqual(await gqlError('{ thing(where: {flag: {_eq: "true"}}) { id } }'),
      { code: 'validation-failed', path: '$.selectionSet.thing.args.where.flag._eq', message: 'expected a boolean for type "Boolean", but found a string' });
    assert.equal((await gqlError('query ($r: Float) { thing(where: {r: {_gt: $r}}) { id } }', { r: '1.5' })).message,
      'expected a float for type "Float", but found a string');
  });

  it('uuid, date, timestamptz, time, interval: what Postgres would refuse is validation-failed', async () => {
    const cases: Array<[string, Record<string, unknown>, string, string]> = [
      ['query ($v: uuid) { thing(where: {u: {_eq: $v}}) { id } }', { v: 'abc' }, `${V}.v`, 'expected a UUID for type "uuid", but found "abc"'],
      ['query ($v: date) { thing(where: {d: {_eq: $v}}) { id } }', { v: '2021-02-30' }, `${V}.v`, 'expected a date (YYYY-MM-DD) for type "date", but found "2021-02-30"'],
      ['query ($v: timestamptz) { thing(where: {ts: {_lt: $v}}) { id } }', { v: 'yesterday-ish' }, `${V}.v`,
        'expected a timestamp with time zone (ISO 8601: YYYY-MM-DD[THH:MM:SS][±HH:MM]) for type "timestamptz", but found "yesterday-ish"'],
      ['query ($v: time) { thing(where: {t: {_eq: $v}}) { id } }', { v: '25:00' }, `${V}.v`, 'expected a time of day (HH:MM[:SS]) for type "time", but found "25:00"'],
      ['query ($v: interval) { thing(where: {iv: {_eq: $v}}) { id } }', { v: '1 fortnight' }, `${V}.v`,
        `expected an interval (e.g. '1 day 02:00:00', 'P1DT2H') for type "interval", but found "1 fortnight"`],
      ['query ($v: [uuid!]) { thing(where: {u: {_in: $v}}) { id } }', { v: ['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 'nope'] }, `${V}.v[1]`,
        'expected a UUID for type "uuid", but found "nope"'],
    ];
    for (const [query, variables, path, message] of cases) {
      assert.deepEqual(await gqlError(query, variables), { code: 'validation-failed', path, message }, query);
    }
    // valid values of the same types are accepted and match
    const data = await gqlData(`{ thing(where: {u: {_eq: "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11"}, d: {_eq: "2020-02-29"},
      ts: {_eq: "2020-01-01 01:00:00+01"}}) { id } }`);
    assert.deepEqual(data, { thing: [{ id: 1 }] });
  });

  it('numeric and bigint keep their precision; bad numeric text is refused', async () => {
    assert.deepEqual(await gqlData('query ($n: numeric, $b: bigint) { thing(where: {n: {_eq: $n}, b: {_eq: $b}}) { id } }',
      { n: '12345678901234567890.123456789', b: '9007199254740993' }), { thing: [{ id: 1 }] });
    assert.deepEqual(await gqlData('{ thing(where: {b: {_eq: 9007199254740993}}) { id } }'), { thing: [{ id: 1 }] });
    // a JSON number variable with more digits than a double holds keeps them all (sent as raw JSON text)
    const raw = await e.request('POST', '/v1/graphql',
      '{"query": "query ($b: bigint, $n: numeric) { thing(where: {b: {_eq: $b}, n: {_eq: $n}}) { id } }", "variables": {"b": 9007199254740993, "n": 12345678901234567890.123456789}}',
      { 'content-type': 'application/json' });
    assert.deepEqual(raw.body, { data: { thing: [{ id: 1 }] } }, raw.text);
    const off = await e.request('POST', '/v1/graphql', '{"query": "query ($b: bigint) { thing(where: {b: {_eq: $b}}) { id } }", "variables": {"b": 9007199254740992}}',
      { 'content-type': 'application/json' });
    assert.deepEqual(off.body, { data: { thing: [] } }, off.text);
    // inserts bake their values into the cached plan: two numbers equal as doubles are still two plans
    const ins = (b: string) => e.request('POST', '/v1/graphql',
      `{"query": "mutation ($o: [thing_insert_input!]!) { insert_thing(objects: $o) { returning { b } } }", "variables": {"o": [{"b": ${b}}]}}`,
      { 'content-type': 'application/json' });
    for (const b of ['9007199254740995', '9007199254740996']) assert.deepEqual((await ins(b)).body, { data: { insert_thing: { returning: [{ b: Number(b) }] } } });
    const texts = await e.runSql("SELECT b::text FROM thing WHERE b IN (9007199254740995, 9007199254740996) ORDER BY b");
    assert.deepEqual(texts.result.slice(1), [['9007199254740995'], ['9007199254740996']]);
    await e.runSql('DELETE FROM thing WHERE b IN (9007199254740995, 9007199254740996)');
    assert.deepEqual(await gqlData('{ thing(where: {b: {_eq: 9007199254740992}}) { id } }'), { thing: [] });
    assert.deepEqual(await gqlError('query ($n: numeric) { thing(where: {n: {_eq: $n}}) { id } }', { n: '12,5' }),
      { code: 'validation-failed', path: `${V}.n`, message: 'expected a number, or a number represented as a string for type "numeric", but found "12,5"' });
    assert.equal((await gqlError('{ thing(where: {b: {_eq: "9223372036854775808"}}) { id } }')).message,
      'The value 9223372036854775808 lies outside the bounds or is not an integer. Maybe it is a float, or is there integer overflow?');
    assert.equal((await gqlError('{ thing(where: {s: {_eq: 40000}}) { id } }')).path, '$.selectionSet.thing.args.where.s._eq');
  });

  it('Postgres enums take one of their labels; arrays are checked item by item', async () => {
    assert.deepEqual(await gqlData('{ thing(where: {m: {_eq: "happy"}}) { id } }'), { thing: [{ id: 1 }] });
    assert.deepEqual(await gqlError('query ($m: mood) { thing(where: {m: {_eq: $m}}) { id } }', { m: 'angry' }),
      { code: 'validation-failed', path: `${V}.m`, message: 'expected one of "happy", "sad" for type "mood", but found "angry"' });
    assert.deepEqual(await gqlError('query ($n: _int4) { thing(where: {nums: {_eq: $n}}) { id } }', { n: [1, 'two'] }),
      { code: 'validation-failed', path: `${V}.n[1]`, message: 'expected a 32-bit integer for type "Int", but found a string' });
    assert.deepEqual(await gqlData('query ($t: _text) { thing(where: {tags: {_eq: $t}}) { id } }', { t: '{x,y}' }), { thing: [{ id: 1 }] });
  });

  it('a mutation with a bad value in its second object is refused whole: validation-failed, no row written', async () => {
    const count = async () => (await gqlData('{ thing_aggregate { aggregate { count } } }')).thing_aggregate.aggregate.count;
    const before = await count();
    const q = 'mutation ($o: [thing_insert_input!]!) { insert_thing(objects: $o) { affected_rows } }';
    assert.deepEqual(await gqlError(q, { o: [{ u: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11' }, { u: 'not-a-uuid' }] }),
      { code: 'validation-failed', path: `${V}.o[1].u`, message: 'expected a UUID for type "uuid", but found "not-a-uuid"' });
    assert.equal((await gqlError('mutation { insert_thing(objects: [{d: "2020-01-01"}, {s: "x"}]) { affected_rows } }')).path,
      '$.selectionSet.insert_thing.args.objects[1].s');
    assert.equal(await count(), before);
    assert.deepEqual(await gqlData(q, { o: [{ u: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', iv: 'P1DT2H', d: '2024-02-29', b: '-9223372036854775808' }] }),
      { insert_thing: { affected_rows: 1 } });
    assert.equal(await count(), before + 1);
  });

  it('a subscription start with a bad variable gets the same error over WebSocket', async () => {
    const s = await TestSocket.open(e.url, 'graphql-ws');
    try {
      s.send({ type: 'connection_init', payload: { headers: { 'x-svc-admin-secret': 'adm' } } });
      assert.deepEqual(await s.next(), { type: 'connection_ack' });
      s.send({ type: 'start', id: '1', payload: { query: 'subscription ($id: Int!) { author_by_pk(id: $id) { name } }', variables: { id: 'abc' } } });
      const err = await s.next();
      assert.equal(err.type, 'error');
      assert.deepEqual(err.payload.errors[0].extensions, { code: 'validation-failed', path: `${V}.id` });
      assert.equal(err.payload.errors[0].message, 'expected a 32-bit integer for type "Int", but found a string');
    } finally {
      s.close();
      await s.closed;
    }
  });
});
