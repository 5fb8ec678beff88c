/**
 * The incremental schema-cache build (`buildSchemaCacheFrom`) against the full build, differentially:
 * random sequences of metadata changes (tables tracked and untracked, relationships, computed fields,
 * permissions through relationships, custom column names) on a chain of tables, each change built both
 * ways from the same prior build and compared whole (cache, dependency edges, inconsistent objects). A
 * change that makes something inconsistent is refused, as a metadata operation is: the next change starts
 * from the last consistent build.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildRecordOf, buildSchemaCacheFrom, buildSchemaCacheFromSliced, buildSchemaCacheFull, buildSchemaCacheFullSliced, decodeMetadata, dependencyIndexOf, objectKey, refKey } from '../../../src/metadata/index.js';
import type { BuildResult, Dependency, Metadata, MetadataObjectId, SchemaCache, SchemaRef } from '../../../src/metadata/index.js';
import { duplicateRootFields, hasNewNameClashes } from '../../../src/graphql/index.js';
import { dependentsOf, onTable, partOf } from '../../../src/metadataApi/dependents.js';
import { qualifiedKey } from '../../../src/core/index.js';
import { draftOf, finishDraft } from '../../../src/lib/index.js';
import { prng } from '../../support/prng.js';
import { column, fn, snapshot, table } from './fixtures.js';

const N = 24;
const name = (i: number) => `t${String(i).padStart(2, '0')}`;
const BIG = 1500;
const fk = (t: number, col: string, to: number) => ({ name: `${name(t)}_${col}_fkey`, oid: 90000 + t * 10 + (col === 'parent_id' ? 1 : 2), columns: [col], refTable: { schema: 'public', name: name(to) }, refColumns: ['id'] });

/** N tables: t_i(id, label, owner_id, parent_id → t_{i-1}, half_id → t_{i/2}); functions for computed fields. */
function chainSnapshot(n = N) {
  const tables = [];
  for (let i = 0; i < n; i++) {
    tables.push(table(name(i), [column('id', 'int4', { nullable: false, hasDefault: true }), column('label'), column('owner_id', 'int4'), column('parent_id', 'int4'), column('half_id', 'int4')], {
      foreignKeys: i === 0 ? [] : [fk(i, 'parent_id', i - 1), fk(i, 'half_id', Math.floor(i / 2))],
    }));
  }
  const functions = [];
  for (let i = 0; i < N; i++) {
    const row = { name: 'row', type: name(i), typeSchema: 'public', typeKind: 'c', hasDefault: false };
    functions.push(fn(`${name(i)}_upper`, { args: [row] }));
    functions.push(fn(`${name(i)}_kids`, { args: [row], returnsSet: true, returnTable: { schema: 'public', name: name((i + 1) % N) }, returnType: name((i + 1) % N), returnTypeKind: 'c' }));
    functions.push(fn(`${name(i)}_all`, { returnsSet: true, returnTable: { schema: 'public', name: name(i) }, returnType: name(i), returnTypeKind: 'c' }));
  }
  return snapshot(tables, functions);
}

type Doc = { tables: Array<Record<string, any>>; [k: string]: unknown };

function initial(n = N - 4): Doc {
  const tables = [];
  for (let i = 0; i < n; i++) {
    const t: Record<string, any> = { table: { schema: 'public', name: name(i) } };
    if (i > 0) t.object_relationships = [{ name: 'parent', using: { foreign_key_constraint_on: 'parent_id' } }];
    if (i + 1 < n) t.array_relationships = [{ name: 'children', using: { foreign_key_constraint_on: { table: name(i + 1), column: 'parent_id' } } }];
    t.select_permissions = [
      { role: 'r1', permission: { columns: '*', filter: {} } },
      { role: 'r3', permission: { columns: ['id', 'label'], filter: i > 0 ? { parent: { owner_id: { _eq: 'X-Svc-User-Id' } } } : { owner_id: { _eq: 'X-Svc-User-Id' } } } },
    ];
    t.insert_permissions = [{ role: 'r1', permission: { columns: ['label'], check: {}, set: { owner_id: 'X-Svc-User-Id' } } }];
    tables.push(t);
  }
  return { tables };
}

