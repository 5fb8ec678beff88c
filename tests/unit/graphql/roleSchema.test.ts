import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import assert from 'node:assert/strict';
import {
  GraphQLBoolean, GraphQLEnumType, GraphQLInputObjectType, GraphQLObjectType, GraphQLSchema, execute, getIntrospectionQuery, graphqlSync, lexicographicSortSchema, parse,
  printSchema, type ExecutionResult,
} from 'graphql';
import { buildRoleSchema, getRoleSchema, LazySchema, outputMeta, prepareRoleSchemas, SchemaContext } from '../../../src/graphql/index.js';
import { TurnBudget } from '../../../src/lib/index.js';
import { pgScalarName, isBigNumType } from '../../../src/core/index.js';
import { column, makeCache, selectPerm, userIdFilter } from './fixtures.js';
import { ENGINE_PARTS } from '../../../src/appState.js';

const fieldNames = (t: GraphQLObjectType | GraphQLInputObjectType) => Object.keys(t.getFields());

test('Postgres types map to Hasura v1.3 scalar names', () => {
  assert.equal(pgScalarName('int4'), 'Int');
  assert.equal(pgScalarName('int2'), 'smallint');
  assert.equal(pgScalarName('int8'), 'bigint');
  assert.equal(pgScalarName('float4'), 'Float');
  assert.equal(pgScalarName('float8'), 'float8');
  assert.equal(pgScalarName('text'), 'String');
  assert.equal(pgScalarName('varchar'), 'String');
  assert.equal(pgScalarName('bool'), 'Boolean');
  assert.equal(pgScalarName('bpchar'), 'bpchar');
  assert.equal(pgScalarName('citext'), 'citext');
  assert.equal(pgScalarName('timestamptz'), 'timestamptz');
  assert.equal(pgScalarName('_text'), '_text');
  assert.ok(isBigNumType('int8') && isBigNumType('numeric') && isBigNumType('float8') && !isBigNumType('int4'));
});

test('admin sees every table with select, aggregate and by-pk root fields', () => {
  const rs = getRoleSchema(makeCache(), 'admin', ENGINE_PARTS.schema);
  assert.deepEqual(fieldNames(rs.queryRoot), ['article', 'article_aggregate', 'article_by_pk', 'author', 'author_aggregate', 'author_by_pk']);
  assert.equal(rs.queryRoot.getFields().author.description, 'fetch data from the table: "author"');
  assert.equal(rs.queryRoot.getFields().author_by_pk.description, 'fetch data from the table: "author" using primary key columns');
  assert.equal(rs.queryRoot.getFields().author_aggregate.description, 'fetch aggregated fields from the table: "author"');
  assert.equal(String(rs.queryRoot.getFields().author.type), '[author!]!');
  assert.deepEqual(rs.queryRoot.getFields().author.args.map((a) => `${a.name}: ${a.type}`),
    ['distinct_on: [author_select_column!]', 'limit: Int', 'offset: Int', 'order_by: [author_order_by!]', 'where: author_bool_exp']);
  const author = rs.schema.getType('author') as GraphQLObjectType;
  assert.deepEqual(fieldNames(author), ['articles', 'articles_aggregate', 'big', 'createdAt', 'id', 'name', 'remarks']);
  assert.equal(String(author.getFields().id.type), 'Int!');
  assert.equal(author.getFields().name.description, 'the name');
  assert.equal(rs.subscriptionRoot?.name, 'subscription_root');
});

test('the object relationship is non-null over a non-null foreign key; json columns take a path', () => {
  const rs = getRoleSchema(makeCache(), 'admin', ENGINE_PARTS.schema);
  const article = rs.schema.getType('article') as GraphQLObjectType;
  assert.equal(String(article.getFields().author.type), 'author!');
  assert.deepEqual(article.getFields().tags.args.map((a) => a.name), ['path']);
  assert.equal(outputMeta(article.getFields().author)?.kind, 'object_rel');
});

