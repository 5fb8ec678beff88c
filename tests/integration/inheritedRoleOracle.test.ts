/**
 * The cell-level oracle of inherited roles: random small tables, random member permissions (row
 * filters on session variables and on the data, column sets), random inherited roles over them
 * (one of them nested); for each query shape (where, order_by, distinct_on, stream cursor,
 * aggregate, relationships in output, where, order_by and aggregates) the rows and cells the role may see are computed
 * here by brute force, over the leaves of the role's set, and compared with the engine's answer:
 *
 *   a row is visible when some member with a select permission on its table lets it through;
 *   a cell (row, column) is visible when some member that grants the column lets the row through,
 *   and reads null everywhere else: in the output, in comparisons, sort keys, stream cursors,
 *   aggregates and relationship joins (a join column no member grants is not a cell: it joins).
 *
 * A fixed seed by default; `SVC_CELLS_SEED=<n>` explores another one and `SVC_CELLS_ROUNDS=<n>`
 * runs more rounds (each round logs its seed, so a failure replays with `SVC_CELLS_SEED`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, type TestEngine } from './harness.js';
import { openTransportWs, type TestSocket } from './subscriptionsClient.js';
import { prng } from '../support/prng.js';

const SEED = Number(process.env.SVC_CELLS_SEED ?? 20261128);
const ROUNDS = Number(process.env.SVC_CELLS_ROUNDS ?? 5);

type Value = number | string | null;
type Row = Record<string, Value>;
type TableName = 'a' | 'b';
/** A member's row filter, as the tiny language both the metadata and the oracle read. */
type Filter =
  | { kind: 'all' }
  | { kind: 'mine'; column: string }
  | { kind: 'not_mine'; column: string }
  | { kind: 'gt'; column: string; value: number }
  | { kind: 'mine_or_lt'; column: string; other: string; value: number };
interface Perm { columns: string[]; filter: Filter }
type Leaf = Partial<Record<TableName, Perm>>;

const COLUMNS: Record<TableName, string[]> = { a: ['id', 'owner', 'x', 'y', 'bref'], b: ['id', 'owner', 'z'] };
const INT_COLUMNS = new Set(['id', 'owner', 'x', 'bref', 'z']);
const USERS = [1, 2, 3];

function filterJson(f: Filter): unknown {
  switch (f.kind) {
    case 'all': return {};
    case 'mine': return { [f.column]: { _eq: 'X-Svc-User-Id' } };
    case 'not_mine': return { [f.column]: { _neq: 'X-Svc-User-Id' } };
    case 'gt': return { [f.column]: { _gt: f.value } };
    case 'mine_or_lt': return { _or: [{ [f.column]: { _eq: 'X-Svc-User-Id' } }, { [f.other]: { _lt: f.value } }] };
  }
}

/** SQL semantics: a comparison with null is not true. */
function holds(f: Filter, row: Row, user: number): boolean {
  const v = (c: string) => row[c];
  switch (f.kind) {
    case 'all': return true;
    case 'mine': return v(f.column) === user;
    case 'not_mine': return v(f.column) !== null && v(f.column) !== user;
    case 'gt': return v(f.column) !== null && (v(f.column) as number) > f.value;
    case 'mine_or_lt': return v(f.column) === user || (v(f.other) !== null && (v(f.other) as number) < f.value);
  }
}

/** What the oracle knows of one role on one table: the leaves' permissions there. */
class RoleView {
  constructor(readonly perms: Perm[], readonly user: number) {}
  get readable(): boolean { return this.perms.length > 0; }
  /** Columns in the role's schema: those some member grants. */
  get columns(): string[] { return COLUMNS.a.concat(COLUMNS.b).filter((c, i, all) => all.indexOf(c) === i && this.perms.some((p) => p.columns.includes(c))); }
  rowVisible(row: Row): boolean { return this.perms.some((p) => holds(p.filter, row, this.user)); }
  /** The cell as the role sees it; a column no member grants reads raw (only joins read it). */
  cell(row: Row, column: string): Value {
    const granting = this.perms.filter((p) => p.columns.includes(column));
    if (granting.length === 0) return row[column];
    return granting.some((p) => holds(p.filter, row, this.user)) ? row[column] : null;
  }
}