const tracked = (d: Doc, i: number) => d.tables.findIndex((t) => t.table.name === name(i));

/** One random change of the draft `d` (some leave it inconsistent: those are refused). */
function change(d: Doc, rnd: () => number): string {
  const pick = (n: number) => Math.floor(rnd() * n);
  const i = pick(N);
  const at = tracked(d, i);
  const list = (t: Record<string, any>, k: string): any[] => (t[k] ??= []);
  switch (pick(12)) {
    case 0:
      if (at >= 0) return 'none';
      d.tables.push({ table: { schema: 'public', name: name(i) }, ...(i > 0 ? { object_relationships: [{ name: 'parent', using: { foreign_key_constraint_on: 'parent_id' } }] } : {}) });
      return `track ${name(i)}`;
    case 1:
      if (at < 0) return 'none';
      d.tables.splice(at, 1);
      return `untrack ${name(i)}`;
    case 2: {
      if (at < 0 || i === 0) return 'none';
      list(d.tables[at], 'object_relationships').push({ name: `half${pick(3)}`, using: { foreign_key_constraint_on: 'half_id' } });
      return `object relationship on ${name(i)}`;
    }
    case 3: {
      if (at < 0) return 'none';
      const t = d.tables[at];
      for (const k of ['object_relationships', 'array_relationships']) if (t[k]?.length) { t[k].splice(pick(t[k].length), 1); return `drop relationship of ${name(i)}`; }
      return 'none';
    }
    case 4: {
      if (at < 0 || i * 2 + 1 >= N) return 'none';
      list(d.tables[at], 'array_relationships').push({ name: `halves${pick(2)}`, using: { foreign_key_constraint_on: { table: name(i * 2 + pick(2)), column: 'half_id' } } });
      return `array relationship on ${name(i)}`;
    }
    case 5: {
      if (at < 0) return 'none';
      const t = d.tables[at];
      if (t.computed_fields?.length && rnd() < 0.5) { t.computed_fields.pop(); return `drop computed field of ${name(i)}`; }
      list(t, 'computed_fields').push(rnd() < 0.5 ? { name: `up${pick(2)}`, definition: { function: `${name(i)}_upper` } } : { name: 'kids', definition: { function: `${name(i)}_kids` } });
      return `computed field on ${name(i)}`;
    }
    case 6: {
      if (at < 0) return 'none';
      const t = d.tables[at];
      const role = `r${2 + pick(4)}`;
      const perms = list(t, 'select_permissions');
      const j = perms.findIndex((p: any) => p.role === role);
      if (j >= 0) { perms.splice(j, 1); return `drop select permission ${role} of ${name(i)}`; }
      const rels = [...(t.object_relationships ?? [])].map((r: any) => r.name);
      const via = rels.length > 0 ? rels[pick(rels.length)] : undefined;
      const other = name(pick(N));
      const filter = rnd() < 0.4 ? { _exists: { _table: { schema: 'public', name: other }, _where: { label: { _eq: 'x' } } } } : via ? { [via]: { label: { _eq: 'x' } } } : { id: { _gt: 1 } };
      perms.push({ role, permission: { columns: ['id', 'label'], filter, ...(rnd() < 0.3 ? { limit: 5 } : {}) } });
      return `select permission ${role} on ${name(i)}: ${JSON.stringify(filter)}`;
    }
    case 7: {
      if (at < 0) return 'none';
      const t = d.tables[at];
      t.configuration = rnd() < 0.5 ? { custom_column_names: { label: `label_${pick(3)}` } } : { custom_root_fields: { select: `list_${name(i)}` } };
      return `configuration of ${name(i)}`;
    }
    case 9: {
      // A custom root field named like another table's (or function's) root field: a clash, refused.
      if (at < 0) return 'none';
      const j = pick(N);
      const other = [name(j), `${name(j)}_aggregate`, `${name(j)}_all`, `insert_${name(j)}`][pick(4)];
      d.tables[at].configuration = other.startsWith('insert_') ? { custom_root_fields: { insert: other } } : { custom_root_fields: { select: other } };
      return `custom root field ${other} on ${name(i)}`;
    }
    case 10: {
      // Renamed (custom_name), sometimes to another table's name; or, under graphql-default, a column named like another.
      if (at < 0) return 'none';
      d.tables[at].configuration = rnd() < 0.5 ? { custom_name: rnd() < 0.5 ? name(pick(N)) : `renamed_${name(i)}` } : { custom_column_names: { label: rnd() < 0.5 ? 'ownerId' : 'label_x' } };
      return `rename of ${name(i)}: ${JSON.stringify(d.tables[at].configuration)}`;
    }
    case 11: {
      // A tracked function (its root fields next to the tables').
      const fns: any[] = ((d as Record<string, any>).functions ??= []);
      const j = fns.findIndex((f: any) => f.function.name === `${name(i)}_all`);
      if (j >= 0) { fns.splice(j, 1); return `untrack function ${name(i)}_all`; }
      fns.push({ function: { schema: 'public', name: `${name(i)}_all` } });
      return `track function ${name(i)}_all`;
    }
    default: {
      if (at < 0) return 'none';
      list(d.tables[at], 'update_permissions').push({ role: 'r1', permission: { columns: ['label'], filter: { owner_id: { _eq: 'X-Svc-User-Id' } } } });
      return `update permission on ${name(i)}`;
    }
  }
}