test('a manual object relationship is nullable even over the columns of a non-null foreign key (Hasura: isManual || isNullable)', () => {
  const sc = makeCache();
  const article = sc.tables.get('public.article')!;
  const fk = article.relationships.get('author')!;
  article.relationships.set('author_manual', { ...fk, name: 'author_manual', manual: true });
  // a foreign-key relationship without any matching constraint entry still follows its columns' nullability
  article.foreignKeys.length = 0;
  const t = getRoleSchema(sc, 'admin', ENGINE_PARTS.schema).schema.getType('article') as GraphQLObjectType;
  assert.equal(String(t.getFields().author_manual.type), 'author');
  assert.equal(String(t.getFields().author.type), 'author!');
});

test('comparison expressions are per scalar, with string and jsonb operators', () => {
  const rs = getRoleSchema(makeCache(), 'admin', ENGINE_PARTS.schema);
  const intExp = rs.schema.getType('Int_comparison_exp') as GraphQLInputObjectType;
  assert.deepEqual(fieldNames(intExp), ['_eq', '_gt', '_gte', '_in', '_is_null', '_lt', '_lte', '_neq', '_nin']);
  const strExp = rs.schema.getType('String_comparison_exp') as GraphQLInputObjectType;
  assert.ok(['_like', '_nlike', '_ilike', '_nilike', '_similar', '_nsimilar'].every((op) => op in strExp.getFields()));
  const jsonb = rs.schema.getType('jsonb_comparison_exp') as GraphQLInputObjectType;
  assert.ok(['_contains', '_contained_in', '_has_key', '_has_keys_any', '_has_keys_all'].every((op) => op in jsonb.getFields()));
  assert.equal(String(jsonb.getFields()._has_keys_any.type), '[String!]');
  const orderBy = rs.schema.getType('order_by') as GraphQLEnumType;
  assert.deepEqual(orderBy.getValues().map((v) => v.name), ['asc', 'asc_nulls_first', 'asc_nulls_last', 'desc', 'desc_nulls_first', 'desc_nulls_last']);
  const agg = rs.schema.getType('article_aggregate_fields') as GraphQLObjectType;
  assert.deepEqual(fieldNames(agg), ['avg', 'count', 'max', 'min', 'stddev', 'stddev_pop', 'stddev_samp', 'sum', 'var_pop', 'var_samp', 'variance']);
  assert.equal(String((rs.schema.getType('article_sum_fields') as GraphQLObjectType).getFields().rating.type), 'numeric');
  assert.equal(String((rs.schema.getType('article_avg_fields') as GraphQLObjectType).getFields().rating.type), 'Float');
  assert.deepEqual(fieldNames(rs.schema.getType('article_max_fields') as GraphQLObjectType), ['author_id', 'content', 'id', 'rating', 'title']);
});

test('a role sees only permitted columns and relationships to tables it can select', () => {
  const sc = makeCache();
  const user = getRoleSchema(sc, 'user', ENGINE_PARTS.schema);
  assert.deepEqual(fieldNames(user.schema.getType('author') as GraphQLObjectType), ['articles', 'articles_aggregate', 'big', 'createdAt', 'id', 'name']);
  assert.ok(!('remarks' in (user.schema.getType('author_bool_exp') as GraphQLInputObjectType).getFields()));

  const anon = getRoleSchema(sc, 'anon', ENGINE_PARTS.schema);
  assert.deepEqual(fieldNames(anon.queryRoot), ['article', 'article_by_pk']);
  assert.deepEqual(fieldNames(anon.schema.getType('article') as GraphQLObjectType), ['id', 'title']);
  assert.equal(anon.schema.getType('author'), undefined);
  assert.equal(anon.schema.getType('article_aggregate'), undefined);
  assert.equal(anon.mutationRoot, null);
});

test('a role without permissions gets an empty query_root and no subscription root', () => {
  const rs = getRoleSchema(makeCache(), 'nobody', ENGINE_PARTS.schema);
  assert.equal(rs.queryRoot.name, 'query_root');
  assert.deepEqual(fieldNames(rs.queryRoot), []);
  assert.equal(rs.subscriptionRoot, null);
});

