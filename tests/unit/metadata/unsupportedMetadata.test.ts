/**
 * The one list of metadata the engine does not act on yet (metadata/model/unsupportedMetadata.ts):
 * which keys of a document are reported, and the error that names them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../src/core/index.js';
import { assertSupportedMetadata, decodeFunctionMetadata, unsupportedMetadataKeys, UNSUPPORTED_METADATA_KEYS, UNSUPPORTED_TABLE_KEYS } from '../../../src/metadata/index.js';

test('non-empty sections still on the list, and unknown keys, are reported; empty ones are not', () => {
  assert.deepEqual(unsupportedMetadataKeys({ version: 2, tables: [], functions: [], query_collections: [], allowlist: [] }), []);
  const doc: Record<string, unknown> = {
    version: 2,
    tables: [{ table: 'a' }, { table: 'b', ...Object.fromEntries(Object.keys(UNSUPPORTED_TABLE_KEYS).map((k) => [k, [{ name: 'r' }]])) }],
    query_templates: [],
    unknown_section: [{ name: 'default' }],
  };
  for (const key of Object.keys(UNSUPPORTED_METADATA_KEYS)) doc[key] = [{ name: 'x' }];
  assert.deepEqual(
    unsupportedMetadataKeys(doc).sort(),
    [...Object.keys(UNSUPPORTED_METADATA_KEYS), 'unknown_section', ...Object.keys(UNSUPPORTED_TABLE_KEYS).map((k) => `tables[1].${k}`)].sort(),
  );
  // Empty values of any section, listed or not, are accepted (Hasura's exports carry them).
  assert.deepEqual(unsupportedMetadataKeys({ actions: [], custom_types: { objects: [], scalars: [] }, remote_schemas: [], cron_triggers: null, tables: [{ table: 'a', event_triggers: [], remote_relationships: [] }] }), []);
  assert.deepEqual(unsupportedMetadataKeys('not an object'), []);
});

test('assertSupportedMetadata throws 400 not-supported naming each key, at the given path', () => {
  assert.doesNotThrow(() => assertSupportedMetadata({ tables: [] }));
  assert.throws(
    () => assertSupportedMetadata({ tables: [], unknown_section: [{ name: 'c' }], backend_configs: { dataconnector: { r: { uri: 'http://127.0.0.1:9' } } } }, '$[1].args'),
    (e: unknown) =>
      e instanceof ApiError &&
      e.code === 'not-supported' &&
      e.status === 400 &&
      e.path === '$[1].args' &&
      e.message === 'this engine does not support yet, so refuses to store: unknown_section (unknown key), backend_configs (unknown key)',
  );
});

test("function and remote schema permissions are stored (no longer on the list)", () => {
  assert.deepEqual(unsupportedMetadataKeys({ version: 2, tables: [], functions: [{ function: 'f', permissions: [{ role: 'user' }] }] }), []);
  assert.deepEqual(unsupportedMetadataKeys({ version: 2, tables: [], remote_schemas: [{ name: 'r', permissions: [{ role: 'user' }] }] }), []);
  const fm = decodeFunctionMetadata({ function: 'f', configuration: { exposed_as: 'mutation' }, permissions: [{ role: 'user' }, { role: 'manager' }] }, '$.functions[0]');
  assert.deepEqual(fm.permissions, [{ role: 'user' }, { role: 'manager' }]);
  assert.equal(decodeFunctionMetadata({ function: 'f', permissions: [] }, '$').permissions, undefined);
  assert.throws(() => decodeFunctionMetadata({ function: 'f', permissions: [{ role: 'u' }, { role: 'u' }] }, '$.functions[0]'),
    (e: unknown) => e instanceof ApiError && e.code === 'parse-failed' && e.path === '$.functions[0].permissions[1]');
  assert.throws(() => decodeFunctionMetadata({ function: 'f', permissions: [{}] }, '$.functions[0]'),
    (e: unknown) => e instanceof ApiError && e.path === '$.functions[0].permissions[0]');
});
