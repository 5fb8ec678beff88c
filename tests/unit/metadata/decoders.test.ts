import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../src/core/index.js';
import { decodeMetadata, decodePermissionDef, decodeRelationship, encodeMetadata, assertNoDuplicates } from '../../../src/metadata/index.js';

const fails = (code: string, message: string, path: string) => (e: unknown) =>
  e instanceof ApiError && e.code === code && e.message === message && e.path === path;

test('metadata v1 and v2 documents decode to the same normalised model', () => {
  const v1 = decodeMetadata({
    tables: [{ table: 'author', array_relationships: [{ name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } }] }],
    functions: [{ schema: 'public', name: 'search' }],
    query_templates: [],
  });
  const v2 = decodeMetadata({
    version: 2,
    tables: [{ table: { schema: 'public', name: 'author' }, array_relationships: [{ name: 'articles', using: { foreign_key_constraint_on: { table: { schema: 'public', name: 'article' }, column: 'author_id' } } }] }],
    functions: [{ function: { schema: 'public', name: 'search' } }],
  });
  assert.deepEqual(v1, v2);
  assert.deepEqual(encodeMetadata(v1), {
    version: 2,
    tables: [
      {
        table: { schema: 'public', name: 'author' },
        array_relationships: [{ name: 'articles', using: { foreign_key_constraint_on: { table: { schema: 'public', name: 'article' }, column: 'author_id' } } }],
      },
    ],
    functions: [{ function: { schema: 'public', name: 'search' } }],
  });
});

test('export round-trips: decode(encode(m)) = m, defaults omitted from the export', () => {
  const doc = {
    version: 2,
    tables: [
      {
        table: { schema: 'hge', name: 't' },
        is_enum: true,
        configuration: { custom_root_fields: { select: 'Ts' }, custom_column_names: { id: 'Id' } },
        object_relationships: [{ name: 'o', using: { manual_configuration: { remote_table: { schema: 'public', name: 'x' }, column_mapping: { a: 'b' } } }, comment: 'c' }],
        computed_fields: [{ name: 'cf', definition: { function: { schema: 'public', name: 'f' }, table_argument: 'row' } }],
        insert_permissions: [{ role: 'u', permission: { check: {}, set: { a: 'X-Svc-A' }, columns: ['a'] } }],
        select_permissions: [{ role: 'u', permission: { columns: '*', filter: { a: 1 }, limit: 3, allow_aggregations: true } }],
        update_permissions: [{ role: 'u', permission: { columns: ['a'], filter: {}, check: { a: 2 } } }],
        delete_permissions: [{ role: 'u', permission: { filter: {} }, comment: 'del' }],
      },
    ],
  };
  const m = decodeMetadata(doc);
  assert.deepEqual(encodeMetadata(m), doc);
  assert.deepEqual(decodeMetadata(encodeMetadata(m)), m);
});

test('decode errors are aeson-style with the JSON path of the bad value', () => {
  assert.throws(() => decodeMetadata({ version: 2 }), fails('parse-failed', 'key "tables" not found', '$'));
  assert.throws(() => decodeMetadata({ tables: [{ table: 'a', select_permissions: [{ role: 'u', permission: { filter: {} } }] }] }, '$.args'), fails('parse-failed', 'key "columns" not found', '$.args.tables[0].select_permissions[0].permission'));
  assert.throws(() => decodeMetadata({ tables: [{ table: 'a', foo: 1 }] }), fails('parse-failed', 'unexpected keys when parsing TableMetadata : ["foo"]', '$.tables[0]'));
  assert.throws(() => decodeMetadata({ tables: [{ table: 5 }] }), fails('parse-failed', 'expecting a string or an object with name and schema', '$.tables[0].table'));
  assert.throws(() => decodeRelationship('object', { name: 'r', using: {} }, '$'), fails('parse-failed', 'atleast one of foreign_key_constraint_on/manual_configuration should be present', '$.using'));
  assert.throws(
    () => decodeRelationship('array', { name: 'r', using: { foreign_key_constraint_on: { table: 'x' } } }, '$'),
    fails('parse-failed', 'key "column" not found', '$.using.foreign_key_constraint_on'),
  );
  assert.throws(() => decodePermissionDef('select', { role: 'u', permission: { columns: 'id', filter: {} } }, '$'), fails('parse-failed', 'expected Array, encountered String', '$.permission.columns'));
});

test('permission bodies get their defaults', () => {
  assert.deepEqual(decodePermissionDef('select', { role: 'u', permission: { columns: ['a'], filter: {} } }, '$'), {
    role: 'u',
    permission: { columns: ['a'], filter: {}, allow_aggregations: false, computed_fields: [] },
    comment: null,
  });
  assert.deepEqual(decodePermissionDef('insert', { role: 'u', permission: { check: { a: 1 }, other: 1 } }, '$').permission, { check: { a: 1 }, backend_only: false });
  // pre-1.0 allow_upsert is kept (in storage, not in exports) for old metadata
  assert.deepEqual(decodePermissionDef('insert', { role: 'u', permission: { check: {}, allow_upsert: true } }, '$').permission, { check: {}, backend_only: false, allow_upsert: true });
  const m = decodeMetadata({ tables: [{ table: 't', insert_permissions: [{ role: 'u', permission: { check: {}, allow_upsert: true } }] }] });
  assert.deepEqual((encodeMetadata(m) as any).tables[0].insert_permissions[0].permission, { check: {} });
  assert.deepEqual((encodeMetadata(m, { storage: true }) as any).tables[0].insert_permissions[0].permission, { check: {}, allow_upsert: true });
});

test('duplicate declarations are refused', () => {
  const m = decodeMetadata({ tables: [{ table: 'a' }, { table: { schema: 'public', name: 'a' } }] });
  assert.throws(() => assertNoDuplicates(m), fails('already-exists', 'multiple declarations exist for the following tables: a', '$.args'));
});