const md = (doc: Doc): Metadata => decodeMetadata({ version: 2, ...doc });

/** The dependents of refs matching `isRoot`, by a walk over every edge (what `dependentsOf` must find through its index). */
function everyEdgeDependents(deps: readonly Dependency[], isRoot: (ref: SchemaRef) => boolean, exclude: (id: MetadataObjectId) => boolean = () => false): MetadataObjectId[] {
  const found = new Map<string, MetadataObjectId>();
  const queue: MetadataObjectId[] = [];
  const add = (id: MetadataObjectId) => {
    if (found.has(objectKey(id)) || exclude(id)) return;
    found.set(objectKey(id), id);
    queue.push(id);
  };
  for (const d of deps) if (isRoot(d.on)) add(d.dependent);
  while (queue.length > 0) {
    const id = queue.shift()!;
    const ref: SchemaRef | undefined = id.kind === 'relationship' || id.kind === 'computed_field' ? { kind: id.kind, table: id.table, name: id.name } : id.kind === 'function' ? { kind: 'function', function: id.function } : undefined;
    if (!ref) continue;
    for (const d of deps) if (refKey(d.on) === refKey(ref)) add(d.dependent);
  }
  return [...found.values()];
}

/** Whether `after` has a name clash `before` has not, from every name of both (what `hasNewNameClashes` must say). */
function everyNameNewClash(before: SchemaCache, after: SchemaCache): boolean {
  const old = duplicateRootFields(before);
  const fresh = duplicateRootFields(after);
  const isNew = (kind: 'query' | 'mutation' | 'types') => fresh[kind].some((n) => !old[kind].includes(n));
  return isNew('query') || isNew('mutation') || isNew('types') || fresh.fields.some((f) => !old.fields.some((o) => o.table === f.table && o.field === f.field));
}

/**
 * The indexes kept beside a build against walks over everything: the edges into each table and function
 * (same edges, same order), the dependents of each table (untrack with cascade) and of each relationship and
 * computed field (their drop with cascade); and whether the change from `before` brings a new name clash.
 */
