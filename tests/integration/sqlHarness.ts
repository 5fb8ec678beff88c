/**
 * Harness for the SQL compiler's integration tests (tests/integration/sql*.test.ts): a fresh
 * database on a real Postgres, a schema loaded into it, and `run(fragment)` which compiles a
 * statement, binds its parameters like the engine does and returns the parsed JSON of its one
 * column.
 *
 * The server is SVC_TEST_DATABASE_URL (set by `npm test`); without it an embedded Postgres is
 * started on port 15403 with its data under .tmp/sql/test-pg, and stopped by `close()`.
 */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import pg from 'pg';
import { adminSession, type Session } from '../../src/core/index.js';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from '../../src/execution/index.js';
import type { BoolExp, ComparisonOp, IrValue, OrderByItem, RelationshipJoin, SelectField, SelectIR } from '../../src/ir/index.js';
import { CHECK_VIOLATION_FUNCTION_SQL, compile, resolveParams, type SqlFragment } from '../../src/sql/index.js';

export interface SqlTestDb {
  client: pg.Client;
  /** Runs a compiled root statement; returns its JSON value parsed (and the raw text). */
  run(f: SqlFragment, variables?: Record<string, unknown>, session?: Session): Promise<any>;
  runText(f: SqlFragment, variables?: Record<string, unknown>, session?: Session): Promise<string>;
  close(): Promise<void>;
}

export async function openSqlTestDb(schemaSql: string): Promise<SqlTestDb> {
  let embedded: EmbeddedPostgresHandle | undefined;
  let base = process.env.SVC_TEST_DATABASE_URL;
  if (!base) {
    embedded = await startEmbeddedPostgres({
      dataDir: resolve('.tmp/sql/test-pg'),
      port: 15403,
      database: 'postgres',
      postgresFlags: ['-c', 'fsync=off'],
    });
    base = embedded.maintenanceUrl;
  }
  const dbName = 't_sql_' + randomBytes(5).toString('hex');
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = '/' + dbName;
  // JSON comes back as text, as the engine reads it.
  const client = new pg.Client({ connectionString: url.toString(), types: { getTypeParser: () => (v: string) => v } });
  await client.connect();
  await client.query(`SET TimeZone = 'UTC'`);
  await client.query(schemaSql);
  // Mutation statements call the catalog's check function (the engine creates it with hdb_catalog).
  await client.query('CREATE SCHEMA IF NOT EXISTS hdb_catalog');
  await client.query(CHECK_VIOLATION_FUNCTION_SQL);

  const runText = async (f: SqlFragment, variables: Record<string, unknown> = {}, session: Session = adminSession()) => {
    const c = compile(f);
    const r = await client.query({ text: c.text, values: resolveParams(c.params, variables, session) as unknown[] });
    if (r.rows.length !== 1 || r.fields.length !== 1) throw new Error(`expected one row with one column, got ${r.rows.length}×${r.fields.length}`);
    return r.rows[0][r.fields[0].name] as string;
  };
  return {
    client,
    runText,
    run: async (f, variables, session) => JSON.parse(await runText(f, variables, session)),
    close: async () => {
      await client.end();
      const a = new pg.Client({ connectionString: base });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${dbName}`);
      await a.end();
      await embedded?.stop();
    },
  };
}

// ---- IR shorthands for the tests ----

export const table = (name: string) => ({ schema: 'public', name });
export const lit = (value: unknown, pgType: string): IrValue => ({ source: { kind: 'value', value }, pgType });
export const variable = (name: string, pgType: string): IrValue => ({ source: { kind: 'variable', name }, pgType });
export const col = (column: string, pgType = 'int4', alias = column): SelectField => ({ alias, kind: 'column', column, pgType });
export const cmp = (column: string, op: ComparisonOp, value: IrValue, pgType = 'int4'): BoolExp => ({ kind: 'compare', column: { column, pgType }, op, value });
export const TRUE: BoolExp = { kind: 'true' };
export const asc = (column: string, nulls?: 'first' | 'last'): OrderByItem => ({ target: { kind: 'column', column }, direction: 'asc', nulls });
export const desc = (column: string, nulls?: 'first' | 'last'): OrderByItem => ({ target: { kind: 'column', column }, direction: 'desc', nulls });
export const join = (remote: string, local: string, remoteCol: string): RelationshipJoin => ({ remoteTable: table(remote), mapping: [{ local, remote: remoteCol }] });
export const select = (name: string, fields: SelectField[], rest: Partial<SelectIR> = {}): SelectIR => ({ table: table(name), fields, where: TRUE, ...rest });