test('role schemas are memoised per schema cache object', () => {
  const sc = makeCache();
  assert.equal(getRoleSchema(sc, 'user', ENGINE_PARTS.schema), getRoleSchema(sc, 'user', ENGINE_PARTS.schema));
  assert.notEqual(getRoleSchema(sc, 'user', ENGINE_PARTS.schema), getRoleSchema(makeCache(), 'user', ENGINE_PARTS.schema));
});

test('roles whose permissions differ only in row filters and limits share one built schema; each keeps its own RoleSchema', () => {
  const sc = makeCache();
  const article = sc.tables.get('public.article')!;
  const author = sc.tables.get('public.author')!;
  author.description = 'tables unlike those of the other tests (no schema of theirs to reuse)';
  // `user2`: the same columns as `user`, other filters and no limit
  author.permissions.set('user2', { select: selectPerm(['id', 'name', 'createdAt', 'big'], userIdFilter('id'), { allowAggregations: true }) });
  article.permissions.set('user2', { select: selectPerm(['id', 'title', 'content', 'author_id', 'is_published', 'tags', 'rating'], { kind: 'true' }, { allowAggregations: true }) });
  // `anon2`: one column more than `anon`
  article.permissions.set('anon2', { select: selectPerm(['id', 'title', 'content']) });
  const user = getRoleSchema(sc, 'user', ENGINE_PARTS.schema);
  const user2 = getRoleSchema(sc, 'user2', ENGINE_PARTS.schema);
  assert.equal(user.schema, user2.schema);
  assert.notEqual(user, user2);
  assert.equal(user2.role, 'user2');
  assert.equal(user2.key, 'user2');
  const anon = getRoleSchema(sc, 'anon', ENGINE_PARTS.schema);
  const anon2 = getRoleSchema(sc, 'anon2', ENGINE_PARTS.schema);
  assert.notEqual(anon.schema, anon2.schema);
  assert.deepEqual(fieldNames(anon2.schema.getType('article') as GraphQLObjectType), ['content', 'id', 'title']);
});

test('a new cache keeps the schema of every role whose permissions and tables did not change, and rebuilds the others', () => {
  const before = makeCache();
  const built = Object.fromEntries(['admin', 'user', 'anon'].map((r) => [r, getRoleSchema(before, r, ENGINE_PARTS.schema)]));
  // another build of the same metadata in which only anon's permission changed
  const after = makeCache();
  after.tables.get('public.article')!.permissions.set('anon', { select: selectPerm(['id', 'title', 'content']) });
  assert.equal(getRoleSchema(after, 'admin', ENGINE_PARTS.schema).schema, built.admin.schema);
  assert.equal(getRoleSchema(after, 'user', ENGINE_PARTS.schema).schema, built.user.schema);
  const anon = getRoleSchema(after, 'anon', ENGINE_PARTS.schema);
  assert.notEqual(anon.schema, built.anon.schema);
  assert.deepEqual(fieldNames(anon.schema.getType('article') as GraphQLObjectType), ['content', 'id', 'title']);
  assert.equal(anon.cache, after);

  // a filter change alone rebuilds the role's schema: its fields carry the tables it was built on,
  // whose filters the planner reads
  const filtered = makeCache();
  filtered.tables.get('public.author')!.permissions.get('user')!.select!.filter = userIdFilter('id');
  assert.notEqual(getRoleSchema(filtered, 'user', ENGINE_PARTS.schema).schema, built.user.schema);
  assert.equal(getRoleSchema(filtered, 'anon', ENGINE_PARTS.schema).schema, built.anon.schema);

  // a change of the tables themselves (a column) rebuilds every role's schema
  const altered = makeCache();
  const art = altered.tables.get('public.article')!;
  art.columns[1] = { ...art.columns[1], description: 'the title' };
  art.columnsByName.set('title', art.columns[1]);
  assert.notEqual(getRoleSchema(altered, 'admin', ENGINE_PARTS.schema).schema, built.admin.schema);
  assert.notEqual(getRoleSchema(altered, 'anon', ENGINE_PARTS.schema).schema, built.anon.schema);
});