function checkIndexes(before: BuildResult, after: BuildResult, what: string): boolean {
  const index = dependencyIndexOf(after);
  const onKey = (k: string) => (d: Dependency) => d.on.kind !== 'function' && qualifiedKey(d.on.table) === k;
  for (let i = 0; i < N; i++) {
    const k = `public.${name(i)}`;
    assert.deepStrictEqual(index.onTable(k), after.dependencies.filter(onKey(k)), `${what}: edges on ${k}`);
    for (const f of [`${name(i)}_upper`, `${name(i)}_all`]) {
      assert.deepStrictEqual(index.onFunction(`public.${f}`), after.dependencies.filter((d) => d.on.kind === 'function' && d.on.function.name === f), `${what}: edges on ${f}`);
    }
  }
  for (const t of after.cache.tables.values()) {
    const at = { table: t.name };
    assert.deepStrictEqual(dependentsOf(after, at, onTable(t.name), partOf(t.name)), everyEdgeDependents(after.dependencies, onTable(t.name), partOf(t.name)), `${what}: dependents of ${t.name.name}`);
    for (const [kind, names] of [['relationship', t.relationships.keys()], ['computed_field', t.computedFields.keys()]] as const) {
      for (const n of names) {
        const isRoot = (r: SchemaRef) => r.kind === kind && qualifiedKey(r.table) === qualifiedKey(t.name) && r.name === n;
        assert.deepStrictEqual(dependentsOf(after, at, isRoot), everyEdgeDependents(after.dependencies, isRoot), `${what}: dependents of ${t.name.name}.${n}`);
      }
    }
  }
  const fresh = hasNewNameClashes(before.cache, after.cache);
  assert.equal(fresh, everyNameNewClash(before.cache, after.cache), `${what}: new name clash`);
  return fresh;
}

function sameBuild(inc: BuildResult, full: BuildResult, what: string): void {
  assert.deepStrictEqual(inc.cache, full.cache, what);
  assert.deepStrictEqual(inc.dependencies, full.dependencies, what);
  assert.deepStrictEqual(inc.inconsistent, full.inconsistent, what);
}

let clashes = 0;
const SEEDS = [1, 2, 3, 4, 5, 6].flatMap((seed) => [{ seed, naming: 'hasura-default' }, { seed: seed + 100, naming: 'graphql-default' }]);
for (const { seed, naming } of SEEDS) {
  test(`random metadata changes (seed ${seed}, ${naming}): each incremental build equals a full build, and the dependency and name indexes answer as walks over everything`, () => {
    const rnd = prng(seed);
    const snap = chainSnapshot();
    const start = naming === 'graphql-default' ? { ...initial(), source_customization: { naming_convention: naming } } : initial();
    let current = buildSchemaCacheFull(md(start), snap);
    assert.deepEqual(current.inconsistent, []);
    let refused = 0;
    let applied = 0;
    let shared = 0;
    for (let step = 0; step < 60; step++) {
      // As a metadata operation edits its draft: copy-on-write over the current metadata.
      const draft = draftOf(current.cache.metadata) as unknown as Doc;
      const what = change(draft, rnd);
      if (what === 'none') continue;
      const next = finishDraft(draft) as unknown as Metadata;
      const beforeText = JSON.stringify(current.cache.metadata);
      const inc = buildSchemaCacheFrom(buildRecordOf(current.cache), next, snap);
      const full = buildSchemaCacheFull(next, snap);
      sameBuild(inc, full, `step ${step}: ${what}`);
      // Every table object new, as after replace_metadata or reload_metadata: the name check still answers as a walk over everything.
      if (full.inconsistent.length === 0) assert.equal(hasNewNameClashes(current.cache, full.cache), everyNameNewClash(current.cache, full.cache), `step ${step}: ${what}, every table new`);
      assert.equal(JSON.stringify(current.cache.metadata), beforeText, 'the prior build is left as it was');
      if (inc.inconsistent.length > 0) {
        refused++;
        continue;
      }
      // A metadata operation refuses a change that brings a new root-field, type or field clash.
      if (checkIndexes(current, inc, `step ${step}: ${what}`)) {
        clashes++;
        refused++;
        continue;
      }
      applied++;
      if ([...inc.cache.tables].some(([k, t]) => current.cache.tables.get(k) === t)) shared++;
      // Now and then the next change starts from a cache of all-new table objects (the name counts then move over all of them).
      current = step % 5 === 0 ? full : inc;
    }
    assert.ok(applied > 10 && refused > 0, `applied ${applied}, refused ${refused}`);
    assert.equal(shared, applied, 'every applied change was built incrementally (other tables kept)');
  });
}

