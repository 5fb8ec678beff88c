/**
 * The one-buffer encoder of Parse / Bind / Execute / Sync gives exactly the bytes node-postgres'
 * own serializer gives for the same messages (ASCII, UTF-8 past the short-string loop, nulls,
 * binary Buffers, empty parameter lists, several statements).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { encodeExtendedQuery, type ExtendedStatement } from '../../../src/execution/extendedQueryMessages.js';

const { serialize } = createRequire(import.meta.url)('pg-protocol') as {
  serialize: {
    parse(q: { name: string; text: string }): Buffer;
    bind(b: { portal: string; statement: string; values: unknown[]; binary: boolean }): Buffer;
    execute(e: { portal: string }): Buffer;
    sync(): Buffer;
  };
};

function reference(statements: ExtendedStatement[]): Buffer {
  const parts: Buffer[] = [];
  for (const s of statements) {
    if (s.parse) parts.push(Buffer.from(serialize.parse({ name: s.name, text: s.text })));
    parts.push(Buffer.from(serialize.bind({ portal: '', statement: s.name, values: [...s.values], binary: false })));
    parts.push(Buffer.from(serialize.execute({ portal: '' })));
  }
  parts.push(Buffer.from(serialize.sync()));
  return Buffer.concat(parts);
}

const cases: Array<[string, ExtendedStatement[]]> = [
  ['no parameters, parsed', [{ name: 's1', text: 'SELECT 1', parse: true, values: [] }]],
  ['ASCII, null, number text', [{ name: 's2', text: 'SELECT $1, $2, $3', parse: false, values: ['bumped', null, '4242'] }]],
  ['UTF-8 short and long values, UTF-8 statement text', [{
    name: 'sé', text: "SELECT 'ünïcödé' || $1 || $2", parse: true,
    values: ['héllo', `${'x'.repeat(200)}€😀`, 'a\u0000b'.replace('\u0000', '')],
  }]],
  ['binary Buffer parameter', [{ name: '', text: 'SELECT $1::bytea', parse: true, values: [Buffer.from([0, 1, 2, 255])] }]],
  ['a pipeline of set_config + a statement with many values', [
    { name: 'cfg', text: "SELECT set_config('svc.user', $1, true)", parse: false, values: ['{"x-svc-role":"admin"}'] },
    { name: 'ins', text: 'INSERT …', parse: true, values: Array.from({ length: 300 }, (_, i) => (i % 7 === 0 ? null : `note ${i} of 100 written by the benchmark`)) },
  ]],
  ['empty strings', [{ name: 's3', text: 'SELECT $1', parse: false, values: [''] }]],
];

for (const [name, statements] of cases) {
  test(`encodes ${name} as node-postgres does`, () => {
    assert.deepEqual(encodeExtendedQuery(statements), reference(statements));
  });
}