test('custom root field names and custom column names are used', () => {
  const sc = makeCache();
  const author = sc.tables.get('public.author')!;
  author.customRootFields = { select: 'writers', select_by_pk: 'writer', select_aggregate: 'writers_agg' };
  author.columns[1].gqlName = 'full_name';
  const rs = getRoleSchema(sc, 'admin', ENGINE_PARTS.schema);
  assert.ok(['writers', 'writer', 'writers_agg'].every((n) => n in rs.queryRoot.getFields()));
  assert.ok('full_name' in (rs.schema.getType('author') as GraphQLObjectType).getFields());
  assert.ok('full_name' in (rs.schema.getType('author_bool_exp') as GraphQLInputObjectType).getFields());
});

test('a schema kept for a new cache does not keep the old cache (nor the schemas built for it) alive', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  let old: ReturnType<typeof makeCache> | undefined = makeCache();
  old.tables.get('public.author')!.description = 'a cache of its own for the kept-schema test';
  const oldRef = new WeakRef(old);
  const adminOfOld = new WeakRef(getRoleSchema(old, 'admin', ENGINE_PARTS.schema).schema);
  const user = getRoleSchema(old, 'user', ENGINE_PARTS.schema).schema;
  const next = makeCache();
  next.tables.get('public.author')!.description = 'a cache of its own for the kept-schema test';
  next.tables.get('public.article')!.permissions.set('anon', { select: selectPerm(['id']) });
  assert.equal(getRoleSchema(next, 'user', ENGINE_PARTS.schema).schema, user);
  old = undefined;
  for (let i = 0; i < 10 && oldRef.deref() !== undefined; i++) {
    await new Promise((r) => setImmediate(r));
    gc();
  }
  assert.equal(oldRef.deref(), undefined, 'the old cache was collected');
  assert.equal(adminOfOld.deref(), undefined, "the old cache's admin schema was collected");
  // the kept schema still serves the role under the new cache
  assert.equal(getRoleSchema(next, 'user', ENGINE_PARTS.schema).schema, user);
});

test("a role's schema makes its roots at once and a table's other types when first reached; completed, it is the eager build", () => {
  const sc = makeCache();
  sc.tables.get('public.author')!.description = 'a cache of its own for the lazy-schema test';
  const rs = getRoleSchema(sc, 'user', ENGINE_PARTS.schema);
  assert.ok(rs.schema instanceof LazySchema);
  // validating `{ author { id } }` reaches query_root and `author`, not the rest
  const author = rs.schema.getType('author') as GraphQLObjectType;
  assert.ok('id' in author.getFields());
  assert.equal(rs.schema.getType('author_bool_exp')?.name, 'author_bool_exp');
  assert.equal(rs.schema.getType('__Type')?.name, '__Type');
  assert.equal(rs.schema.getType('Boolean')?.name, 'Boolean');
  assert.equal(rs.schema.complete, false, 'a type made while building the roots, or an introspection type, is found without completing the schema');
  const admin = buildRoleSchema(sc, 'admin', ENGINE_PARTS.schema);
  assert.equal((admin.schema as unknown as { _mutationType?: unknown })._mutationType, undefined, 'no mutation root made before it is asked for');
  assert.equal(admin.mutationRoot?.name, 'mutation_root');
  assert.equal(admin.schema.getMutationType(), admin.mutationRoot);
  assert.ok(admin.schema.getType('article_insert_input'), 'the mutation root made on first use, with its input types');
  const other = buildRoleSchema(sc, 'admin', ENGINE_PARTS.schema).schema as LazySchema;
  assert.equal(other.getType('article_insert_input')?.name, 'article_insert_input', "a root argument's type (a variable's) before the root is asked for");
  assert.equal(other.getType('article_stream_cursor_input')?.name, 'article_stream_cursor_input');
  assert.equal(other.complete, false, 'found with the roots made, the schema not completed');
  // a type not made yet completes the schema (and is then found)
  assert.equal(rs.schema.getType('author_max_fields')?.name, 'author_max_fields');
  assert.equal(rs.schema.complete, true);
  assert.equal(rs.schema.getType('no_such_type'), undefined);

  // the completed schema is what `new GraphQLSchema` over the same roots gives: same types, fields, arguments
  const fresh = buildRoleSchema(sc, 'user', ENGINE_PARTS.schema);
  assert.equal((fresh.schema as LazySchema).complete, false);
  const eager = new GraphQLSchema({ query: fresh.queryRoot, mutation: fresh.mutationRoot, subscription: fresh.subscriptionRoot, directives: fresh.schema.getDirectives(), assumeValid: true });
  assert.equal(printSchema(lexicographicSortSchema(rs.schema)), printSchema(lexicographicSortSchema(eager)));
  const lazyAgain = buildRoleSchema(sc, 'user', ENGINE_PARTS.schema).schema;
  assert.deepEqual(Object.keys(lazyAgain.getTypeMap()).sort(), Object.keys(rs.schema.getTypeMap()).sort());
  const introspect = (schema: GraphQLSchema) => graphqlSync({ schema: lexicographicSortSchema(schema), source: getIntrospectionQuery() });
  assert.deepEqual(introspect(lazyAgain), introspect(eager));
});