test('the random changes met name clashes (refused)', () => {
  assert.ok(clashes >= 5, `${clashes} clashes`);
});

test('an incremental structural build keeps the objects of the tables the change does not reach', () => {
  const snap = chainSnapshot();
  const before = buildSchemaCacheFull(md(initial()), snap);
  const doc = before.cache.metadata as unknown as Doc;
  // A relationship on t10: t10 is built again, so are the tables with relationships to it (t09, t11);
  // a permission through t10 (r3 of t11 goes through `parent`) is resolved again; t03 is kept.
  const d = draftOf(doc);
  d.tables[10].object_relationships.push({ name: 'half', using: { foreign_key_constraint_on: 'half_id' } });
  const next = finishDraft(d) as unknown as Metadata;
  const inc = buildSchemaCacheFrom(buildRecordOf(before.cache), next, snap);
  sameBuild(inc, buildSchemaCacheFull(next, snap), 'relationship on t10');
  const t = (r: BuildResult, n: string) => r.cache.tables.get(`public.${n}`)!;
  assert.equal(t(inc, 't03'), t(before, 't03'));
  assert.notEqual(t(inc, 't10'), t(before, 't10'));
  assert.notEqual(t(inc, 't11'), t(before, 't11'));
  // Tracking a table touches no other table.
  const d2 = draftOf(doc);
  d2.tables.push({ table: { schema: 'public', name: 't22' } });
  const next2 = finishDraft(d2) as unknown as Metadata;
  const inc2 = buildSchemaCacheFrom(buildRecordOf(before.cache), next2, snap);
  for (let i = 0; i < N - 4; i++) assert.equal(t(inc2, name(i)), t(before, name(i)), name(i));
  sameBuild(inc2, buildSchemaCacheFull(next2, snap), 'track t22');
  // A permission reaching t15 only through `_exists` (no relationship): untracking t15 resolves it again
  // (inconsistent, as in a full build); a change of t15 that keeps it resolvable keeps the answer equal.
  const d3 = draftOf(doc);
  d3.tables[3].select_permissions.push({ role: 'r9', permission: { columns: ['id'], filter: { _exists: { _table: { schema: 'public', name: 't15' }, _where: { label: { _eq: 'x' } } } } } });
  const withExists = finishDraft(d3) as unknown as Metadata;
  const built3 = buildSchemaCacheFrom(buildRecordOf(before.cache), withExists, snap);
  sameBuild(built3, buildSchemaCacheFull(withExists, snap), '_exists permission');
  const d4 = draftOf(withExists as unknown as Doc);
  d4.tables.splice(15, 1);
  // (the relationships into t15, and t16's permission through one, dropped as untrack_table's cascade does)
  d4.tables[14].array_relationships = [];
  d4.tables[15].object_relationships = [];
  d4.tables[15].select_permissions = d4.tables[15].select_permissions.filter((p: { role: string }) => p.role === 'r1');
  const untracked = finishDraft(d4) as unknown as Metadata;
  const inc4 = buildSchemaCacheFrom(buildRecordOf(built3.cache), untracked, snap);
  sameBuild(inc4, buildSchemaCacheFull(untracked, snap), 'untrack t15');
  assert.deepEqual(inc4.inconsistent.map((i) => i.id.kind === 'permission' && i.id.role), ['r9']);
  // Without the permission the same untrack is built incrementally (t03 resolved again, t05 kept).
  const d5 = draftOf(untracked as unknown as Doc);
  d5.tables[3].select_permissions.pop();
  const clean = finishDraft(d5) as unknown as Metadata;
  const inc5 = buildSchemaCacheFrom(buildRecordOf(built3.cache), clean, snap);
  sameBuild(inc5, buildSchemaCacheFull(clean, snap), 'untrack t15 without the permission');
  assert.deepEqual(inc5.inconsistent, []);
  assert.equal(t(inc5, 't05'), t(built3, 't05'));
});

