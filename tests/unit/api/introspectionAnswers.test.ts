/**
 * Kept introspection answers (api/introspectionAnswers.ts): an answer is made once per schema and request
 * key, a request for an answer being made waits for that one instead of making it again beside it, a failed
 * making keeps nothing, each schema keeps at most four answers (the oldest goes), answers are per schema, and a
 * body is kept as its gzip bytes once compressed (as made until then).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GraphQLObjectType, GraphQLSchema, GraphQLString } from 'graphql';
import { gunzipSync } from 'node:zlib';
import { introspectionAnswer, introspectionAnswersSettled, isGzipAnswer, keptIntrospectionBytes } from '../../../src/api/introspectionAnswers.js';

/** A body as JSON text: a kept body is its gzip bytes. */
const text = (b: Buffer): string => (isGzipAnswer(b) ? gunzipSync(b) : b).toString();

const schema = () => new GraphQLSchema({ query: new GraphQLObjectType({ name: 'Query', fields: { a: { type: GraphQLString } } }) });

test('made once; concurrent requests share the making; a failure keeps nothing', async () => {
  const s = schema();
  let runs = 0;
  let release!: () => void;
  const gate = new Promise<void>((r) => { release = r; });
  const make = async () => { runs++; await gate; return Buffer.from(`{"data":${runs}}`); };
  const first = introspectionAnswer(s, 'k', make);
  const second = introspectionAnswer(s, 'k', make);
  release();
  const [a, b] = await Promise.all([first, second]);
  assert.equal(runs, 1);
  assert.equal(a, b);
  assert.equal(await introspectionAnswer(s, 'k', make), a, 'kept');
  assert.equal(runs, 1);
  await assert.rejects(introspectionAnswer(s, 'bad', async () => { throw new Error('no'); }));
  assert.deepEqual(await introspectionAnswer(s, 'bad', async () => new Map([['x', '1']])), new Map([['x', '1']]), 'made again after a failure');
});

test('at most four answers per schema, the oldest going first; other schemas keep theirs', async () => {
  const s = schema();
  const t = schema();
  let runs = 0;
  const make = (v: string) => async () => { runs++; return Buffer.from(v); };
  await introspectionAnswer(t, 'k0', make('t0'));
  for (let i = 0; i < 5; i++) await introspectionAnswer(s, `k${i}`, make(`s${i}`));
  assert.equal(runs, 6);
  await introspectionAnswersSettled();
  assert.equal(text(await introspectionAnswer(s, 'k4', make('again'))), 's4');
  assert.equal(text(await introspectionAnswer(s, 'k1', make('again'))), 's1');
  assert.equal(runs, 6, 'k1..k4 kept');
  assert.equal(text(await introspectionAnswer(s, 'k0', make('s0 again'))), 's0 again', 'k0 went');
  assert.equal(text(await introspectionAnswer(t, 'k0', make('no'))), 't0', "the other schema's answer kept");
});

test('a body is kept as its gzip bytes once compressed; until then requests get it as made', async () => {
  const s = schema();
  const body = Buffer.from(JSON.stringify({ data: { __schema: { types: Array.from({ length: 2000 }, (_, i) => ({ name: `type_${i}` })) } } }));
  await introspectionAnswersSettled();
  const before = keptIntrospectionBytes();
  const made = await introspectionAnswer(s, 'big', async () => body);
  assert.equal(made, body, 'the request that made it gets it as made');
  assert.equal(isGzipAnswer(made), false);
  await introspectionAnswersSettled();
  const kept = await introspectionAnswer(s, 'big', async () => Buffer.from('not again'));
  assert.ok(isGzipAnswer(kept));
  assert.equal(gunzipSync(kept).toString(), body.toString());
  assert.equal(keptIntrospectionBytes() - before, kept.length, 'the budget counts the compressed bytes');
  assert.ok(kept.length < body.length / 5, `${kept.length} of ${body.length} bytes`);
});
