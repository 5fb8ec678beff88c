/**
 * compileAggregate against a real Postgres: every aggregate operator with aliases and
 * `__typename`s (expected values from Hasura's aggregations cases), count variants, aggregates
 * over limited/ordered rows, nested `<rel>_aggregate`, and the permission-limit split of nodes.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AggregateField, AggregateIR, AggregateOp, SelectField } from '../../src/ir/index.js';
import { compileAggregate, compileSelect } from '../../src/sql/index.js';
import { TRUE, asc, cmp, col, desc, join, lit, openSqlTestDb, select, table, variable, type SqlTestDb } from './sqlHarness.js';

const SCHEMA = `
CREATE TABLE author (id serial PRIMARY KEY, name text UNIQUE);
CREATE TABLE article (id serial PRIMARY KEY, title text, content text, author_id int REFERENCES author(id), is_published boolean, rating numeric);
INSERT INTO author (name) VALUES ('Author 1'), ('Author 2');
INSERT INTO article (title, content, author_id, is_published, rating) VALUES
  ('Article 1', 'Sample article content 1', 1, false, 4.5),
  ('Article 2', 'Sample article content 2', 1, true, NULL),
  ('Article 3', 'Sample article content 3', 2, true, 4.5);
`;

const ops = (op: 'sum' | 'avg' | 'max' | 'min', alias: string, cols: Array<[string, string]>): AggregateOp => ({
  alias,
  kind: 'op',
  op,
  columns: cols.flatMap(([c, t]) => [
    { alias: c, column: c, pgType: t },
    { alias: `${c}_${op}`, column: c, pgType: t },
  ]),
});
const numCols: Array<[string, string]> = [['id', 'int4'], ['author_id', 'int4']];
const allCols: Array<[string, string]> = [['id', 'int4'], ['title', 'text'], ['content', 'text'], ['author_id', 'int4']];
const articleNodes: SelectField[] = [
  col('id'),
  col('title', 'text'),
  col('content', 'text'),
  col('is_published', 'bool'),
  { alias: 'author', kind: 'object_rel', join: join('author', 'author_id', 'id'), select: select('author', [col('id'), col('name', 'text')]) },
];
const aggregate = (fields: AggregateField[], rest: Partial<AggregateIR> = {}): AggregateIR => ({ table: table('article'), where: TRUE, fields, ...rest });

let db: SqlTestDb;
before(async () => {
  db = await openSqlTestDb(SCHEMA);
});
after(async () => {
  await db?.close();
});

describe('compileAggregate', () => {
  it('computes every operator with aliases, and nodes (Hasura article_agg_where)', async () => {
    const ir = aggregate(
      [
        {
          alias: 'aggregate',
          kind: 'aggregate',
          ops: [
            { alias: 'count', kind: 'count' },
            ops('sum', 'sum', numCols),
            ops('avg', 'avg_fields', numCols),
            ops('max', 'max', allCols),
            ops('min', 'min_fields', allCols),
          ],
        },
        { alias: 'nodes', kind: 'nodes', fields: articleNodes },
        { alias: 'articles', kind: 'nodes', fields: [col('id')] },
      ],
      { where: cmp('id', '_gt', lit(1, 'int4')) },
    );
    assert.deepEqual(await db.run(compileAggregate(ir)), {
      aggregate: {
        count: 2,
        sum: { id: 5, id_sum: 5, author_id: 3, author_id_sum: 3 },
        avg_fields: { id: 2.5, id_avg: 2.5, author_id: 1.5, author_id_avg: 1.5 },
        max: { id: 3, id_max: 3, title: 'Article 3', title_max: 'Article 3', content: 'Sample article content 3', content_max: 'Sample article content 3', author_id: 2, author_id_max: 2 },
        min_fields: { id: 2, id_min: 2, title: 'Article 2', title_min: 'Article 2', content: 'Sample article content 2', content_min: 'Sample article content 2', author_id: 1, author_id_min: 1 },
      },
      nodes: [
        { id: 2, title: 'Article 2', content: 'Sample article content 2', is_published: true, author: { id: 1, name: 'Author 1' } },
        { id: 3, title: 'Article 3', content: 'Sample article content 3', is_published: true, author: { id: 2, name: 'Author 2' } },
      ],
      articles: [{ id: 2 }, { id: 3 }],
    });
  });

  it('counts rows, non-null values and distinct values', async () => {
    const ir = aggregate([
      {
        alias: 'aggregate',
        kind: 'aggregate',
        ops: [
          { alias: 'all', kind: 'count' },
          { alias: 'rated', kind: 'count', columns: ['rating'] },
          { alias: 'ratings', kind: 'count', columns: ['rating'], distinct: true },
          { alias: 'pairs', kind: 'count', columns: ['author_id', 'rating'], distinct: true },
          { alias: '__typename', kind: 'typename', name: 'article_aggregate_fields' },
        ],
      },
      { alias: '__typename', kind: 'typename', name: 'article_aggregate' },
    ]);
    assert.deepEqual(await db.run(compileAggregate(ir)), {
      aggregate: { all: 3, rated: 2, ratings: 1, pairs: 3, __typename: 'article_aggregate_fields' },
      __typename: 'article_aggregate',
    });
  });

  it('stringifies big numbers when asked, and computes stddev/variance', async () => {
    const ir = aggregate([
      {
        alias: 'aggregate',
        kind: 'aggregate',
        ops: [
          { alias: 'sum', kind: 'op', op: 'sum', columns: [{ alias: 'rating', column: 'rating', pgType: 'numeric', stringify: true }, { alias: '__typename', kind: 'typename', name: 'article_sum_fields' }] },
          { alias: 'var_samp', kind: 'op', op: 'var_samp', columns: [{ alias: 'id', column: 'id', pgType: 'int4' }] },
          { alias: 'stddev_pop', kind: 'op', op: 'stddev_pop', columns: [{ alias: 'id', column: 'id', pgType: 'int4' }] },
        ],
      },
    ]);
    const got = await db.run(compileAggregate(ir));
    assert.deepEqual(got.aggregate.sum, { rating: '9.0', __typename: 'article_sum_fields' });
    assert.equal(got.aggregate.var_samp.id, 1);
    assert.ok(Math.abs(got.aggregate.stddev_pop.id - Math.sqrt(2 / 3)) < 1e-12);
  });

  it('aggregates over the rows left after order_by, limit and offset', async () => {
    const ir = aggregate(
      [
        { alias: 'aggregate', kind: 'aggregate', ops: [{ alias: 'count', kind: 'count' }, ops('sum', 'sum', [['id', 'int4']])] },
        { alias: 'nodes', kind: 'nodes', fields: [col('id')] },
      ],
      { orderBy: [desc('id')], limit: variable('l', 'int4'), offset: 1 },
    );
    assert.deepEqual(await db.run(compileAggregate(ir), { l: 1 }), { aggregate: { count: 1, sum: { id: 2, id_sum: 2 } }, nodes: [{ id: 2 }] });
  });

  it('answers one row even for an empty set or typename-only selections', async () => {
    const none = aggregate([{ alias: 'aggregate', kind: 'aggregate', ops: [{ alias: 'count', kind: 'count' }, ops('max', 'max', [['id', 'int4']])] }, { alias: 'nodes', kind: 'nodes', fields: [col('id')] }], {
      where: cmp('id', '_gt', lit(100, 'int4')),
    });
    assert.deepEqual(await db.run(compileAggregate(none)), { aggregate: { count: 0, max: { id: null, id_max: null } }, nodes: [] });
    const onlyTypename = aggregate([{ alias: 't', kind: 'typename', name: 'article_aggregate' }, { alias: 'aggregate', kind: 'aggregate', ops: [{ alias: '__typename', kind: 'typename', name: 'x' }] }]);
    assert.deepEqual(await db.run(compileAggregate(onlyTypename)), { t: 'article_aggregate', aggregate: { __typename: 'x' } });
  });

  it('caps only the nodes with the permission limit (nodesLimit)', async () => {
    const fields: AggregateField[] = [
      { alias: 'aggregate', kind: 'aggregate', ops: [{ alias: 'count', kind: 'count' }] },
      { alias: 'nodes', kind: 'nodes', fields: [col('id')] },
    ];
    assert.deepEqual(await db.run(compileAggregate(aggregate(fields, { orderBy: [asc('id')], nodesLimit: 1 }))), { aggregate: { count: 3 }, nodes: [{ id: 1 }] });
    assert.deepEqual(await db.run(compileAggregate(aggregate(fields, { orderBy: [asc('id')], nodesLimit: 1, limit: 2 }))), { aggregate: { count: 2 }, nodes: [{ id: 1 }] });
    const byVar = aggregate(fields, { orderBy: [desc('id')], nodesLimit: 2, limit: variable('l', 'int4') });
    assert.deepEqual(await db.run(compileAggregate(byVar), { l: 3 }), { aggregate: { count: 3 }, nodes: [{ id: 3 }, { id: 2 }] });
    assert.deepEqual(await db.run(compileAggregate(byVar), { l: 1 }), { aggregate: { count: 1 }, nodes: [{ id: 3 }] });
  });

  it('nests <rel>_aggregate in a select (Hasura author_agg_with_articles_where)', async () => {
    const ir = select(
      'author',
      [
        col('id'),
        col('name', 'text'),
        {
          alias: 'articles_aggregate',
          kind: 'array_agg_rel',
          join: join('article', 'id', 'author_id'),
          aggregate: {
            table: table('article'),
            where: cmp('id', '_lt', lit(3, 'int4')),
            fields: [
              { alias: 'aggregate', kind: 'aggregate', ops: [{ alias: 'count', kind: 'count' }, { alias: 'avg', kind: 'op', op: 'avg', columns: [{ alias: 'id', column: 'id', pgType: 'int4' }] }] },
              { alias: 'nodes', kind: 'nodes', fields: [col('id'), col('title', 'text')] },
            ],
            orderBy: [asc('id')],
          },
        },
      ],
      { orderBy: [asc('id')] },
    );
    assert.deepEqual(await db.run(compileSelect(ir)), [
      { id: 1, name: 'Author 1', articles_aggregate: { aggregate: { count: 2, avg: { id: 1.5 } }, nodes: [{ id: 1, title: 'Article 1' }, { id: 2, title: 'Article 2' }] } },
      { id: 2, name: 'Author 2', articles_aggregate: { aggregate: { count: 0, avg: { id: null } }, nodes: [] } },
    ]);
  });
});