/** Postgres order: ASC nulls last, DESC nulls first; the values here compare alike in any collation. */
function compareValues(x: Value, y: Value, desc: boolean): number {
  if (x === y) return 0;
  if (x === null) return desc ? -1 : 1;
  if (y === null) return desc ? 1 : -1;
  const c = x < y ? -1 : 1;
  return desc ? -c : c;
}

function generate(rand: () => number) {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const maybe = <T>(v: () => T, p = 0.2): T | null => (rand() < p ? null : v());
  const a: Row[] = Array.from({ length: 10 }, (_, i) => ({
    id: i + 1, owner: maybe(() => pick(USERS)), x: maybe(() => Math.floor(rand() * 6)), y: maybe(() => pick(['a', 'b', 'c', 'd', 'e'])), bref: maybe(() => 1 + Math.floor(rand() * 5)),
  }));
  const b: Row[] = Array.from({ length: 4 }, (_, i) => ({ id: i + 1, owner: maybe(() => pick(USERS)), z: maybe(() => Math.floor(rand() * 6)) }));
  const filter = (t: TableName): Filter => {
    const intCols = COLUMNS[t].filter((c) => c !== 'id' && INT_COLUMNS.has(c) && c !== 'owner');
    return pick<() => Filter>([
      () => ({ kind: 'all' }),
      () => ({ kind: 'mine', column: 'owner' }),
      () => ({ kind: 'not_mine', column: 'owner' }),
      () => ({ kind: 'gt', column: pick(intCols), value: Math.floor(rand() * 5) }),
      () => ({ kind: 'mine_or_lt', column: 'owner', other: pick(intCols), value: 1 + Math.floor(rand() * 4) }),
    ])();
  };
  const perm = (t: TableName): Perm => ({ columns: ['id', ...COLUMNS[t].slice(1).filter(() => rand() < 0.5)], filter: filter(t) });
  const leaves: Leaf[] = Array.from({ length: 4 }, () => {
    const leaf: Leaf = {};
    if (rand() < 0.85) leaf.a = perm('a');
    if (rand() < 0.7) leaf.b = perm('b');
    if (!leaf.a && !leaf.b) leaf.a = perm('a');
    return leaf;
  });
  const order = [0, 1, 2, 3].sort(() => rand() - 0.5);
  const set1 = order.slice(0, 2 + Math.floor(rand() * 2));
  const rest = order.filter((i) => !set1.includes(i));
  const set2 = [rest.length > 0 ? pick(rest) : pick(set1)];
  return { a, b, leaves, set1, set2, user: pick(USERS) };
}

type Round = ReturnType<typeof generate>;

function metadata(r: Round): unknown {
  const table = (t: TableName) => ({
    table: { schema: 'public', name: t },
    ...(t === 'a'
      ? { object_relationships: [{ name: 'bref_rel', using: { manual_configuration: { remote_table: { schema: 'public', name: 'b' }, column_mapping: { bref: 'id' } } } }] }
      : { array_relationships: [{ name: 'as', using: { manual_configuration: { remote_table: { schema: 'public', name: 'a' }, column_mapping: { id: 'bref' } } } }] }),
    select_permissions: r.leaves.flatMap((l, i) => {
      const p = l[t];
      return p ? [{ role: `r${i}`, permission: { columns: p.columns, filter: filterJson(p.filter), allow_aggregations: true } }] : [];
    }),
  });
  return {
    version: 2,
    tables: [table('a'), table('b')],
    inherited_roles: [
      { role_name: 'i1', role_set: r.set1.map((i) => `r${i}`) },
      { role_name: 'i2', role_set: ['i1', ...r.set2.map((i) => `r${i}`)] },
    ],
  };
}

function sqlValue(v: Value): string {
  return v === null ? 'NULL' : typeof v === 'number' ? String(v) : `'${v}'`;
}

