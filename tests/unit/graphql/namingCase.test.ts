import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GraphQLEnumType, GraphQLInputObjectType, GraphQLObjectType } from 'graphql';
import { canonicalName, chosenPath, getRoleSchema, validateRequest } from '../../../src/graphql/index.js';
import { snakeToCamel, snakeToPascal, upperEnumValue, customThenCamel } from '../../../src/graphql/schema/namingCase.js';
import { makeCache } from './fixtures.js';
import { ENGINE_PARTS } from '../../../src/appState.js';

test("Hasura's graphql-default case conversions", () => {
  assert.equal(snakeToCamel('insert_author_one'), 'insertAuthorOne');
  assert.equal(snakeToCamel('author_by_pk'), 'authorByPk');
  assert.equal(snakeToCamel('_is_null'), '_isNull');
  assert.equal(snakeToCamel('_has_keys_any'), '_hasKeysAny');
  assert.equal(snakeToCamel('_st_d_within'), '_stDWithin');
  assert.equal(snakeToCamel('_and'), '_and');
  assert.equal(snakeToCamel('Author'), 'author');
  assert.equal(snakeToCamel('createdAt'), 'createdAt');
  assert.equal(snakeToCamel('col_1'), 'col1');
  assert.equal(snakeToPascal('author_bool_exp'), 'AuthorBoolExp');
  assert.equal(snakeToPascal('Int_comparison_exp'), 'IntComparisonExp');
  assert.equal(snakeToPascal('other_author_stddev_pop_fields'), 'OtherAuthorStddevPopFields');
  assert.equal(snakeToPascal('order_by'), 'OrderBy');
  assert.equal(upperEnumValue('asc_nulls_first'), 'ASC_NULLS_FIRST');
  assert.equal(upperEnumValue('in-progress'), 'in-progress', 'not a GraphQL name once converted: kept');
  assert.equal(customThenCamel('my_rel', '_aggregate'), 'my_relAggregate');
});

test('a graphql-default role schema: renamed types, fields, arguments and enum values; the hasura-default names kept in svcName', () => {
  const cache = { ...makeCache(), namingConvention: 'graphql-default' as const };
  const rs = getRoleSchema(cache, 'admin', ENGINE_PARTS.schema);
  const root = Object.keys(rs.queryRoot.getFields());
  assert.deepEqual(root, ['article', 'articleAggregate', 'articleByPk', 'author', 'authorAggregate', 'authorByPk']);
  assert.deepEqual(rs.queryRoot.getFields().author.args.map((a) => `${a.name}: ${a.type}`),
    ['distinctOn: [AuthorSelectColumn!]', 'limit: Int', 'offset: Int', 'orderBy: [AuthorOrderBy!]', 'where: AuthorBoolExp']);
  assert.deepEqual(rs.queryRoot.getFields().author.args.map(canonicalName), ['distinct_on', 'limit', 'offset', 'order_by', 'where']);
  const article = rs.schema.getType('Article') as GraphQLObjectType;
  assert.ok(Object.keys(article.getFields()).includes('authorId'));
  const boolExp = rs.schema.getType('ArticleBoolExp') as GraphQLInputObjectType;
  assert.equal(canonicalName(boolExp.getFields().authorId), 'author_id');
  assert.equal(canonicalName(boolExp.getFields()._and), '_and');
  const order = rs.schema.getType('OrderBy') as GraphQLEnumType;
  assert.deepEqual(order.getValues().map((v) => [v.name, v.value]).slice(0, 2), [['ASC', 'asc'], ['ASC_NULLS_FIRST', 'asc_nulls_first']]);
  const columns = rs.schema.getType('ArticleSelectColumn') as GraphQLEnumType;
  assert.ok(columns.getValues().some((v) => v.name === 'authorId' && v.value === 'author_id'));
  assert.equal(rs.schema.getType('article'), undefined);
  assert.equal(rs.queryRoot.name, 'query_root');
  // The hasura-default schema of the same cache is untouched.
  assert.deepEqual(Object.keys(getRoleSchema(makeCache(), 'admin', ENGINE_PARTS.schema).queryRoot.getFields()), ['article', 'article_aggregate', 'article_by_pk', 'author', 'author_aggregate', 'author_by_pk']);
});

test("a planner's hasura-default path is rewritten in the schema's names (graphql-default only)", () => {
  const cache = { ...makeCache(), namingConvention: 'graphql-default' as const };
  const op = validateRequest(getRoleSchema(cache, 'admin', ENGINE_PARTS.schema), {
    query: '{ a: author(orderBy: [{createdAt: ASC}], where: {articles: {authorId: {_isNull: false}}}) { articles(distinctOn: authorId) { id } } }',
  });
  assert.equal(chosenPath(op, '$.selectionSet.a.args.order_by[0].createdAt'), '$.selectionSet.a.args.orderBy[0].createdAt');
  assert.equal(chosenPath(op, '$.selectionSet.a.args.where.articles.author_id._is_null'), '$.selectionSet.a.args.where.articles.authorId._isNull');
  assert.equal(chosenPath(op, '$.selectionSet.a.selectionSet.articles.args.distinct_on'), '$.selectionSet.a.selectionSet.articles.args.distinctOn');
  assert.equal(chosenPath(op, '$.selectionSet.a.args'), '$.selectionSet.a.args');
  assert.equal(chosenPath(op, '$'), '$');
  assert.equal(chosenPath(op, '$.selectionSet.nope.args.order_by'), '$.selectionSet.nope.args.order_by', 'what cannot be followed is kept');
});
