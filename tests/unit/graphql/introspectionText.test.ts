/**
 * Introspection written as text (`introspectionText`) against graphql-js's `execute` + `JSON.stringify`:
 * byte for byte, over the standard introspection queries (graphql-js's `getIntrospectionQuery` with its
 * options, which GraphiQL and the Hasura console send; Apollo's; a console-style `__type`) and unusual
 * documents (aliases, fragments, inline fragments, directives with variables, `__type(name:)`,
 * deprecated arguments and input fields), on several role schemas (admin, a filtered role, a role without
 * aggregations, a role with no permissions, the Relay API with its `Node` interface, graphql-default naming).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  GraphQLBoolean, GraphQLInputObjectType, GraphQLObjectType, GraphQLSchema, GraphQLString, __EnumValue, __Field, __InputValue, __Type,
  execute, getIntrospectionQuery, parse,
  type ExecutionResult, type GraphQLFieldResolver, type GraphQLSchema as Schema,
} from 'graphql';
import { buildRoleSchema, introspectionBytes, introspectionOf, introspectionText, LazySchema, schemaTypeOrder } from '../../../src/graphql/index.js';
import { releasingFields } from '../../../src/graphql/schema/schemaTypeOrder.js';
import { ENGINE_PARTS, RELAY_PARTS } from '../../../src/appState.js';
import { column, makeCache, selectPerm, table, userIdFilter } from './fixtures.js';
import type { BoolExp } from '../../../src/ir/index.js';
import type { RolePermissions } from '../../../src/metadata/schemaCache/types.js';

const APOLLO = `query IntrospectionQuery {
  __schema {
    queryType { name }
    mutationType { name }
    subscriptionType { name }
    types { ...FullType }
    directives { name description locations args { ...InputValue } }
  }
}
fragment FullType on __Type {
  kind name description
  fields(includeDeprecated: true) { name description args { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason }
  inputFields { ...InputValue }
  interfaces { ...TypeRef }
  enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason }
  possibleTypes { ...TypeRef }
}
fragment InputValue on __InputValue { name description type { ...TypeRef } defaultValue }
fragment TypeRef on __Type {
  kind name
  ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } }
}`;

const UNUSUAL = `query Odd($withFields: Boolean!, $skipEnums: Boolean = false, $deprecated: Boolean, $name: String!) {
  s: __schema {
    __typename
    q: queryType { n: name kind ... on __Type { fields { name } } }
    types {
      name
      ... on __Type @include(if: $withFields) { fields(includeDeprecated: $deprecated) { name args(includeDeprecated: true) { name isDeprecated deprecationReason defaultValue } } }
      ...Enums @skip(if: $skipEnums)
      inputFields(includeDeprecated: true) { name isDeprecated deprecationReason defaultValue type { ...Ref } }
      kind
      name
    }
    directives(includeDeprecated: true) { name isRepeatable locations args { name defaultValue } }
    description
  }
  t: __type(name: $name) { name kind inputFields(includeDeprecated: $deprecated) { name deprecationReason } fields { __typename name type { ...Ref } } }
  missing: __type(name: "no_such_type") { name }
  again: __type(name: "query_root") { name ...Fields }
}
fragment Enums on __Type { enumValues(includeDeprecated: true) { name description isDeprecated } specifiedByURL isOneOf }
fragment Fields on __Type { fields { name } possibleTypes { name } interfaces { name } }
fragment Ref on __Type { kind name ofType { kind name ofType { kind name ofType { kind name } } } }`;

const QUERIES: Array<[string, string, Record<string, unknown>]> = [
  ['graphql-js getIntrospectionQuery()', getIntrospectionQuery(), {}],
  ['getIntrospectionQuery without descriptions', getIntrospectionQuery({ descriptions: false }), {}],
  ['getIntrospectionQuery with every option (GraphiQL)', getIntrospectionQuery({ specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true, oneOf: true }), {}],
  ["Apollo's introspection query", APOLLO, {}],
  ['aliases, fragments, directives, __type, deprecated arguments', UNUSUAL, { withFields: true, deprecated: true, name: 'author_on_conflict' }],
  ['the same, other variables', UNUSUAL, { withFields: false, skipEnums: true, name: 'author' }],
  ['a __type of the mutation root', '{ __type(name: "mutation_root") { fields { name args { name type { name kind ofType { name } } } } } }', {}],
];

/** `JSON.stringify` of each root alias of graphql-js's `execute` result on `schema`. */
async function byGraphqlJs(schema: Schema, query: string, variables: Record<string, unknown>): Promise<Map<string, string>> {
  const result = await execute({ schema, document: parse(query), variableValues: variables }) as ExecutionResult;
  assert.equal(result.errors, undefined, String(result.errors));
  return new Map(Object.entries(result.data ?? {}).map(([k, v]) => [k, JSON.stringify(v)]));
}