test('a sliced build lets other callbacks run between its slices and gives what the build at once gives', async () => {
  const snap = chainSnapshot(BIG);
  const m = md(initial(BIG));
  let ticks = 0;
  let on = true;
  const tick = () => {
    ticks++;
    if (on) setImmediate(tick);
  };
  setImmediate(tick);
  const t0 = performance.now();
  const full = await buildSchemaCacheFullSliced(m, snap);
  const took = performance.now() - t0;
  const ticksDuringFull = ticks;
  const d = draftOf(full.cache.metadata as unknown as Doc);
  d.tables.splice(700, 1);
  d.tables[699].array_relationships = [];
  d.tables[699 + 1].object_relationships = [];
  d.tables[699 + 1].select_permissions = d.tables[700].select_permissions.filter((p: { role: string }) => p.role === 'r1');
  const next = finishDraft(d) as unknown as Metadata;
  const inc = await buildSchemaCacheFromSliced(buildRecordOf(full.cache), next, snap);
  on = false;
  sameBuild(full, buildSchemaCacheFull(m, snap), 'sliced full build');
  sameBuild(inc, buildSchemaCacheFrom(buildRecordOf(full.cache), next, snap), 'sliced incremental build');
  sameBuild(inc, buildSchemaCacheFull(next, snap), 'sliced incremental build against a full one');
  assert.deepEqual(inc.inconsistent, []);
  // A build of 1,500 tables takes well over one slice (~10 ms): other callbacks ran in between.
  assert.ok(ticksDuringFull >= 2, `${ticksDuringFull} turns of the event loop during a ${Math.round(took)} ms build`);
});

/** The chain's snapshot with a Postgres enum column (`mood`) on every table and a view `v_i` over each of the first tables. */
function ddlSnapshot() {
  const base = chainSnapshot();
  const tables = new Map(base.tables);
  for (const [k, t] of base.tables) tables.set(k, { ...t, columns: [...t.columns, { ...column('mood', 'mood', { typeSchema: 'public', typeKind: 'e', enumLabels: ['calm', 'glad'] }), position: 6 }] });
  for (let i = 0; i < 4; i++) {
    const v = table(`v${i}`, [column('id', 'int4'), column('label')], { kind: 'view', primaryKey: null, insertable: true, updatable: true, deletable: true });
    tables.set(`public.v${i}`, v);
  }
  return { ...base, tables };
}

/**
 * One random DDL statement's effect on the snapshot, as `reintrospect` gives it: a new map in which only the
 * changed relations are new objects (columns added, dropped or renamed, a table dropped, a foreign key added, an
 * enum label added, a view redefined). A dropped table is untracked from the draft too (as run_sql's cleanup does),
 * or left tracked (then the build is inconsistent and the change refused).
 */
