/**
 * The metadata directory: files of the Hasura CLI layout, actions.graphql as SDL, unknown keys
 * kept as <key>.yaml, deterministic output, and files → metadata → files unchanged.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { filesToMetadata, importHasuraMetadata, metadataToFiles, toV3 } from '../../../src/cli/index.js';
import { metadataToV3Files } from '../../../src/cli/metadataDirV3.js';

const md = {
  version: 2,
  tables: [
    { table: { schema: 'public', name: 'b' }, select_permissions: [{ role: 'user', permission: { filter: {}, columns: ['id'] } }] },
    { table: { schema: 'public', name: 'a' } },
  ],
  actions: [
    { name: 'login', definition: { kind: 'synchronous', handler: 'http://127.0.0.1:5000/login', type: 'mutation', output_type: 'LoginOut!', arguments: [{ name: 'creds', type: 'Creds!' }] }, permissions: [{ role: 'user' }] },
    { name: 'whoami', definition: { handler: 'http://127.0.0.1:5000/who', type: 'query', output_type: 'LoginOut', arguments: [] } },
  ],
  custom_types: {
    scalars: [{ name: 'Token', description: 'an opaque token' }],
    enums: [{ name: 'Kind', values: [{ value: 'A' }, { value: 'B', is_deprecated: true }] }],
    input_objects: [{ name: 'Creds', fields: [{ name: 'user', type: 'String!' }, { name: 'pass', type: 'String!', description: 'secret' }] }],
    objects: [{ name: 'LoginOut', fields: [{ name: 'token', type: 'Token!' }, { name: 'user_id', type: 'Int!' }], relationships: [{ name: 'user', type: 'object', remote_table: 'b', field_mapping: { user_id: 'id' } }] }],
  },
  api_limits: { disabled: false, depth_limit: { global: 5 } },
};

test('known keys go to the Hasura CLI files, others to <key>.yaml, actions split into yaml + SDL', () => {
  const files = metadataToFiles(md);
  assert.deepEqual([...files.keys()], [
    'actions.graphql', 'actions.yaml', 'allow_list.yaml', 'api_limits.yaml', 'cron_triggers.yaml', 'functions.yaml',
    'query_collections.yaml', 'remote_schemas.yaml', 'tables.yaml', 'version.yaml',
  ]);
  assert.equal(files.get('version.yaml'), 'version: 2\n');
  assert.equal(files.get('functions.yaml'), '[]\n');
  assert.ok(files.get('tables.yaml')!.indexOf('name: a') < files.get('tables.yaml')!.indexOf('name: b'), 'tables sorted');
  const sdl = files.get('actions.graphql')!;
  assert.match(sdl, /type Query \{\n  whoami: LoginOut\n\}/);
  assert.match(sdl, /type Mutation \{\n  login\(creds: Creds!\): LoginOut!\n\}/);
  assert.match(sdl, /"an opaque token"\nscalar Token/);
  assert.match(sdl, /B @deprecated/);
  assert.match(sdl, /input Creds \{\n  user: String!\n  "secret"\n  pass: String!\n\}/);
  const y = files.get('actions.yaml')!;
  assert.doesNotMatch(y, /output_type|arguments/, 'signatures live in actions.graphql');
  assert.match(y, /relationships:/);
});

test('files → metadata gives the document back, and → files again byte for byte', () => {
  const files = metadataToFiles(md);
  const back = filesToMetadata(files);
  assert.deepEqual(back.api_limits, md.api_limits);
  assert.deepEqual(back.custom_types.input_objects, md.custom_types.input_objects);
  assert.deepEqual(back.custom_types.objects, md.custom_types.objects);
  assert.deepEqual(back.custom_types.enums, md.custom_types.enums);
  const login = back.actions.find((a: any) => a.name === 'login');
  assert.deepEqual(login.definition, md.actions[0]!.definition);
  assert.deepEqual(metadataToFiles(back), files);
  assert.deepEqual(metadataToFiles(structuredClone(md)), files, 'deterministic');
});

test('Hasura imports: version 3 flattened, X-Hasura-* mapped with a report, unsupported parts named', () => {
  const r = importHasuraMetadata({
    version: 3,
    sources: [
      { name: 'default', kind: 'postgres', tables: [{ table: { schema: 'public', name: 'a' }, insert_permissions: [{ role: 'u', permission: { check: {}, set: { owner: 'X-Hasura-User-Id' }, columns: [] } }] }], configuration: {} },
      { name: 'other', kind: 'mssql', tables: [] },
    ],
    rest_endpoints: [{ name: 'r', url: 'r', methods: ['GET'], definition: { query: { collection_name: 'c', query_name: 'q' } } }],
    network: {},
  });
  assert.equal(r.metadata.version, 2);
  assert.equal(r.metadata.tables[0].insert_permissions[0].permission.set.owner, 'x-svc-user-id');
  assert.ok(r.mapped.some((m) => m.includes('X-Hasura-User-Id → x-svc-user-id')));
  assert.ok(r.unsupported.some((u) => u.includes('source "other"')));
  assert.ok(r.unsupported.some((u) => u.startsWith('network')));
  assert.equal(r.metadata.network, undefined);
  assert.equal(r.metadata.rest_endpoints[0].name, 'r', 'REST endpoints are kept');
});

test("the source's customization (naming convention): databases.yaml in a v3 directory, sources[0] in a v3 document, and back", () => {
  const md = { version: 2, tables: [], source_customization: { naming_convention: 'graphql-default' } };
  const files = metadataToV3Files(md);
  assert.match(files.get('databases/databases.yaml')!, /\n {2}customization:\n {4}naming_convention: graphql-default\n/);
  assert.ok(![...files.keys()].some((f) => f.includes('source_customization')), [...files.keys()].join());
  const v3 = toV3(md);
  assert.deepEqual(v3.sources[0].customization, { naming_convention: 'graphql-default' });
  assert.equal(v3.source_customization, undefined);
  const back = importHasuraMetadata(v3);
  assert.deepEqual(back.metadata.source_customization, { naming_convention: 'graphql-default' });
  assert.ok(!back.unsupported.some((u) => u.includes('customization')));
});
