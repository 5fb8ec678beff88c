import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const loggerModule = fileURLToPath(new URL('../../../src/server/logger.ts', import.meta.url));
const tmp = () => mkdtempSync(path.join(tmpdir(), 'linebatch-'));

/** Runs `body` in a child Node (through tsx) with `createLogger('info', file)` as `logger`. */
function runChild(file: string, body: string): string {
  const script = path.join(path.dirname(file), 'child.mts');
  writeFileSync(script, `import { createLogger } from ${JSON.stringify(loggerModule)};\nconst logger = createLogger('info', ${JSON.stringify(file)});\n${body}\n`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8', timeout: 20_000 });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}
const linesIn = (file: string) => readFileSync(file, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { msg: string });

test('lines reach the file in the order written, batched', async () => {
  const file = path.join(tmp(), 'out.log');
  // 1000 lines (well over 4 KiB), then a few more that only the 100 ms timer hands over: the child
  // prints how many lines the file holds before it exits.
  const out = runChild(
    file,
    `import { readFileSync } from 'node:fs';\nfor (let i = 0; i < 1000; i++) logger.info('line ' + i);\nawait new Promise((r) => setTimeout(r, 300));\nfor (let i = 1000; i < 1003; i++) logger.info('line ' + i);\nawait new Promise((r) => setTimeout(r, 400));\nconsole.log(readFileSync(${JSON.stringify(file)}, 'utf8').split('\\n').length - 1);`,
  );
  assert.equal(out.trim(), '1003', 'written by the timer, before the exit');
  const lines = linesIn(file);
  assert.deepEqual(lines.map((l) => l.msg), Array.from({ length: 1003 }, (_, i) => `line ${i}`));
});

test('pending lines are written when the process exits at once (process.exit)', () => {
  const file = path.join(tmp(), 'out.log');
  runChild(file, `logger.info('first');\nsetTimeout(() => { logger.info('second'); logger.info('last'); process.exit(0); }, 50);`);
  assert.deepEqual(linesIn(file).map((l) => l.msg), ['first', 'second', 'last']);
});

test('pending lines are written when the event loop empties (natural exit)', () => {
  const file = path.join(tmp(), 'out.log');
  runChild(file, `setTimeout(() => { logger.info('only'); logger.warn('then this'); }, 50);`);
  assert.deepEqual(linesIn(file).map((l) => l.msg), ['only', 'then this']);
});