function ddl(snap: ReturnType<typeof chainSnapshot>, d: Doc, rnd: () => number): { snap: ReturnType<typeof chainSnapshot>; what: string } {
  const pick = (n: number) => Math.floor(rnd() * n);
  const tables = new Map(snap.tables);
  const keys = [...tables.keys()];
  const key = keys[pick(keys.length)];
  const t = tables.get(key)!;
  const put = (next: typeof t) => tables.set(key, next);
  const cols = t.columns;
  let what: string;
  switch (pick(7)) {
    case 0:
      put({ ...t, columns: [...cols, { ...column(`extra${pick(3)}`, 'int4'), position: cols.length + 1 }] });
      what = `column added to ${key}`;
      break;
    case 1: {
      if (cols.length < 2) return { snap, what: 'none' };
      const c = cols[1 + pick(cols.length - 1)];
      put({ ...t, columns: cols.filter((x) => x !== c), foreignKeys: t.foreignKeys.filter((f) => !f.columns.includes(c.name)) });
      what = `column ${c.name} dropped from ${key}`;
      break;
    }
    case 2: {
      if (cols.length < 2) return { snap, what: 'none' };
      const c = cols[1 + pick(cols.length - 1)];
      const to = `${c.name}_r`;
      const rename = (n: string) => (n === c.name ? to : n);
      put({ ...t, columns: cols.map((x) => (x === c ? { ...x, name: to } : x)), foreignKeys: t.foreignKeys.map((f) => ({ ...f, columns: f.columns.map(rename) })) });
      what = `column ${c.name} of ${key} renamed`;
      break;
    }
    case 3: {
      tables.delete(key);
      const at = d.tables.findIndex((x) => qualifiedKey(x.table) === key);
      if (at >= 0 && rnd() < 0.7) d.tables.splice(at, 1);
      what = `${key} dropped${at >= 0 ? (d.tables.some((x) => qualifiedKey(x.table) === key) ? ' (still tracked)' : ' and untracked') : ''}`;
      break;
    }
    case 4: {
      if (!cols.some((c) => c.name === 'owner_id')) return { snap, what: 'none' };
      put({ ...t, foreignKeys: [...t.foreignKeys, { name: `${t.name}_owner_fkey`, oid: 99000 + pick(1000), columns: ['owner_id'], refTable: { schema: 'public', name: 't00' }, refColumns: ['id'] }] });
      what = `foreign key added to ${key}`;
      break;
    }
    case 5: {
      const m = cols.find((c) => c.enumLabels);
      if (!m) return { snap, what: 'none' };
      put({ ...t, columns: cols.map((c) => (c === m ? { ...c, enumLabels: [...c.enumLabels!, `v${pick(9)}`] } : c)) });
      what = `enum label added to ${key}.mood`;
      break;
    }
    default: {
      const v = `public.v${pick(4)}`;
      const view = tables.get(v);
      if (!view) return { snap, what: 'none' };
      tables.set(v, { ...view, columns: rnd() < 0.5 ? [...view.columns, { ...column('owner_id', 'int4'), position: view.columns.length + 1 }] : view.columns.slice(0, 1), insertable: rnd() < 0.5 });
      what = `view ${v} redefined`;
    }
  }
  return { snap: { ...snap, tables }, what };
}

for (const seed of [11, 12, 13, 14]) {
  test(`DDL between metadata changes (seed ${seed}): each build from the prior one over a new snapshot equals a full build, and keeps the unchanged tables`, () => {
    const rnd = prng(seed);
    let snap = ddlSnapshot();
    const start = initial();
    start.tables.push({ table: { schema: 'public', name: 'v0' }, select_permissions: [{ role: 'r1', permission: { columns: '*', filter: {} } }] }, { table: { schema: 'public', name: 'v1' } });
    let current = buildSchemaCacheFull(md(start), snap);
    assert.deepEqual(current.inconsistent, []);
    let ddls = 0;
    let kept = 0;
    let refused = 0;
    for (let step = 0; step < 80; step++) {
      const draft = draftOf(current.cache.metadata) as unknown as Doc;
      const structural = rnd() < 0.5;
      const next = structural ? ddl(snap, draft, rnd) : { snap, what: change(draft, rnd) };
      if (next.what === 'none') continue;
      const nextMd = finishDraft(draft) as unknown as Metadata;
      const inc = buildSchemaCacheFrom(buildRecordOf(current.cache), nextMd, next.snap);
      const what = `step ${step}: ${next.what}`;
      sameBuild(inc, buildSchemaCacheFull(nextMd, next.snap), what);
      if (inc.inconsistent.length > 0 || checkIndexes(current, inc, what)) {
        refused++;
        continue;
      }
      if (structural) {
        ddls++;
        // The tables the statement did not reach keep their objects.
        if ([...inc.cache.tables].some(([k, t]) => current.cache.tables.get(k) === t)) kept++;
      }
      current = inc;
      snap = next.snap;
    }
    assert.ok(ddls >= 10 && refused > 0, `DDL applied ${ddls}, refused ${refused}`);
    assert.equal(kept, ddls, 'every DDL was built incrementally (other tables kept)');
  });
}
