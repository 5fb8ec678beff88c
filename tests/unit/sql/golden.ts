/**
 * Golden SQL files for the compiler's unit tests: tests/golden/sql/<case>.sql holds the
 * statement's parameters and its text (laid out one clause per line for reading; the compiler
 * emits one line). `UPDATE_SNAPSHOTS=1` rewrites them.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { compile, type SqlFragment } from '../../../src/sql/index.js';

const DIR = new URL('../../golden/sql/', import.meta.url);

export function assertGolden(name: string, f: SqlFragment): void {
  const c = compile(f);
  const actual = `-- params: ${JSON.stringify(c.params)}\n${layout(c.text)}\n`;
  const file = new URL(`${name}.sql`, DIR);
  if (process.env.UPDATE_SNAPSHOTS === '1') {
    mkdirSync(DIR, { recursive: true });
    writeFileSync(file, actual);
    return;
  }
  assert.ok(existsSync(file), `golden file ${name}.sql is missing: run with UPDATE_SNAPSHOTS=1`);
  assert.equal(actual, readFileSync(file, 'utf8'), `SQL of ${name} differs from tests/golden/sql/${name}.sql (UPDATE_SNAPSHOTS=1 to accept)`);
}

const BREAK_BEFORE = [' FROM ', ' LEFT JOIN ', ' WHERE ', ' ORDER BY ', ' LIMIT ', ' OFFSET '];

/**
 * One clause per line, indented by parenthesis depth, outside string literals; row objects
 * (`(SELECT _r FROM ...)`) and aggregate calls (`json_agg(... ORDER BY ...)`) stay on one line.
 */
export function layout(text: string): string {
  let out = '';
  let quoted = false;
  const inline: boolean[] = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "'") quoted = !quoted;
    if (!quoted) {
      if (ch === '(') {
        const keep = inline.at(-1) === true || /(json_agg|row_to_json|count|sum|json_build_object)$/.test(out) || text.startsWith('(SELECT _r FROM', i);
        inline.push(keep);
      } else if (ch === ')') {
        inline.pop();
      } else if (inline.at(-1) !== true) {
        const kw = BREAK_BEFORE.find((k) => text.startsWith(k, i));
        if (kw) {
          out += '\n' + '  '.repeat(inline.length) + kw.trimStart();
          i += kw.length - 1;
          continue;
        }
      }
    }
    out += ch;
  }
  return out;
}
