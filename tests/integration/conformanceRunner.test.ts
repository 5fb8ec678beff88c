/**
 * The repository's conformance runner (tests/conformance/run.mjs) on its own corpus against a real
 * engine: a group passes and is checked against the baseline; the ratchet turns a case that passed
 * before and fails now into a regression (exit 1); --update-baseline only adds ids. The failing case
 * is a changed copy in a temporary corpus (--cases): the corpus itself is never edited.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestEngine } from './harness.js';

const root = new URL('../../', import.meta.url).pathname;
const RUNNER = join(root, 'tests/conformance/run.mjs');
const GROUP = 'graphql_query/limits';
const SECRET = 'runner-test-secret';

function run(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [RUNNER, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.once('close', (code) => resolve({ code, out }));
  });
}

test('the in-repository runner and corpus: a group passes against the engine, the ratchet catches a regression, the baseline only grows', { timeout: 120_000 }, async (t) => {
  const e = await startTestEngine({ adminSecret: SECRET });
  const dir = mkdtempSync(join(tmpdir(), 'svc-runner-'));
  t.after(async () => {
    await e.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const baselineIds = (JSON.parse(readFileSync(join(root, 'tests/conformance-baseline.json'), 'utf8')) as string[]).filter((id) => id.startsWith(`${GROUP}/`));
  assert.equal(baselineIds.length, 5);
  const baseline = join(dir, 'baseline.json');
  writeFileSync(baseline, JSON.stringify(baselineIds));

  const ok = await run(['--url', e.url, '--admin-secret', SECRET, '--only', GROUP, '--baseline', baseline, '--json', join(dir, 'report.json')]);
  assert.equal(ok.code, 0, ok.out);
  assert.match(ok.out, /^ok {3}graphql_query\/limits: 5 passed, 0 failed$/m);
  assert.match(ok.out, /^baseline: 5 passed, 0 failed$/m);
  const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as { groups: { group: string; cases: { case: string; result: string }[] }[] };
  assert.deepEqual(report.groups.find((g) => g.group === GROUP)?.cases.map((c) => c.result), ['passed', 'passed', 'passed', 'passed', 'passed']);

  // A copy of the group whose first case now expects another title: the engine's (right) answer fails it.
  const cases = join(dir, 'cases');
  cpSync(join(root, 'tests/conformance/cases', GROUP), join(cases, GROUP), { recursive: true });
  const caseFile = join(cases, GROUP, 'select_query_article_limit_1.json');
  writeFileSync(caseFile, readFileSync(caseFile, 'utf8').replace('"title": "Article 3"', '"title": "Article 33"'));
  const bad = await run(['--url', e.url, '--admin-secret', SECRET, '--cases', cases, '--baseline', baseline]);
  assert.equal(bad.code, 1, bad.out);
  assert.match(bad.out, /^REGRESSION: graphql_query\/limits\/select_query_article_limit_1 passed in the baseline and failed now$/m);
  assert.match(bad.out, /^baseline: 4 passed, 1 failed$/m);

  // --update-baseline keeps ids of groups not run and adds only what passes now.
  const grow = join(dir, 'grow.json');
  writeFileSync(grow, JSON.stringify(['other_group/some_case']));
  const upd = await run(['--url', e.url, '--admin-secret', SECRET, '--cases', cases, '--update-baseline', grow]);
  assert.equal(upd.code, 0, upd.out);
  const grown = JSON.parse(readFileSync(grow, 'utf8')) as string[];
  assert.ok(grown.includes('other_group/some_case'));
  assert.ok(!grown.includes(`${GROUP}/select_query_article_limit_1`));
  assert.deepEqual(grown.filter((id) => id.startsWith(`${GROUP}/`)).sort(), baselineIds.filter((id) => !id.endsWith('/select_query_article_limit_1')).sort());
});
