/**
 * The Kriti evaluator (src/transforms/kriti): cases written from the documented inputs and outputs of the
 * kriti-lang README (function table, transformation examples), kriti-lang's evaluation examples, and Hasura's
 * Kriti / transform docs; plus parse and evaluation errors with their source positions.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KritiError, lexKriti, parseKriti, runKriti, transformFunctions } from '../../../src/transforms/kriti/index.js';

function ok(template: string, bindings: Record<string, unknown> = {}, fns?: Parameters<typeof runKriti>[2]): unknown {
  const r = runKriti(template, bindings, fns);
  if (!r.ok) assert.fail(`${r.error.code}: ${r.error.message} at ${JSON.stringify(r.error.span)}`);
  return r.value;
}

function err(template: string, bindings: Record<string, unknown> = {}, fns?: Parameters<typeof runKriti>[2]): KritiError {
  const r = runKriti(template, bindings, fns);
  if (r.ok) assert.fail(`expected an error, got ${JSON.stringify(r.value)}`);
  return r.error;
}

test('README function table: every example gives its documented output', () => {
  const cases: Array<[string, unknown]> = [
    ['{"object": {{ empty({"a": 1}) }}, "string": {{ empty("") }}, "array": {{ empty([1]) }} }', { array: false, object: false, string: true }],
    ['{"object": {{ size({"a": 1}) }}, "string": {{ size("asdf") }}, "array": {{ size([1]) }} }', { array: 1, object: 1, string: 4 }],
    ['{"string": {{ inverse("asdf") }}, "array": {{ inverse([1,2,3]) }}, "number": {{ inverse(4) }} }', { array: [3, 2, 1], number: 0.25, string: 'fdsa' }],
    ['{"string": {{ head("asdf") }}, "array": {{ head([1,2,3]) }} }', { array: 1, string: 'a' }],
    ['{"string": {{ tail("asdf") }}, "array": {{ tail([1,2,3]) }} }', { array: [2, 3], string: 'sdf' }],
    ['{"string": {{toCaseFold("AbCd")}} }', { string: 'abcd' }],
    ['{"string": {{toLower("AbCd")}} }', { string: 'abcd' }],
    ['{"string": {{toUpper("AbCd")}} }', { string: 'ABCD' }],
    ['{"string": {{toTitle("AbCd")}} }', { string: 'Abcd' }],
    ['{"array": {{ fromPairs([["a",1],["b",2]]) }} }', { array: { a: 1, b: 2 } }],
    ['{"object": {{ toPairs({"a": 1, "b": 2}) }} }', { object: [['a', 1], ['b', 2]] }],
    ['{"array": {{ removeNulls([1,null,3,null,5]) }} }', { array: [1, 3, 5] }],
    [
      '{"arrays": {{ concat([[1,2],[3,4]]) }}, "strings": {{ concat(["abc", "def", "g"]) }}, "objects": {{ concat([{"a":1, "b":2},{"b":3, "c":4} ] ) }} }',
      { arrays: [1, 2, 3, 4], objects: { a: 1, b: 3, c: 4 }, strings: 'abcdefg' },
    ],
  ];
  for (const [template, expected] of cases) assert.deepEqual(ok(template), expected, template);
  // the rest of the documented behaviour of the table's functions
  assert.deepEqual(ok('[{{ empty(null) }}, {{ empty(0) }}, {{ empty(" ") }}, {{ size(null) }}, {{ size(true) }}, {{ size(7) }}, {{ length("ab") }}]'), [true, true, true, 0, 1, 7, 2]);
  assert.deepEqual(ok('[{{ inverse(true) }}, {{ inverse(null) }}, {{ inverse({"a": 1}) }}]'), [false, null, { a: 1 }]);
  assert.equal(err('{{ empty(true) }}').code, 'Function Error');
  assert.equal(err('{{ head([]) }}').message, 'Empty array');
  assert.equal(err('{{ head("") }}').message, 'Empty string');
  assert.equal(err('{{ tail(1) }}').message, 'Expected an array or string');
  assert.equal(err('{{ toUpper(1) }}').code, 'Function Error');
  assert.equal(err('{{ fromPairs([[1, 2]]) }}').code, 'Function Error');
  assert.equal(ok('{{ toTitle("hello wORLD") }}'), 'Hello World');
  assert.equal(ok('{{ not(empty([1])) }}'), true);
  assert.equal(ok('{{ not true }}'), false);
});

const README_SOURCE = {
  event: {
    name: 'Freddie Jones',
    age: 27,
    author: {
      articles: [
        { id: 0, title: 'The Elements', length: 150, published: true },
        { id: 1, title: 'ARRL Handbook', length: 1000, published: true },
        { id: 2, title: 'The Mars Trilogy', length: 500, published: false },
      ],
    },
  },
};

test('README transformation examples: range and if over the articles', () => {
  // The README writes the range inside `[ ]`; Kriti's evaluator makes a range an array of its own, so the
  // template without the brackets gives the README's output.
  const t1 = `{
  "author": {
    "name": {{$.event.name}},
    "age": {{$.event.age}},
    "articles":
{{ range _, x := $.event.author.articles }}
      {
        "id": {{x.id}},
        "title": {{x.title}}
      }
{{ end }}
  }
}`;
  assert.deepEqual(ok(t1, { $: README_SOURCE }), {
    author: {
      name: 'Freddie Jones',
      age: 27,
      articles: [
        { id: 0, title: 'The Elements' },
        { id: 1, title: 'ARRL Handbook' },
        { id: 2, title: 'The Mars Trilogy' },
      ],
    },
  });
  const t2 = `{
  "articles": [
{{ range _, x := $.event.author.articles }}
  {{ if x.published }}
      { "id": {{x.id}}, "title": {{x.title}} }
  {{ else }}
      null
  {{ end }}
{{ end }}
  ]
}`;
  // inside brackets the range is one element (kriti-lang's evaluation examples show the nesting)
  assert.deepEqual(ok(t2, { $: README_SOURCE }), {
    articles: [[{ id: 0, title: 'The Elements' }, { id: 1, title: 'ARRL Handbook' }, null]],
  });
});

test('README expressions: paths, optional lookups, defaulting, elif, string interpolation', () => {
  const $body = { foo: { bar: [{ 'my key': 'v' }] }, domain: 'google', path: 'search' };
  assert.equal(ok("{{ $body.foo.bar[0]['my key'] }}", { $body }), 'v');
  assert.equal(ok('{{ $body?.nope }}', { $body }), null);
  assert.equal(ok('{{ $body?.nope.bar.baz }}', { $body }), null);
  assert.equal(ok('{{ $missing? }}', {}), null);
  assert.equal(ok('{{ $missing?.a ?? true }}', {}), true);
  assert.equal(ok('{{ null ?? true }}'), true);
  assert.equal(ok("{{ $body?['foo']?.bar?[5] }}", { $body }), null);
  assert.equal(ok('"http://www.{{$body.domain}}.com/{{$body.path}}"', { $body }), 'http://www.google.com/search');
  assert.equal(ok('"http://www.{{$.domain}}.com/{{ $?[1000] }}"', { $: { domain: 'x' } }), 'http://www.x.com/null');
  assert.equal(ok('"n={{ 1 }} b={{ true }} o={{ {"a": [1]} }}"'), 'n=1 b=true o={"a":[1]}');
  const ifElif = (x: unknown) =>
    ok(
      `{{ if x.published && (x.post_id > 100) }} {"id": {{x.id}}} {{ elif x.published && (x.post_id <= 100) }} {"id": {{x.id}}, "content": {{x.content}}} {{ else }} null {{ end }}`,
      { x },
    );
  assert.deepEqual(ifElif({ published: true, post_id: 101, id: 1 }), { id: 1 });
  assert.deepEqual(ifElif({ published: true, post_id: 5, id: 2, content: 'c' }), { id: 2, content: 'c' });
  assert.equal(ifElif({ published: false, post_id: 5, id: 3 }), null);
});

test('kriti-lang evaluation examples: operators, nested ranges, index binders, comments', () => {
  const people = [
    { name: 'Ann', eyeColor: 'blue', isActive: false, friends: [{ name: 'B' }, { name: 'C' }] },
    { name: 'Dee', eyeColor: 'brown', isActive: true, friends: [{ name: 'E' }] },
  ];
  assert.deepEqual(ok('{ "guid": {{ $[1].name }} }', { $: people }), { guid: 'Dee' });
  assert.deepEqual(ok('[ {{ range _, $var := $ }} {{ $var.eyeColor }} {{ end }} ]', { $: people }), [['blue', 'brown']]);
  assert.deepEqual(ok('{{ range i, x := $ }} { "name": "{{x.name}}", "id": {{ i }} } {{ end }}', { $: people }), [
    { name: 'Ann', id: 0 },
    { name: 'Dee', id: 1 },
  ]);
  assert.deepEqual(ok('{{ range _, x := $ }} {{ range i, f := x.friends }} {"n": {{ f.name }}} {{ end }} {{ end }}', { $: people }), [
    [{ n: 'B' }, { n: 'C' }],
    [{ n: 'E' }],
  ]);
  assert.deepEqual(ok('{{ range _, x := $ }} {{ if x.isActive }} {{ x.eyeColor }} {{ else }} "not active" {{ end }} {{ end }}', { $: people }), [
    'not active',
    'brown',
  ]);
  assert.equal(ok('"eyecolor_{{$[0].eyeColor}}"', { $: people }), 'eyecolor_blue');
  assert.deepEqual(
    ok(`# If Statement Examples
[
  {{ if ((1) != 3) }} true {{ else }} false {{ end }},
  {{ if not ((1) != 3) }} true {{ else }} false {{ end }},
  {{ if ((1) >= 3) }} true {{ else }} false {{ end }},
  {{ if ((1) <= 3) }} true {{ else }} false {{ end }},
  {{ if "foo" in ["foo"] }} 1 {{ else }} 0 {{ end }},
  {{ if "foo" in { "foo": true } }} 1 {{ else }} 0 {{ end }},
  {{ if ("foo" in { "foo": true }) }} 1 {{ else }} 0 {{ end }}
]`),
    [true, false, false, true, 1, 1, 1],
  );
  assert.deepEqual(ok('[{{ 1 == 1.0 }}, {{ "a" < "b" }}, {{ [1] == [1] }}, {{ {"a":1} != {"a":1} }}, {{ false || true }}]'), [true, true, true, false, true]);
  assert.deepEqual(ok('{"a": {"b": {"c": 1}}}'), { a: { b: { c: 1 } } });
  assert.deepEqual(ok('{"k\\"\\u0041": "line\\nnext", "e": [], "o": {}, "n": -1.5e2}'), { 'k"A': 'line\nnext', e: [], o: {}, n: -150 });
});

test("Hasura's docs: value and string interpolation, action and event trigger body templates, transform functions", () => {
  assert.deepEqual(ok('{ "a": 1, "b": {{ 2 }} }'), { a: 1, b: 2 });
  assert.equal(ok('"Hello world {{ 1 }}"'), 'Hello world 1');
  const $body = { action: { name: 'login' }, input: { arg1: { username: 'ann', password: 'pw' } }, session_variables: { 'x-svc-role': 'user' } };
  assert.deepEqual(ok('{\n  "users": {\n    "name": {{$body.input.arg1.username}},\n    "password": {{$body.input.arg1.password}}\n  }\n}', { $body }), {
    users: { name: 'ann', password: 'pw' },
  });
  const event = { table: { schema: 'public', name: 'users' }, event: { op: 'INSERT', data: { old: null, new: { id: 1, email: 'a@b.c' } } } };
  assert.deepEqual(ok('{"table": {{$body.table.name}}, "id": {{$body.event.data.new.id}}, "old": {{$body?.event.data.old}}}', { $body: event }), {
    table: 'users',
    id: 1,
    old: null,
  });
  assert.equal(ok('"{{$base_url}}/{{$body.input.arg1.username}}"', { $body, $base_url: 'http://h' }), 'http://h/ann');
  assert.equal(ok('{{ escapeUri("a b&c=d/é") }}'), 'a%20b%26c%3Dd%2F%C3%A9');
  const fns = transformFunctions({ 'X-Svc-User-Id': '42' });
  assert.equal(ok('{{ getSessionVariable("x-svc-user-id") }}', {}, fns), '42');
  assert.equal(err('{{ getSessionVariable("x-svc-org") }}', {}, fns).message, 'Session variable "x-svc-org" not found');
});

test('errors are values with Hasura codes and 0-based source positions', () => {
  const name = err('{\n  "a": {{ $nope }}\n}');
  assert.equal(name.code, 'Name Error');
  assert.equal(name.message, "Variable '$nope' not in scope");
  assert.deepEqual(name.span, { start: { line: 1, col: 10 }, end: { line: 1, col: 15 } });
  assert.deepEqual(name.toJSON().source_position, { start_line: 1, start_column: 10, end_line: 1, end_column: 15 });
  const attr = err('{{ $body.x }}', { $body: {} });
  assert.equal(attr.code, 'Attribute Error');
  assert.equal(attr.message, "'Object' has no attribute 'x'");
  assert.equal(err('{{ $body.x }}', { $body: 1 }).code, 'Type Error');
  assert.equal(err('{{ $body[3] }}', { $body: [1] }).code, 'Index Error');
  assert.equal(err('{{ range _, x := 1 }} x {{ end }}').message, "Couldn't match expected type 'Array' with actual type 'Number'");
  assert.equal(err('{{ if 1 }} 1 {{ else }} 2 {{ end }}').code, 'Type Error');
  assert.equal(err('{{ nope(1) }}').code, 'Name Error');
  assert.equal(err('{{ 1 && true }}').code, 'Type Error');
  for (const bad of ['{"a": ', '{{ $body ', '[1, 2', '{"a" 1}', '{{ if true }} 1', '"abc', '{{ range x := y }} 1 {{ end }}', '{1: 2}', '{{ }}', '1 2']) {
    const e = err(bad, { $body: 1, y: [] });
    assert.equal(e.code, 'Parse Error', bad);
    assert.ok(e instanceof KritiError);
  }
  const pe = err('{\n  "a": 1,\n  "b": ]\n}');
  assert.deepEqual(pe.span.start, { line: 2, col: 7 });
  assert.throws(() => parseKriti('{{'), KritiError);
});

test('the lexer tells `}}` closing a template from two object ends', () => {
  const kinds = lexKriti('{"a": {"b": {{ 1 }}}}').map((t) => (t.kind === 'punct' ? t.text : t.kind));
  assert.deepEqual(kinds, ['{', 'strBegin', 'strPart', 'strEnd', ':', '{', 'strBegin', 'strPart', 'strEnd', ':', '{{', 'number', '}}', '}', '}', 'eof']);
});