test('introspection of `__schema` completes a lazy schema; `__type` of a made type does not', () => {
  const sc = makeCache();
  sc.tables.get('public.author')!.description = 'another cache of its own for the lazy-schema test';
  const { schema } = buildRoleSchema(sc, 'admin', ENGINE_PARTS.schema);
  // the engine validates requests itself and hands introspection fields to graphql-js's execute
  const one = execute({ schema, document: parse('{ __type(name: "author") { fields { name } } }') }) as ExecutionResult;
  assert.ok((one.data as { __type: { fields: unknown[] } }).__type.fields.length > 0);
  assert.equal((schema as LazySchema).complete, false);
  const all = execute({ schema, document: parse('{ __schema { types { name } } }') }) as ExecutionResult;
  assert.ok((all.data as { __schema: { types: Array<{ name: string }> } }).__schema.types.some((t) => t.name === 'author_variance_fields'));
  assert.equal((schema as LazySchema).complete, true);
});

test('a kept lazy schema makes its remaining types from the new cache once the old one is gone', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const desc = 'a cache of its own for the kept lazy-schema test';
  let old: ReturnType<typeof makeCache> | undefined = makeCache();
  old.tables.get('public.author')!.description = desc;
  const oldRef = new WeakRef(old);
  const user = getRoleSchema(old, 'user', ENGINE_PARTS.schema).schema as LazySchema;
  assert.equal(user.complete, false);
  const next = makeCache();
  next.tables.get('public.author')!.description = desc;
  next.tables.get('public.article')!.permissions.set('anon', { select: selectPerm(['id']) });
  assert.equal(getRoleSchema(next, 'user', ENGINE_PARTS.schema).schema, user);
  old = undefined;
  for (let i = 0; i < 10 && oldRef.deref() !== undefined; i++) {
    await new Promise((r) => setImmediate(r));
    gc();
  }
  assert.equal(oldRef.deref(), undefined, 'the old cache was collected though the kept schema is not complete');
  const article = user.getTypeMap().article as GraphQLObjectType;
  assert.ok('author' in article.getFields() && 'title' in article.getFields());
  assert.equal(outputMeta(article.getFields().author)?.kind, 'object_rel');
});