const SCHEMAS: Array<[string, () => Schema]> = [
  ['admin', () => buildRoleSchema(makeCache(), 'admin', ENGINE_PARTS.schema).schema],
  ['user (filtered, some columns)', () => buildRoleSchema(makeCache(), 'user', ENGINE_PARTS.schema).schema],
  ['anon (no aggregations)', () => buildRoleSchema(makeCache(), 'anon', ENGINE_PARTS.schema).schema],
  ['nobody (no permissions)', () => buildRoleSchema(makeCache(), 'nobody', ENGINE_PARTS.schema).schema],
  ['Relay API, admin (Node interface)', () => buildRoleSchema(makeCache(), 'admin', RELAY_PARTS.schema).schema],
  ['graphql-default naming (eager)', () => buildRoleSchema({ ...makeCache(), namingConvention: 'graphql-default' }, 'user', ENGINE_PARTS.schema).schema],
];

for (const [schemaName, build] of SCHEMAS) {
  test(`introspection text = graphql-js execute, byte for byte: ${schemaName}`, async () => {
    for (const [queryName, query, variables] of QUERIES) {
      const expected = await byGraphqlJs(build(), query, variables);
      const live = build();
      const got = await introspectionText(live, parse(query), variables);
      assert.ok(got, `${queryName}: answered without graphql-js`);
      assert.deepEqual([...got], [...expected], queryName);
      if (live instanceof LazySchema && query.includes('__schema')) assert.equal(live.complete, false, `${queryName}: the role's own schema is not completed`);
    }
  });
}

test('a lazy schema partly made by queries introspects as a fresh build does; the walk gives getTypeMap() order', async () => {
  const used = buildRoleSchema(makeCache(), 'user', ENGINE_PARTS.schema).schema as LazySchema;
  (used.getType('article') as GraphQLObjectType).getFields();
  used.getMutationType();
  const got = await introspectionText(used, parse(getIntrospectionQuery()), {});
  const expected = await byGraphqlJs(buildRoleSchema(makeCache(), 'user', ENGINE_PARTS.schema).schema, getIntrospectionQuery(), {});
  assert.deepEqual([...got!], [...expected]);
  const fresh = buildRoleSchema(makeCache(), 'admin', RELAY_PARTS.schema).schema as LazySchema;
  const walked = [...(await introspectionOf(fresh)).types()].map((t) => t.name);
  assert.deepEqual(walked, Object.keys(buildRoleSchema(makeCache(), 'admin', RELAY_PARTS.schema).schema.getTypeMap()));
});

test('schemaTypeOrder follows new GraphQLSchema: config types first, each with what it reaches, then the roots', () => {
  const leaf = new GraphQLInputObjectType({ name: 'Leaf', fields: { x: { type: GraphQLString } } });
  const listed = new GraphQLObjectType({ name: 'Listed', fields: { f: { type: GraphQLBoolean, args: { a: { type: leaf } } } } });
  const other = new GraphQLObjectType({ name: 'Other', fields: { l: { type: listed } } });
  const query = new GraphQLObjectType({ name: 'Query', fields: { o: { type: other }, l: { type: listed } } });
  const config = { query, mutation: null, subscription: null, types: [listed], directives: new GraphQLSchema({ query }).getDirectives() };
  const expected = Object.keys(new GraphQLSchema(config).getTypeMap());
  assert.deepEqual([...schemaTypeOrder(config)].map((t) => t.name), expected);
});

