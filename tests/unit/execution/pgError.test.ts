import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { ApiError } from '../../../src/core/index.js';
import { pgErrorToApiError } from '../../../src/execution/index.js';

function pgError(code: string, message: string, detail?: string): Error {
  const e = new pg.DatabaseError(message, 0, 'error');
  e.code = code;
  e.severity = 'ERROR';
  e.detail = detail;
  return e;
}

const map = (code: string, message: string, mode?: 'dml' | 'raw' | 'default') =>
  pgErrorToApiError(pgError(code, message, 'Key (name)=(x) already exists.'), { mode, statement: 'INSERT …', args: [1, 'x'] });

test('integrity violations are 400 constraint-violation with Hasura\'s prefixes', () => {
  const cases: Array<[string, string, string]> = [
    ['23505', 'duplicate key value violates unique constraint "author_name_key"', 'Uniqueness violation. duplicate key value violates unique constraint "author_name_key"'],
    ['23503', 'insert or update on table "article" violates foreign key constraint "article_author_id_fkey"', 'Foreign key violation. insert or update on table "article" violates foreign key constraint "article_author_id_fkey"'],
    ['23502', 'null value in column "door_no" of relation "address" violates not-null constraint', 'Not-NULL violation. null value in column "door_no" of relation "address" violates not-null constraint'],
    ['23P01', 'conflicting key value violates exclusion constraint "x"', 'Exclusion violation. conflicting key value violates exclusion constraint "x"'],
    ['23001', 'update or delete on table "a" violates RESTRICT setting', 'Can not delete or update due to data being referred. update or delete on table "a" violates RESTRICT setting'],
  ];
  for (const [code, message, expected] of cases) {
    const e = map(code, message);
    assert.equal(e.code, 'constraint-violation', code);
    assert.equal(e.status, 400);
    assert.equal(e.message, expected);
    assert.equal(e.path, '$');
  }
});

test('check violations are permission-error, data exceptions data-exception, bad LIKE escapes bad-request', () => {
  const check = map('23514', 'new row for relation "t" violates check constraint "c"');
  assert.deepEqual([check.code, check.message], ['permission-error', 'Check constraint violation. new row for relation "t" violates check constraint "c"']);
  const data = map('22P02', 'invalid input syntax for type integer: "x"');
  assert.deepEqual([data.code, data.status, data.message], ['data-exception', 400, 'invalid input syntax for type integer: "x"']);
  const like = map('22025', 'LIKE pattern must not end with escape character');
  assert.deepEqual([like.code, like.message], ['bad-request', 'LIKE pattern must not end with escape character']);
});

test('on_conflict without a matching constraint is a constraint-error', () => {
  const e = map('42P10', 'there is no unique or exclusion constraint matching the ON CONFLICT specification');
  assert.deepEqual([e.code, e.status, e.message], ['constraint-error', 400, 'there is no unique or exclusion constraint on target column(s)']);
});

test('serialization failures are concurrent-update', () => {
  assert.equal(map('40001', 'could not serialize access').code, 'concurrent-update');
});

test('program limits (a request too deep or too big for Postgres) are 400 bad-request, not 500', () => {
  for (const mode of ['dml', 'default'] as const) {
    const e = map('54001', 'stack depth limit exceeded', mode);
    assert.deepEqual([e.code, e.status, e.message], ['bad-request', 400, 'the request is too large or too complex for the database: stack depth limit exceeded']);
  }
  assert.equal(map('54001', 'stack depth limit exceeded', 'raw').message, 'query execution failed');
});

test('anything else is a 500 unexpected "database query error" (Hasura\'s internalError) with the details only in internal', () => {
  const e = map('42703', 'column "nope" does not exist');
  assert.deepEqual([e.code, e.status, e.message], ['unexpected', 500, 'database query error']);
  assert.deepEqual(e.internal, {
    statement: 'INSERT …',
    prepared: false,
    arguments: ['1', 'x'],
    error: { exec_status: 'FatalError', hint: null, message: 'column "nope" does not exist', status_code: '42703', description: 'Key (name)=(x) already exists.' },
  });
  assert.deepEqual(e.toQueryBody(false), { path: '$', error: 'database query error', code: 'unexpected' });
  assert.equal(map('23505', 'dup', 'default').code, 'unexpected');
  const raised = map('P0001', 'only the owner may edit');
  assert.deepEqual([raised.code, raised.status, raised.message, (raised.internal as any).error.message], ['unexpected', 500, 'database query error', 'only the owner may edit']);
});

test('run_sql errors are 400 database-error "query execution failed"', () => {
  for (const code of ['42601', '23505', '22012', '40001']) {
    const e = map(code, 'whatever', 'raw');
    assert.deepEqual([e.code, e.status, e.message], ['database-error', 400, 'query execution failed'], code);
    assert.equal((e.internal as { error: { status_code: string } }).error.status_code, code);
  }
});

test('connection failures are 500 database-error; ApiErrors pass through; isAdmin:false drops internal', () => {
  const conn = pgErrorToApiError(new Error('connect ECONNREFUSED 127.0.0.1:1'));
  assert.deepEqual([conn.code, conn.status, conn.message], ['database-error', 500, 'database connection error']);
  const api = new ApiError('not-exists', 'x');
  assert.equal(pgErrorToApiError(api), api);
  assert.equal(pgErrorToApiError(pgError('23505', 'dup'), { isAdmin: false }).internal, undefined);
});
