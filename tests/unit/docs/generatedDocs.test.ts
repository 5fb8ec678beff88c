/**
 * The generated parts of the docs (scripts/genDocs.mjs) match the definitions they come from: the
 * option table of docs/configuration.md (src/config/options.ts), the endpoint and operation tables of
 * docs/api.md (src/server/routes.ts, src/metadataApi/operations.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OPTIONS } from '../../../src/config/index.js';
import { OP_TYPES, OPERATIONS, translateV2Metadata } from '../../../src/metadataApi/index.js';
// @ts-expect-error: a plain .mjs script without type declarations
import * as gen from '../../../scripts/genDocs.mjs';

const root = new URL('../../../', import.meta.url).pathname;
const g = gen as {
  syncDocs(o: { check: boolean }): Promise<string[]>;
  renderOptions(o: unknown): string;
  renderOperations(t: unknown, o: unknown, tr: unknown): string;
  fillPart(doc: string, name: string, text: string, file: string): string;
  REGENERATE: string;
};

test('docs/configuration.md and docs/api.md carry the generated tables of the current definitions', async () => {
  const stale = await g.syncDocs({ check: true });
  assert.deepEqual(stale, [], `the generated docs differ from src/ (${stale.join(', ')}); regenerate them with: ${g.REGENERATE}`);
});

test('every option appears in docs/configuration.md with its flag, variable and default', () => {
  const doc = readFileSync(join(root, 'docs/configuration.md'), 'utf8');
  for (const o of OPTIONS) {
    const row = doc.split('\n').find((l) => l.startsWith(`| \`${o.flag}\` |`));
    assert.ok(row, `${o.flag} missing; run: ${g.REGENERATE}`);
    assert.ok(row.includes(`\`${o.env}\``), row);
    if (o.default !== undefined) assert.ok(row.includes(`\`${o.default}\``), row);
  }
});

test('a changed option or a new operation makes the generated text differ', () => {
  const before = g.renderOptions(OPTIONS);
  const changed = g.renderOptions(OPTIONS.map((o, i) => (i === 0 ? { ...o, default: 'changed' } : o)));
  assert.notEqual(before, changed);
  const doc = `a\n<!-- generated: options (${g.REGENERATE}) -->\n${before}\n<!-- end generated: options -->\nb\n`;
  assert.equal(g.fillPart(doc, 'options', before, 'x.md'), doc);
  assert.notEqual(g.fillPart(doc, 'options', changed, 'x.md'), doc);
  assert.throws(() => g.renderOperations([...OP_TYPES, 'new_op'], { ...OPERATIONS, new_op: { adminOnly: true, mutates: true } }, translateV2Metadata), /missing new_op/);
});