test('what the walker does not do is left to graphql-js (undefined): a fragment on a type outside introspection, a field error', async () => {
  const schema = () => buildRoleSchema(makeCache(), 'user', ENGINE_PARTS.schema).schema;
  assert.equal(await introspectionText(schema(), parse('{ __schema { types { ... on author { name } } } }'), {}), undefined);
  assert.equal(await introspectionText(schema(), parse('query($n: String!) { __type(name: $n) { name } }'), {}), undefined);
});

test('`__type` alone reads the role schema itself: a made type is answered without completing or rebuilding it', async () => {
  const live = buildRoleSchema(makeCache(), 'user', ENGINE_PARTS.schema).schema as LazySchema;
  const query = '{ __type(name: "query_root") { name fields { name type { name kind ofType { name } } } } }';
  const got = await introspectionText(live, parse(query), {});
  assert.equal(live.complete, false);
  assert.deepEqual([...got!], [...await byGraphqlJs(buildRoleSchema(makeCache(), 'user', ENGINE_PARTS.schema).schema, query, {})]);
});

test('the standard queries are written without graphql-js\'s introspection resolvers (writers compiled per selection), byte for byte', async () => {
  const queries = QUERIES.slice(0, 4);
  const expected = await Promise.all(queries.map(([, query, variables]) => byGraphqlJs(buildRoleSchema(makeCache(), 'user', ENGINE_PARTS.schema).schema, query, variables)));
  // Every resolver of the objects a type's text is made of, counted while the walker writes.
  let calls = 0;
  const restore: Array<() => void> = [];
  for (const type of [__Type, __Field, __InputValue, __EnumValue]) {
    for (const field of Object.values(type.getFields())) {
      const resolve = field.resolve as GraphQLFieldResolver<unknown, unknown>;
      field.resolve = (...args) => { calls++; return resolve(...args); };
      restore.push(() => { field.resolve = resolve; });
    }
  }
  try {
    for (const [i, [name, query, variables]] of queries.entries()) {
      const got = await introspectionText(buildRoleSchema(makeCache(), 'user', ENGINE_PARTS.schema).schema, parse(query), variables);
      assert.deepEqual([...got!], [...expected[i]], name);
    }
  } finally {
    for (const r of restore) r();
  }
  assert.equal(calls, 0, `${calls} resolver calls`);
});

test('releasingFields gives a type its field thunk back once the next is asked for: its fields made again are equal', () => {
  const leaf = new GraphQLInputObjectType({ name: 'Leaf', fields: { x: { type: GraphQLString } } });
  const obj = new GraphQLObjectType({ name: 'Obj', fields: () => ({ f: { type: GraphQLBoolean, args: { a: { type: leaf } } } }) });
  const made = new GraphQLObjectType({ name: 'Made', fields: { g: { type: GraphQLString } } });
  made.getFields();
  const state = (t: unknown) => typeof (t as { _fields: unknown })._fields;
  const walk = releasingFields([obj, leaf, made]);
  assert.equal(walk.next().value, obj);
  const first = obj.getFields();
  assert.equal(state(obj), 'object');
  assert.equal(walk.next().value, leaf);
  assert.equal(state(obj), 'function', 'given back once the walk is past it');
  const again = obj.getFields();
  assert.notEqual(again, first);
  assert.deepEqual(Object.keys(again), ['f']);
  assert.equal(again.f.args[0].type, leaf);
  leaf.getFields();
  walk.next();
  assert.equal(state(leaf), 'function');
  walk.next();
  // A type made before the walk reached it keeps its fields (it is the role schema's, not the walk's).
  assert.equal(state(made), 'object');
});

