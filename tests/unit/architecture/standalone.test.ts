/**
 * The repository stands alone: its tests, conformance runs and benchmarks need nothing beside the
 * clone. .ci/run proves it end to end (it runs in a fresh clone in an empty temporary folder); these
 * checks catch the usual ways of breaking it early: a path out of the repository in a tracked file, a
 * corpus group whose files are missing, a package whose lock file no longer matches (npm ci refuses it).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('../../../', import.meta.url).pathname;

function trackedFiles(): string[] {
  return execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 }).split('\0').filter(Boolean);
}

test('no tracked file names a folder beside the repository or an absolute path of the machine', () => {
  // Built from parts so that this file does not match itself.
  const outside = new RegExp(['\\.\\./', 'shared\\b', '|', '/', 'work/'].join(''));
  const offenders: string[] = [];
  for (const f of trackedFiles()) {
    const p = join(root, f);
    if (!existsSync(p) || statSync(p).size > 2_000_000) continue;
    const text = readFileSync(p, 'utf8');
    if (text.includes('\0')) continue;
    text.split('\n').forEach((line, i) => {
      if (outside.test(line)) offenders.push(`${f}:${i + 1}: ${line.trim().slice(0, 160)}`);
    });
  }
  assert.deepEqual(offenders, []);
});

test('the conformance corpus is complete: every group of cases/index.json with its files, the runner, the licence', () => {
  const dir = join(root, 'tests/conformance');
  for (const f of ['run.mjs', 'LICENSE', 'NOTICE', 'README.md', 'servers/start.mjs', 'tools/build_corpus.py']) {
    assert.ok(existsSync(join(dir, f)), `tests/conformance/${f} is missing`);
  }
  const index = JSON.parse(readFileSync(join(dir, 'cases/index.json'), 'utf8')) as { groups: { group: string; cases: number }[]; total_cases: number };
  assert.ok(index.groups.length > 80, `${index.groups.length} groups`);
  let total = 0;
  for (const { group, cases } of index.groups) {
    const meta = JSON.parse(readFileSync(join(dir, 'cases', group, 'group.json'), 'utf8')) as { cases: string[] };
    assert.equal(meta.cases.length, cases, `${group}: group.json lists ${meta.cases.length} cases, index.json ${cases}`);
    for (const c of meta.cases) assert.ok(existsSync(join(dir, 'cases', group, `${c}.json`)), `${group}/${c}.json is missing`);
    total += cases;
  }
  assert.equal(total, index.total_cases);
});

test('the fixture servers, the benchmark peer and its Node 22 are packages whose lock files match their package.json', () => {
  for (const dir of ['tests/conformance/servers', 'bench/peer', 'bench/peer/node22']) {
    const pkg = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const lock = JSON.parse(readFileSync(join(root, dir, 'package-lock.json'), 'utf8')) as {
      lockfileVersion: number;
      packages: Record<string, { version?: string; dependencies?: Record<string, string> }>;
    };
    assert.ok(lock.lockfileVersion >= 2, `${dir}: lockfileVersion ${lock.lockfileVersion}`);
    assert.deepEqual(lock.packages['']?.dependencies, pkg.dependencies, `${dir}: package-lock.json does not match package.json (run npm install there)`);
    for (const name of Object.keys(pkg.dependencies)) {
      assert.ok(lock.packages[`node_modules/${name}`]?.version, `${dir}: ${name} is not locked`);
    }
  }
  // Installed on demand, never committed.
  const ignored = execFileSync('git', ['check-ignore', 'tests/conformance/servers/node_modules/x', 'bench/peer/node_modules/x', 'bench/peer/node22/node_modules/x'], { cwd: root, encoding: 'utf8' });
  assert.equal(ignored.trim().split('\n').length, 3);
});

test('the benchmark harness carries its dataset, shapes, reference SQL and floor servers', () => {
  const bench = join(root, 'bench');
  for (const f of ['dataset.sql', 'mutations.sql', 'track.json', 'track.sh', 'pg-up.sh', 'run.sh', 'run-all.sh', 'lib/rawhttp-server.mjs', 'lib/nodepg-loop.mjs', 'lib/check.mjs', 'load/post.lua', 'peer/postgraphile-server.mjs']) {
    assert.ok(existsSync(join(bench, f)), `bench/${f} is missing`);
  }
  const tracked = new Set(trackedFiles());
  const shapes = [...tracked].filter((f) => /^bench\/queries\/[a-z0-9_]+\.variables\.json$/.test(f)).map((f) => f.slice('bench/queries/'.length, -'.variables.json'.length));
  assert.ok(shapes.length >= 10, shapes.join(', '));
  for (const s of shapes) {
    assert.ok(tracked.has(`bench/queries/${s}.hasura.graphql`), `bench/queries/${s}.hasura.graphql`);
    assert.ok(tracked.has(`bench/sql/${s}.sql`), `bench/sql/${s}.sql`);
  }
});
