/**
 * The Db with a client span around each round trip to Postgres (`pg.query`, `pg.pipeline`,
 * `pg.transaction` and the statements inside it), carrying `db.system` and the parameterised
 * `db.statement` — never the values. createDb returns it only while tracing is on, so the untraced
 * hot path has no wrapper at all.
 */
import { traced } from '../tracing/index.js';
import type { Db, DbClient, PipelinedStatement, PipelineOptions } from './db.js';

const ATTRS = { 'db.system': 'postgresql' };

const span = <T>(name: string, statement: string, fn: () => Promise<T>): Promise<T> =>
  traced(name, { ...ATTRS, 'db.statement': statement }, fn, 'client');

function tracedClient<C extends DbClient>(c: C): DbClient {
  return {
    query: (text, values, opts) => span('pg.query', text, () => c.query(text, values, opts)),
    queryJsonText: (text, values, opts) => span('pg.query', text, () => c.queryJsonText(text, values, opts)),
    queryJsonFramed: (text, values, frame, opts) => span('pg.query', text, () => c.queryJsonFramed(text, values, frame, opts)),
    queryRaw: (text) => span('pg.query', text, () => c.queryRaw(text)),
  };
}

export function tracedDb(db: Db): Db {
  return {
    ...db,
    ...tracedClient(db),
    pipeline: ((statements: readonly PipelinedStatement[], opts: PipelineOptions) =>
      span('pg.pipeline', statements.map((s) => s.text).join(';\n'), () => db.pipeline(statements, opts))) as Db['pipeline'],
    transaction: (opts, fn) => traced('pg.transaction', ATTRS, () => db.transaction(opts, (c) => fn(tracedClient(c))), 'client'),
    withClient: (fn) => db.withClient((c) => fn(tracedClient(c))),
    ping: () => db.ping(),
    poolStats: () => db.poolStats(),
    close: () => db.close(),
  };
}