test('a role\'s fresh build for introspection is made in slices: its select root fields do not take one turn', async () => {
  const sc = makeCache();
  for (let i = 0; i < 400; i++) {
    const name = `extra_${String(i).padStart(3, '0')}`;
    sc.tables.set(`public.${name}`, table(name, [column('id', 'int4', { nullable: false }), column('label', 'text')], { primaryKey: ['id'] }));
  }
  const live = buildRoleSchema(sc, 'admin', ENGINE_PARTS.schema).schema as LazySchema;
  let turns = 0;
  let done = false;
  const other = (): void => {
    if (done) return;
    turns++;
    setImmediate(other);
  };
  setImmediate(other);
  const started = performance.now();
  const target = await introspectionOf(live);
  done = true;
  const took = performance.now() - started;
  assert.ok(target.schema !== live && target.schema.getQueryType()?.getFields().extra_399, 'a fresh build with every table');
  assert.ok(took < 30 || turns >= 2, `${turns} turns of other work during ${Math.round(took)} ms`);
});

/** `getIntrospectionQuery()` written for `schema`, counting the turns of other work (setImmediate) meanwhile. */
async function introspectedWithTurns(schema: GraphQLSchema): Promise<{ got: Map<string, string> | undefined; turns: number; took: number }> {
  let turns = 0;
  let done = false;
  const other = (): void => {
    if (done) return;
    turns++;
    setImmediate(other);
  };
  setImmediate(other);
  const started = performance.now();
  const got = await introspectionText(schema, parse(getIntrospectionQuery()), {});
  done = true;
  return { got, turns, took: performance.now() - started };
}

test('the types of `__schema` are written in slices: other work runs between them', async () => {
  const sc = makeCache();
  for (let i = 0; i < 200; i++) {
    const name = `extra_${String(i).padStart(3, '0')}`;
    sc.tables.set(`public.${name}`, table(name, [column('id', 'int4', { nullable: false }), column('label', 'text'), column('amount', 'numeric')]));
  }
  const live = buildRoleSchema(sc, 'admin', ENGINE_PARTS.schema).schema;
  const { got, turns, took } = await introspectedWithTurns(live);
  assert.ok(got?.get('__schema')?.includes('"extra_199_bool_exp"'));
  // a turn of other work at least every ~15 ms of the walk (and the walk here takes far longer than one slice)
  assert.ok(took > 100, `the walk took ${took} ms`);
  assert.ok(turns >= 3, `${turns} turns of other work during ${Math.round(took)} ms`);
});

/**
 * A chain of tables `a ← b ← c ← d` (each `b` row has an `a`, each `c` a `b`, each `d` a `c`) with select,
 * insert and update permissions for `r1`; `r1_rows` has r1's columns with other row filters; `r2` may
 * aggregate besides; `r1_plus` sees one more column of `b`.
 */
function sharingCache(): ReturnType<typeof makeCache> {
  const sc = makeCache();
  const mk = (name: string, parent?: string) => {
    const cols = [column('id', 'int4', { nullable: false, hasDefault: true }), column('label', 'text', { nullable: false }), column('amount', 'numeric'), column('secret', 'text')];
    if (parent) cols.push(column(`${parent}_id`, 'int4'));
    return table(name, cols);
  };
  const a = mk('a');
  const b = mk('b', 'a');
  const c = mk('c', 'b');
  const d = mk('d', 'c');
  const link = (from: typeof a, to: typeof a, col: string, arrayName: string): void => {
    from.relationships.set(to.name.name, { name: to.name.name, type: 'object', comment: null, insertOrder: 'before_parent', join: { remoteTable: to.name, mapping: [{ local: col, remote: 'id' }] } });
    to.relationships.set(arrayName, { name: arrayName, type: 'array', comment: null, insertOrder: 'after_parent', join: { remoteTable: from.name, mapping: [{ local: 'id', remote: col }] } });
  };
  link(b, a, 'a_id', 'bs');
  link(c, b, 'b_id', 'cs');
  link(d, c, 'c_id', 'ds');
  const mine = userIdFilter('id');
  for (const t of [a, b, c, d]) {
    const cols = t.columns.map((x) => x.name).filter((n) => n !== 'secret');
    const all: BoolExp = { kind: 'true' };
    const perms = (filter: BoolExp | undefined, extra: { allowAggregations?: boolean; plus?: boolean } = {}): RolePermissions => ({
      select: selectPerm(extra.plus && t === b ? [...cols, 'secret'] : cols, filter ?? all, { allowAggregations: extra.allowAggregations ?? false }),
      insert: { columns: new Set(['label', 'amount']), check: all, set: {}, backendOnly: false },
      update: { columns: new Set(['label', 'amount']), filter: filter ?? all, check: null, set: {} },
    });
    t.permissions.set('r1', perms(undefined));
    t.permissions.set('r1_rows', perms(mine));
    t.permissions.set('r2', perms(mine, { allowAggregations: true }));
    t.permissions.set('r1_plus', perms(undefined, { plus: true }));
    sc.tables.set(`public.${t.name.name}`, t);
  }
  sc.roles.push('r1', 'r1_rows', 'r2', 'r1_plus');
  return sc;
}