test("the mutation root's fields are made one by one when read; all of them are the eager root over the same fields", () => {
  const sc = makeCache();
  sc.tables.get('public.author')!.description = 'a cache of its own for the lazy mutation-root test';
  const { schema } = buildRoleSchema(sc, 'admin', ENGINE_PARTS.schema);
  const lazy = schema as LazySchema;
  const root = schema.getMutationType()!;
  const names = Object.keys(root.getFields());
  assert.ok(names.includes('insert_article_one') && names.includes('delete_author_by_pk'), 'every field name listed at once');
  assert.equal(lazy.registry?.named('article_insert_input'), undefined, 'no field made before one is read');
  assert.equal(root.getFields().insert_article_one.args[0].type.toString(), 'article_insert_input!');
  assert.ok(lazy.registry?.named('article_insert_input'), 'the field read made its argument types');
  assert.equal(lazy.registry?.named('author_set_input'), undefined, "another table's fields not made");
  // a variable's type of a field not made yet: that table's fields are made, the schema is not completed
  assert.equal(schema.getType('author_pk_columns_input')?.name, 'author_pk_columns_input');
  assert.equal(lazy.complete, false);
  // every field read: what graphql-js makes of the same field configs at once
  const ctx = new SchemaContext(sc, 'admin', ENGINE_PARTS.schema);
  const sorted = (entries: Array<[string, unknown]>) => Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : 1))) as never;
  const eager = new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'query_root', description: 'query root', fields: sorted(ENGINE_PARTS.schema.query.flatMap((b) => b(ctx))) }),
    mutation: new GraphQLObjectType({ name: 'mutation_root', description: 'mutation root', fields: sorted(ENGINE_PARTS.schema.mutation.flatMap((b) => b(ctx))) }),
    directives: schema.getDirectives(), assumeValid: true,
  });
  const lazyRoots = new GraphQLSchema({ query: schema.getQueryType(), mutation: root, directives: schema.getDirectives(), assumeValid: true });
  assert.equal(printSchema(lexicographicSortSchema(lazyRoots)), printSchema(lexicographicSortSchema(eager)));
});

test('query_root defines a field when it is first read: a first query defines the fields it names; reading all gives a plain map', () => {
  const rs = buildRoleSchema(makeCache(), 'admin', ENGINE_PARTS.schema);
  const fields = rs.queryRoot.getFields();
  const names = Object.keys(fields);
  assert.ok(names.includes('article') && names.includes('author_by_pk'));
  // Not defined yet: each entry is still a getter.
  for (const n of names) assert.equal(typeof Object.getOwnPropertyDescriptor(fields, n)?.get, 'function', `${n} is not defined before it is read`);
  assert.equal(fields.article.args.map((a) => a.name).join(','), 'distinct_on,limit,offset,order_by,where');
  assert.equal(fields.article, fields.article, 'a field is made once');
  // Every field read (introspection): the same fields as an eager query_root, and getFields() now a plain map.
  const eager = new GraphQLObjectType({ name: 'query_root', fields: () => Object.fromEntries(ENGINE_PARTS.schema.query.flatMap((b) => b(new SchemaContext(makeCache(), 'admin', ENGINE_PARTS.schema))).sort(([a], [b]) => (a < b ? -1 : 1))) });
  const shape = (m: Record<string, { type: unknown; args: ReadonlyArray<{ name: string; type: unknown }> }>) => Object.entries(m).map(([k, f]) => `${k}:${String(f.type)}(${f.args.map((a) => `${a.name}:${String(a.type)}`).join(',')})`);
  assert.deepEqual(shape(Object.fromEntries(Object.entries(fields))), shape(eager.getFields()));
  const plain = rs.queryRoot.getFields();
  assert.notEqual(plain, fields);
  for (const n of names) assert.equal(Object.getOwnPropertyDescriptor(plain, n)?.value, fields[n], `${n} is a plain entry once all are made`);
});

