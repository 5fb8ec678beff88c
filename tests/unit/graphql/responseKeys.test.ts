import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dataObject, responseKeys } from '../../../src/graphql/index.js';
import { withPrefixSuffix } from '../../../src/graphql/schema/namingCase.js';

const data = (aliases: string[]) => JSON.parse(dataObject(aliases, (a) => JSON.stringify(a)));

test('responseKeys nests the fields chosen under a namespace under its key, in the order asked', () => {
  assert.deepEqual(responseKeys([]), { before: [], after: '{}' });
  assert.deepEqual(responseKeys(['a']), { before: ['{"a":'], after: '}' });
  assert.deepEqual(responseKeys(['ns.a']), { before: ['{"ns":{"a":'], after: '}}' });
  assert.deepEqual(responseKeys(['a', 'ns.b', 'ns.c', 'd']), { before: ['{"a":', ',"ns":{"b":', ',"c":', '},"d":'], after: '}' });
  assert.deepEqual(data(['a', 'ns.b', 'ns.c', 'd']), { a: 'a', ns: { b: 'ns.b', c: 'ns.c' }, d: 'd' });
  assert.equal(dataObject(['ns.a', 'ns.b'], () => '1'), '{"ns":{"a":1,"b":1}}');
});

test("withPrefixSuffix joins a source's prefix and suffix as Hasura does under each convention", () => {
  assert.equal(withPrefixSuffix('album_by_pk', { prefix: 'archive_' }, false), 'archive_album_by_pk');
  assert.equal(withPrefixSuffix('album', { prefix: 'a_', suffix: '_x' }, false), 'a_album_x');
  assert.equal(withPrefixSuffix('albumByPk', { prefix: 'archive_' }, true), 'archive_AlbumByPk');
  assert.equal(withPrefixSuffix('albumByPk', { suffix: 'old' }, true), 'albumByPkOld');
  assert.equal(withPrefixSuffix('AlbumBoolExp', { prefix: 'Shop', suffix: '_t' }, true), 'ShopAlbumBoolExp_t');
  assert.equal(withPrefixSuffix('album', undefined, true), 'album');
  assert.equal(withPrefixSuffix('album', {}, true), 'album');
});
