import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../src/core/index.js';
import { negotiateMediaType, requestFromUrl } from '../../../src/api/graphqlOverHttp.js';

const SPEC = 'application/graphql-response+json';

test('the response media type follows Accept (q-values, then order); application/json by default', () => {
  assert.equal(negotiateMediaType(undefined), 'application/json');
  assert.equal(negotiateMediaType(''), 'application/json');
  assert.equal(negotiateMediaType('*/*'), 'application/json');
  assert.equal(negotiateMediaType('text/html'), 'application/json');
  assert.equal(negotiateMediaType(SPEC), SPEC);
  assert.equal(negotiateMediaType(`${SPEC}, application/json;q=0.9`), SPEC);
  assert.equal(negotiateMediaType(`application/json, ${SPEC}`), 'application/json');
  assert.equal(negotiateMediaType(`application/json;q=0.5, ${SPEC}`), SPEC);
  assert.equal(negotiateMediaType(`${SPEC};q=0, application/json`), 'application/json');
  assert.equal(negotiateMediaType(`${SPEC};charset=utf-8`), SPEC);
});

test('a GET request from the URL: query, operationName, variables as JSON text', () => {
  const p = (o: Record<string, string>) => requestFromUrl(new URLSearchParams(o));
  assert.deepEqual(p({ query: '{ a }' }), { query: '{ a }', operationName: null, variables: null });
  assert.deepEqual(p({ query: 'q', operationName: 'Op', variables: '{"x":[1,"2"]}' }), { query: 'q', operationName: 'Op', variables: { x: [1, '2'] } });
  assert.deepEqual(p({ query: 'q', variables: 'null', operationName: '' }), { query: 'q', operationName: null, variables: null });
  const fails = (o: Record<string, string>, path: string) =>
    assert.throws(() => p(o), (e: unknown) => e instanceof ApiError && e.code === 'parse-failed' && e.path === path);
  fails({}, '$');
  fails({ query: 'q', variables: '{' }, '$.variables');
  fails({ query: 'q', variables: '3' }, '$.variables');
  fails({ query: 'q', variables: '[]' }, '$.variables');
});
