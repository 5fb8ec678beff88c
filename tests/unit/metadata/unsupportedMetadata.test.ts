/**
 * The one list of metadata the engine does not act on yet (metadata/model/unsupportedMetadata.ts):
 * which keys of a document are reported, and the error that names them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../src/core/index.js';
import { assertSupportedMetadata, unsupportedMetadataKeys } from '../../../src/metadata/index.js';

test('non-empty unsupported sections, table remote relationships and unknown keys are reported; empty ones are not', () => {
  assert.deepEqual(unsupportedMetadataKeys({ version: 2, tables: [], functions: [], query_collections: [], allowlist: [] }), []);
  assert.deepEqual(
    unsupportedMetadataKeys({
      version: 2,
      tables: [{ table: 'a', event_triggers: [] }, { table: 'b', event_triggers: [{ name: 't' }], remote_relationships: [{ name: 'r' }] }],
      actions: [{ name: 'x' }],
      custom_types: { objects: [], scalars: [] },
      remote_schemas: [],
      cron_triggers: null,
      query_templates: [],
      sources: [{ name: 'default' }],
    }),
    ['actions', 'sources', 'tables[1].remote_relationships'],
  );
  assert.deepEqual(unsupportedMetadataKeys({ custom_types: { enums: [{ name: 'E' }] } }), ['custom_types']);
  assert.deepEqual(unsupportedMetadataKeys('not an object'), []);
});

test('assertSupportedMetadata throws 400 not-supported naming each key, at the given path', () => {
  assert.doesNotThrow(() => assertSupportedMetadata({ tables: [] }));
  assert.throws(
    () => assertSupportedMetadata({ tables: [], actions: [{ name: 'c' }], remote_schemas: [{ name: 'r' }] }, '$[1].args'),
    (e: unknown) =>
      e instanceof ApiError &&
      e.code === 'not-supported' &&
      e.status === 400 &&
      e.path === '$[1].args' &&
      e.message === 'this engine does not support yet, so refuses to store: actions (actions), remote_schemas (remote schemas)',
  );
});
