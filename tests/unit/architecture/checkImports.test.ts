import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// @ts-expect-error: a plain .mjs script without type declarations
import { checkImports } from '../../../scripts/checkImports.mjs';

const root = new URL('../../../', import.meta.url).pathname;
const check = checkImports as (srcDir: string, architectureMd: string) => string[];

test('src/ follows the import rule of ARCHITECTURE.md: order, index-only, no circles', () => {
  const problems = check(join(root, 'src'), readFileSync(join(root, 'ARCHITECTURE.md'), 'utf8'));
  assert.deepEqual(problems, [], `run: node scripts/checkImports.mjs\n${problems.join('\n')}`);
});

test('the check finds a backward import, a deep import, a circle and an unranked folder', () => {
  const src = mkdtempSync(join(tmpdir(), 'svc-imports-'));
  const md = '# x\n\n## Import rule\n\n`lib` → `sql` → `api` (explanation → here)\n';
  const file = (path: string, text: string): void => {
    mkdirSync(join(src, path, '..'), { recursive: true });
    writeFileSync(join(src, path), text);
  };
  file('lib/index.ts', "export { a } from './a.js';\n");
  file('lib/a.ts', "import type { S } from '../sql/index.js';\nexport const a = 1;\n");
  file('sql/index.ts', "export type S = 1;\nimport { b } from './b.js';\n");
  file('sql/b.ts', "import './index.js';\nexport const b = 2;\n");
  file('api/index.ts', "import { b } from '../sql/b.js';\nimport { a } from '../lib/index.js';\n");
  file('extra/index.ts', 'export {};\n');
  const problems = check(src, md);
  assert.ok(problems.some((p) => p.startsWith('order: src/lib/a.ts imports src/sql/index.ts')), problems.join('\n'));
  assert.ok(problems.some((p) => p.startsWith('deep: src/api/index.ts imports src/sql/b.ts')), problems.join('\n'));
  assert.ok(problems.some((p) => p === 'circle: sql/b.ts, sql/index.ts'), problems.join('\n'));
  assert.ok(problems.some((p) => p.startsWith('unranked: src/extra')), problems.join('\n'));
  assert.ok(!problems.some((p) => p.includes('src/api/index.ts imports src/lib/index.ts')), problems.join('\n'));
});