const dataSql = (r: Round) => `TRUNCATE a, b;
INSERT INTO a VALUES ${r.a.map((x) => `(${COLUMNS.a.map((c) => sqlValue(x[c]!)).join(', ')})`).join(', ')};
INSERT INTO b VALUES ${r.b.map((x) => `(${COLUMNS.b.map((c) => sqlValue(x[c]!)).join(', ')})`).join(', ')};`;

/** The roles to check in a round: the inherited one, the nested one, and one plain member. */
function roles(r: Round): Array<{ name: string; leaves: number[] }> {
  return [{ name: 'i1', leaves: r.set1 }, { name: 'i2', leaves: [...new Set([...r.set1, ...r.set2])] }, { name: `r${r.set1[0]}`, leaves: [r.set1[0]!] }];
}

test('inherited roles: every cell the engine returns or reads is one the oracle allows', async (t) => {
  const e = await startTestEngine({ liveQueries: { batchSize: 100, refetchIntervalMs: 200, changePollIntervalMs: 50 } });
  t.after(() => e.stop());
  await e.runSql('CREATE TABLE a (id int PRIMARY KEY, owner int, x int, y text, bref int); CREATE TABLE b (id int PRIMARY KEY, owner int, z int);');

  for (let round = 0; round < ROUNDS; round++) {
    const seed = SEED + round;
    const rand = prng(seed);
    const r = generate(rand);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    await e.runSql(dataSql(r));
    const md = await e.query({ type: 'replace_metadata', args: metadata(r) });
    assert.equal(md.status, 200, `seed ${seed}: ${md.text}`);

    for (const role of roles(r)) {
      const label = `seed ${seed}, role ${role.name} = [${role.leaves.map((i) => `r${i}`).join(', ')}], user ${r.user}`;
      const headers = { 'x-svc-role': role.name, 'x-svc-user-id': String(r.user) };
      const view = (t: TableName) => new RoleView(role.leaves.flatMap((i) => (r.leaves[i]![t] ? [r.leaves[i]![t]!] : [])), r.user);
      const A = view('a');
      const B = view('b');
      if (!A.readable) continue;
      const aCols = COLUMNS.a.filter((c) => A.perms.some((p) => p.columns.includes(c)));
      const bCols = COLUMNS.b.filter((c) => B.perms.some((p) => p.columns.includes(c)));
      const visibleA = r.a.filter((x) => A.rowVisible(x));
      const visibleB = r.b.filter((x) => B.readable && B.rowVisible(x));
      const cellsA = (x: Row, cols = aCols) => Object.fromEntries(cols.map((c) => [c, A.cell(x, c)]));
      const cellsB = (x: Row) => Object.fromEntries(bCols.map((c) => [c, B.cell(x, c)]));
      const gql = async (query: string, what: string) => {
        const res = await e.graphql(query, undefined, headers);
        assert.equal(res.status, 200, `${label}, ${what}: ${res.text}`);
        assert.equal(res.body.errors, undefined, `${label}, ${what}: ${query} → ${res.text}`);
        return res.body.data;
      };
      const byId = (x: Row, y: Row) => (x.id as number) - (y.id as number);

      // Rows and cells.
      const all = await gql(`{ a(order_by: {id: asc}) { ${aCols.join(' ')} } }`, 'rows and cells');
      assert.deepEqual(all.a, visibleA.map((x) => cellsA(x)), `${label}: rows and cells`);

      // where: a comparison on any column of the role's schema.
      for (let k = 0; k < 3; k++) {
        const c = pick(aCols);
        const op = pick(['_eq', '_neq', '_gt', '_is_null'] as const);
        const raw = c === 'y' ? pick(['a', 'b', 'c', 'd', 'e']) : Math.floor(rand() * 6);
        const arg = op === '_is_null' ? String(rand() < 0.5) : JSON.stringify(raw);
        const want = visibleA.filter((x) => {
          const v = A.cell(x, c);
          if (op === '_is_null') return (v === null) === (arg === 'true');
          if (v === null) return false;
          return op === '_eq' ? v === raw : op === '_neq' ? v !== raw : v > raw;
        });
        const got = await gql(`{ a(where: {${c}: {${op}: ${arg}}}, order_by: {id: asc}) { id } }`, `where ${c} ${op} ${arg}`);
        assert.deepEqual(got.a.map((x: Row) => x.id), want.map((x) => x.id), `${label}: where ${c} ${op} ${arg}`);
      }

      // order_by a column (then id): hidden cells sort as null.
      {
        const c = pick(aCols);
        const desc = rand() < 0.5;
        const want = [...visibleA].sort((x, y) => compareValues(A.cell(x, c), A.cell(y, c), desc) || byId(x, y));
        const got = await gql(`{ a(order_by: [{${c}: ${desc ? 'desc' : 'asc'}}, {id: asc}]) { id } }`, `order_by ${c}`);
        assert.deepEqual(got.a.map((x: Row) => x.id), want.map((x) => x.id), `${label}: order_by ${c} ${desc ? 'desc' : 'asc'}`);
      }

      // distinct_on a column: one row per value as the role sees it (hidden cells are one null group).
      {
        const c = pick(aCols);
        const sorted = [...visibleA].sort((x, y) => compareValues(A.cell(x, c), A.cell(y, c), false) || byId(x, y));
        const want = sorted.filter((x, i) => i === 0 || A.cell(sorted[i - 1]!, c) !== A.cell(x, c));
        const got = await gql(`{ a(distinct_on: ${c}, order_by: [{${c}: asc}, {id: asc}]) { id } }`, `distinct_on ${c}`);
        assert.deepEqual(got.a.map((x: Row) => x.id), want.map((x) => x.id), `${label}: distinct_on ${c}`);
      }

      // Aggregates: counts of a column, distinct values, max / min / sum of an int column.
      {
        const c = pick(aCols);
        const ints = aCols.filter((x) => INT_COLUMNS.has(x));
        const n = pick(ints);
        const values = (col: string) => visibleA.map((x) => A.cell(x, col)).filter((v): v is number | string => v !== null);
        const nums = values(n) as number[];
        const got = await gql(`{ a_aggregate { aggregate { count n: count(columns: ${c}) d: count(columns: ${c}, distinct: true) max { ${n} } min { ${n} } sum { ${n} } } } }`, 'aggregate');
        assert.deepEqual(got.a_aggregate.aggregate, {
          count: visibleA.length, n: values(c).length, d: new Set(values(c)).size,
          max: { [n]: nums.length ? Math.max(...nums) : null }, min: { [n]: nums.length ? Math.min(...nums) : null }, sum: { [n]: nums.length ? nums.reduce((s, v) => s + v, 0) : null },
        }, `${label}: aggregate of ${c} / ${n}`);
      }

      // Relationships: a.bref → b.id (object) and b.id → a.bref (array), in output, where and order_by.
      if (B.readable) {
        const related = (x: Row): Row | undefined => {
          const k = A.cell(x, 'bref');
          return k === null ? undefined : visibleB.find((y) => B.cell(y, 'id') === k);
        };
        const out = await gql(`{ a(order_by: {id: asc}) { id bref_rel { ${bCols.join(' ')} } } b(order_by: {id: asc}) { id as(order_by: {id: asc}) { id } } }`, 'relationships');
        assert.deepEqual(out.a, visibleA.map((x) => ({ id: x.id, bref_rel: related(x) ? cellsB(related(x)!) : null })), `${label}: object relationship`);
        assert.deepEqual(out.b, visibleB.map((y) => ({ id: y.id, as: visibleA.filter((x) => A.cell(x, 'bref') !== null && A.cell(x, 'bref') === y.id).map((x) => ({ id: x.id })) })), `${label}: array relationship`);
        const c = pick(bCols);
        const v = Math.floor(rand() * 5);
        const where = await gql(`{ a(where: {bref_rel: {${c}: {_gte: ${v}}}}, order_by: {id: asc}) { id } }`, 'where through a relationship');
        assert.deepEqual(where.a.map((x: Row) => x.id), visibleA.filter((x) => {
          const y = related(x);
          const cell = y ? B.cell(y, c) : null;
          return cell !== null && (cell as number) >= v;
        }).map((x) => x.id), `${label}: where bref_rel.${c} >= ${v}`);
        const ordered = await gql(`{ a(order_by: [{bref_rel: {${c}: desc}}, {id: asc}]) { id } }`, 'order_by through a relationship');
        const key = (x: Row) => {
          const y = related(x);
          return y ? B.cell(y, c) : null;
        };
        assert.deepEqual(ordered.a.map((x: Row) => x.id), [...visibleA].sort((x, y) => compareValues(key(x), key(y), true) || byId(x, y)).map((x) => x.id), `${label}: order_by bref_rel.${c} desc`);
        const agg = await gql('{ b(order_by: {id: asc}) { id as_aggregate { aggregate { count } } } }', 'relationship aggregate');
        assert.deepEqual(agg.b, visibleB.map((y) => ({ id: y.id, as_aggregate: { aggregate: { count: visibleA.filter((x) => A.cell(x, 'bref') === y.id).length } } })), `${label}: relationship aggregate`);
      }

      // Streams: the cursor compares, orders and moves on the cells as the role sees them.
      const streams: Array<{ id: string; want: Array<[Value, Value]>; got: Array<[Value, Value]>; what: string }> = [];
      const s: TestSocket = await openTransportWs(e.url, headers);
      try {
        for (let k = 0; k < 2; k++) {
          const c = pick(aCols.filter((x) => x !== 'id').concat(['id']));
          const desc = k === 1;
          const start: Value = c === 'y' ? (desc ? 'z' : '') : desc ? 100 : -1;
          const rows = visibleA.filter((x) => A.cell(x, c) !== null).sort((x, y) => compareValues(A.cell(x, c), A.cell(y, c), desc));
          // Rows sharing a cursor value in one batch come in any order: compare values, and ids as a set.
          const want = rows.map((x): [Value, Value] => [A.cell(x, c), x.id!]);
          const id = `s${k}`;
          streams.push({ id, want, got: [], what: `stream on ${c} ${desc ? 'DESC' : 'ASC'}` });
          s.send({ id, type: 'subscribe', payload: { query: `subscription { a_stream(batch_size: 100, cursor: {initial_value: {${c}: ${JSON.stringify(start)}}, ordering: ${desc ? 'DESC' : 'ASC'}}) { id v: ${c} } }` } });
        }
        // Every stream answers at least once (the first answer even when empty), then brings its rows.
        const answered = new Set<string>();
        const take = (m: any) => {
          assert.equal(m.type, 'next', `${label}: ${JSON.stringify(m)}`);
          answered.add(m.id);
          streams.find((x) => x.id === m.id)!.got.push(...m.payload.data.a_stream.map((x: Row): [Value, Value] => [x.v!, x.id!]));
        };
        const deadline = Date.now() + 15_000;
        while (streams.some((x) => !answered.has(x.id) || x.got.length < x.want.length)) {
          const m = await s.next(Math.max(1, deadline - Date.now())).catch(() => undefined);
          assert.ok(m, `${label}: streams incomplete: ${JSON.stringify(streams.map((x) => ({ what: x.what, want: x.want, got: x.got })))}`);
          take(m);
        }
        // Then nothing more: a row the role may not see would come after the expected ones.
        const quiet = Date.now() + 150;
        for (;;) {
          const left = quiet - Date.now();
          if (left <= 0) break;
          const m = await s.next(left).catch(() => undefined);
          if (!m) break;
          take(m);
        }
        for (const x of streams) {
          assert.deepEqual(x.got.map((g) => g[0]), x.want.map((w) => w[0]), `${label}: ${x.what} (cursor values in order)`);
          assert.deepEqual(x.got.map((g) => g[1]).sort(), x.want.map((w) => w[1]).sort(), `${label}: ${x.what} (rows)`);
        }
      } finally {
        s.close();
      }
    }
  }
});
