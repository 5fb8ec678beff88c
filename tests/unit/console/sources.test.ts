/**
 * The console's databases (sources.ts): the Data area's addresses (Hasura's, and the older ones of
 * `default`), an operation put on a source (`source` beside `type`, `run_sql`'s in its args, a bulk's
 * items each), the sources of an export and one source's view of it, a connection in a few words.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connectionKind, dataHref, dataRoute, onSource, sourcesOf, sourceView } from '../../../console/src/sources.js';

test('addresses: Hasura\'s /data/<source>/schema/<schema>/tables/<table>/<tab>, and the older ones as default\'s', () => {
  assert.deepEqual(dataRoute([]), { kind: 'source', source: 'default' });
  assert.deepEqual(dataRoute(['manage']), { kind: 'manage' });
  assert.deepEqual(dataRoute(['archive']), { kind: 'source', source: 'archive' });
  assert.deepEqual(dataRoute(['archive', 'schema', 'sales']), { kind: 'source', source: 'archive', schema: 'sales' });
  assert.deepEqual(dataRoute(['archive', 'schema', 'public', 'tables', 'album']), { kind: 'table', source: 'archive', schema: 'public', table: 'album', tab: '' });
  assert.deepEqual(dataRoute(['archive', 'schema', 'public', 'tables', 'album', 'browse']), { kind: 'table', source: 'archive', schema: 'public', table: 'album', tab: '' });
  assert.deepEqual(dataRoute(['archive', 'schema', 'public', 'tables', 'album', 'relationships']), { kind: 'table', source: 'archive', schema: 'public', table: 'album', tab: 'relationships' });
  assert.deepEqual(dataRoute(['archive', 'create-table']), { kind: 'page', source: 'archive', page: 'create-table' });
  assert.deepEqual(dataRoute(['erd']), { kind: 'page', source: 'default', page: 'erd' });
  assert.deepEqual(dataRoute(['public', 'author', 'modify']), { kind: 'table', source: 'default', schema: 'public', table: 'author', tab: 'modify' });
  // Names are %-encoded both ways; a malformed escape is kept as typed.
  assert.equal(dataHref('my db', 's/1', 'a b', 'modify'), '#/data/my%20db/schema/s%2F1/tables/a%20b/modify');
  assert.deepEqual(dataRoute(dataHref('my db', 's/1', 'a b', 'modify').slice('#/data/'.length).split('/')), { kind: 'table', source: 'my db', schema: 's/1', table: 'a b', tab: 'modify' });
  assert.deepEqual(dataRoute(['%zz']), { kind: 'source', source: '%zz' });
});

test('an operation on a source: beside type and args, in run_sql\'s args, on each item of a bulk', () => {
  const t = { table: { schema: 'public', name: 'album' } };
  assert.deepEqual(onSource({ type: 'track_table', args: t }, 'archive'), { type: 'track_table', args: t, source: 'archive' });
  assert.deepEqual(onSource({ type: 'run_sql', args: { sql: 'SELECT 1' } }, 'archive'), { type: 'run_sql', args: { sql: 'SELECT 1', source: 'archive' } });
  assert.deepEqual(onSource({ type: 'bulk', args: [{ type: 'run_sql', args: { sql: 'x' } }, { type: 'track_table', args: t }] }, 'default'), {
    type: 'bulk', args: [{ type: 'run_sql', args: { sql: 'x', source: 'default' } }, { type: 'track_table', args: t, source: 'default' }],
  });
});

test('the sources of an export, default first; one source\'s view; its connection in a few words', () => {
  const md = {
    version: 2, tables: [{ table: { schema: 'public', name: 'artist' } }], inherited_roles: [{ role_name: 'r', role_set: ['a'] }],
    sources: [{ name: 'archive', kind: 'postgres', configuration: { connection_info: { database_url: 'postgres://u:secret@db.example:5433/music' } }, tables: [{ table: { schema: 'public', name: 'album' } }] }],
  };
  assert.deepEqual(sourcesOf(md).map((s) => [s.name, s.tables.length]), [['default', 1], ['archive', 1]]);
  const view = sourceView(md, 'archive');
  assert.deepEqual(view.tables, [{ table: { schema: 'public', name: 'album' } }]);
  assert.deepEqual(view.inherited_roles, md.inherited_roles, 'global parts stay');
  assert.deepEqual(sourceView(md, 'gone').tables, []);
  const [own, archive] = sourcesOf(md);
  assert.equal(connectionKind(own), "the engine's own database");
  assert.equal(connectionKind(archive), 'URL db.example:5433/music', 'no user name or password');
  assert.equal(connectionKind({ ...archive, configuration: { connection_info: { database_url: { from_env: 'ARCHIVE_URL' } } } }), 'env ARCHIVE_URL');
  assert.equal(connectionKind({ ...archive, configuration: { connection_info: { database_url: { connection_parameters: { host: 'h', port: 5432, database: 'd' } } } } }), 'parameters h:5432/d');
});