test("a role's first mutation root made a slice per event-loop turn: the same root as made at once", async () => {
  const many = (): ReturnType<typeof makeCache> => {
    const sc = makeCache();
    const author = sc.tables.get('public.author')!;
    for (let i = 0; i < 1500; i++) {
      const name = { schema: 'public', name: `t${i}` };
      sc.tables.set(`public.t${i}`, { ...author, name, gqlName: `t${i}`, relationships: new Map(), permissions: new Map(), customRootFields: {}, description: `table ${i} of the sliced mutation-root test` });
    }
    return sc;
  };
  const sc = many();
  const sliced = buildRoleSchema(sc, 'admin', ENGINE_PARTS.schema).schema as LazySchema;
  assert.equal(sliced.mutationPending, true);
  let turns = 0;
  let ticking = true;
  const tick = () => { turns++; if (ticking) setImmediate(tick); };
  setImmediate(tick);
  await sliced.prepareMutation();
  ticking = false;
  assert.equal(sliced.mutationPending, false, 'made');
  assert.ok(turns >= 3, `the event loop turned ${turns} times while the root was made`);
  const atOnce = buildRoleSchema(sc, 'admin', ENGINE_PARTS.schema).schema;
  const roots = (s: GraphQLSchema) => new GraphQLSchema({ query: s.getQueryType(), mutation: s.getMutationType(), directives: s.getDirectives(), assumeValid: true });
  assert.deepEqual(Object.keys(sliced.getMutationType()!.getFields()), Object.keys(atOnce.getMutationType()!.getFields()));
  assert.ok(Object.keys(sliced.getMutationType()!.getFields()).includes('insert_t1499_one'));
  assert.equal(printSchema(lexicographicSortSchema(roots(sliced))), printSchema(lexicographicSortSchema(roots(atOnce))));
  // A role without mutations: nothing to make, no root.
  const anon = buildRoleSchema(sc, 'anon', ENGINE_PARTS.schema).schema as LazySchema;
  await anon.prepareMutation();
  assert.equal(anon.getMutationType(), null);
});

test('sortEntriesSliced gives sortEntries\'s map: order, the last of equal names, __proto__ as an own key', async () => {
  const { sortEntries, sortEntriesSliced } = await import('../../../src/graphql/schema/queryRoot.js');
  const { TurnBudget } = await import('../../../src/lib/index.js');
  const entries = Array.from({ length: 3000 }, (_, i) => [`f${(i * 7919) % 3000}`, { type: GraphQLBoolean, description: `d${i}` }] as [string, never]);
  entries.push(['f12', { type: GraphQLBoolean, description: 'later' } as never], ['__proto__', { type: GraphQLBoolean } as never]);
  const sliced = await sortEntriesSliced(entries, new TurnBudget(0.2));
  const atOnce = sortEntries(entries);
  assert.deepEqual(Object.keys(sliced), Object.keys(atOnce));
  assert.equal(Object.getPrototypeOf(sliced), Object.prototype);
  for (const k of Object.keys(atOnce)) assert.equal(sliced[k], atOnce[k], k);
});

test('prepareRoleSchemas makes the next cache\'s schemas of the roles built on the one it replaces, so their first request builds nothing', async () => {
  let built = 0;
  // The engine's parts with a query builder that counts the builds of a role schema.
  const parts = { ...ENGINE_PARTS.schema, query: [...ENGINE_PARTS.schema.query, () => { built++; return []; }] };
  const prev = makeCache();
  getRoleSchema(prev, 'admin', parts);
  getRoleSchema(prev, 'user', parts);
  assert.equal(built, 2);
  // A change to a table's structure (a column added): neither role's schema can be kept.
  const next = makeCache();
  const author = next.tables.get('public.author')!;
  const nickname = column('nickname', 'text');
  author.columns.push(nickname);
  author.columnsByName.set('nickname', nickname);
  author.permissions.get('user')!.select!.columns.add('nickname');
  await prepareRoleSchemas(prev, next, new TurnBudget(1));
  assert.equal(built, 4);
  const admin = getRoleSchema(next, 'admin', parts);
  const user = getRoleSchema(next, 'user', parts);
  assert.equal(built, 4, 'the first requests found the schemas made');
  assert.ok(fieldNames(admin.schema.getType('author') as GraphQLObjectType).includes('nickname'));
  assert.ok(fieldNames(user.schema.getType('author') as GraphQLObjectType).includes('nickname'));
  // The same schemas as built at once (two more builds).
  for (const role of ['admin', 'user']) {
    assert.equal(printSchema(lexicographicSortSchema(getRoleSchema(next, role, parts).schema)), printSchema(lexicographicSortSchema(buildRoleSchema(next, role, parts).schema)));
  }
  // Back to the first structure: each role's schema of `prev` is kept (its keys), nothing is built.
  const again = makeCache();
  await prepareRoleSchemas(next, again, new TurnBudget(1));
  assert.equal(built, 6);
  assert.equal(getRoleSchema(again, 'admin', parts).schema, getRoleSchema(prev, 'admin', parts).schema);
});