const sharingSchema = (role: string) => buildRoleSchema(sharingCache(), role, ENGINE_PARTS.schema).schema;

test('roles whose types are equal, or differ by aggregations or one column: each answer = graphql-js execute, byte for byte', async () => {
  for (const role of ['r1', 'r1_rows', 'r2', 'r1_plus', 'r1', 'admin']) {
    for (const [queryName, query, variables] of QUERIES) {
      const expected = await byGraphqlJs(sharingSchema(role), query, variables);
      const got = await introspectionText(sharingSchema(role), parse(query), variables);
      assert.ok(got, `${role}, ${queryName}: answered without graphql-js`);
      assert.deepEqual([...got], [...expected], `${role}, ${queryName}`);
    }
  }
});

test('introspectionBytes: the same text as UTF-8 chunks (several for a large answer, non-ASCII descriptions kept whole)', async () => {
  const sc = makeCache();
  for (let i = 0; i < 60; i++) {
    const name = `extra_${String(i).padStart(2, '0')}`;
    sc.tables.set(`public.${name}`, table(name, [column('id', 'int4', { nullable: false }), column('label', 'text', { description: 'libellé — “label” ✓' })], { description: 'tableau №' + i }));
  }
  for (const [queryName, query, variables] of QUERIES) {
    const text = await introspectionText(buildRoleSchema(sc, 'admin', ENGINE_PARTS.schema).schema, parse(query), variables);
    const bytes = await introspectionBytes(buildRoleSchema(sc, 'admin', ENGINE_PARTS.schema).schema, parse(query), variables);
    assert.ok(text && bytes, queryName);
    assert.deepEqual([...bytes.keys()], [...text.keys()], queryName);
    for (const [key, chunks] of bytes) {
      assert.ok(chunks.every((c) => Buffer.isBuffer(c)), queryName);
      assert.equal(Buffer.concat(chunks).toString('utf8'), text.get(key), `${queryName}: ${key}`);
    }
    if (query === QUERIES[0][1]) assert.ok(bytes.get('__schema')!.length > 1, 'a large answer comes in several chunks');
  }
});

test("one type's fields are written in slices too: a root of tens of thousands of fields does not hold the event loop", async () => {
  const fields: Record<string, { type: typeof GraphQLString; args: Record<string, { type: typeof GraphQLString; description: string }> }> = {};
  for (let i = 0; i < 30000; i++) fields[`field_${i}`] = { type: GraphQLString, args: { a: { type: GraphQLString, description: 'an argument' }, b: { type: GraphQLString, description: 'another' } } };
  const schema = new GraphQLSchema({ query: new GraphQLObjectType({ name: 'Query', fields }) });
  const { got, turns, took } = await introspectedWithTurns(schema);
  assert.ok(got?.get('__schema')?.includes('"field_29999"'));
  // The schema has a dozen types, the Query type nearly all of the work: turns of other work come from within it.
  assert.ok(took > 60, `the walk took ${took} ms`);
  assert.ok(turns >= 4, `${turns} turns of other work during ${Math.round(took)} ms`);
});
