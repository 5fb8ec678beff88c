/**
 * A remote schema's `customization` (Hasura v2: root-field namespace, type and field renames) is not
 * applied by this engine: a definition carrying one is refused, never stored without effect.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../../src/core/index.js';
import { decodeRemoteSchemaDef } from '../../../src/metadata/model/decodeRemoteSchema.js';

test('a remote schema definition with a customization is refused with not-supported at its path', () => {
  const base = { url: 'http://127.0.0.1:9/graphql' };
  for (const customization of [{ root_fields_namespace: 'ns' }, { type_names: { prefix: 'x_' } }, { field_names: [{ parent_type: 'Query', prefix: 'a_' }] }]) {
    assert.throws(() => decodeRemoteSchemaDef({ ...base, customization }, '$.args.definition'),
      (e: unknown) => e instanceof ApiError && e.code === 'not-supported' && e.path === '$.args.definition.customization' && /not supported/.test(e.message));
  }
  // An empty one changes nothing and is taken, as Hasura's export writes it.
  for (const customization of [{}, { field_names: [] }, null]) {
    assert.equal(decodeRemoteSchemaDef({ ...base, customization }, '$.args.definition').url, base.url);
  }
});
