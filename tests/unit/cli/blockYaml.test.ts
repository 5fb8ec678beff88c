/**
 * blockYamlText.ts / coreYaml.ts: the fast writer gives exactly the `yaml` package's text, and js-yaml's
 * reading (core schema) exactly `YAML.parse`'s JSON value or `undefined` (never another value), on random JSON
 * documents with awkward strings and keys, on the go-yaml layout Hasura's CLI writes, on odd texts, and on
 * every YAML file of the repository.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import YAML from 'yaml';
import { blockYamlText } from '../../../src/cli/blockYamlText.js';
import { parseCoreYaml as parseBlockYaml } from '../../../src/cli/coreYaml.js';
import { canonical, yamlText } from '../../../src/cli/metadataDir.js';
import { prng } from '../../support/prng.js';

const OPTIONS = { lineWidth: 0, aliasDuplicateObjects: false } as const;

const STRINGS = [
  '', ' ', 'a', 'a b', 'a  b', 'a ', ' a', 'null', 'Null', 'NULL', '~', 'true', 'False', 'yes', 'no', 'on', '0', '-0', '007',
  '1.5', '1e3', '0x1F', '0o17', '.inf', '-.inf', '.nan', 'x: y', 'x:y', 'x:', 'a #b', 'a#b', '#a', '- a', '-a', '-', '?', '? a',
  'a\nb', 'a\n', '\n', 'a\tb', '"q"', "it's", "'", '"', '\\', '[a]', '{a}', 'a, b', '&a', '*a', '!a', '|', '>', '%a', '@a',
  '`a', '---', '...', '--- a', 'X-Svc-User-Id', 'x-svc-role', 'public', 't0001', 'children_t0002', 'http://h:8080/p?q=1',
  '{{ENV_URL}}/hook', '$.data', 'é', 'ü ö', '😀', '\u0085', '\u00a0a', 'a\u2028b', '\u0007', 'a\u007fb', 'line one\nline two\n',
  '__proto__', 'constructor', 'toString', '<<', '=', 'a=b', 'SELECT 1', 'A_b', '$x', '/p', './a', '+1', '+a',
];
const KEYS = ['name', 'table', 'schema', 'columns', 'filter', '_eq', '_and', 'X-Svc-User-Id', 'a b', 'x:y', '', 'null', 'true',
  '1', 'comment', 'é', 'a-b', 'using', '__proto__', 'toString', '10', '9', '02', 'role', 'version', 'type'];

function randomValue(r: () => number, depth: number): unknown {
  const k = r();
  if (depth > 4 || k < 0.35) {
    const s = r();
    if (s < 0.55) return STRINGS[Math.floor(r() * STRINGS.length)];
    if (s < 0.7) return Math.floor(r() * 2000) - 1000;
    if (s < 0.75) return [1.5, -0.25, 1e21, 2 ** 53, 0.1 + 0.2, -0][Math.floor(r() * 6)];
    if (s < 0.85) return r() < 0.5;
    return null;
  }
  if (k < 0.65) return Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth + 1));
  const o: Record<string, unknown> = {};
  for (let i = Math.floor(r() * 5); i > 0; i--) {
    const key = r() < 0.85 ? KEYS[Math.floor(r() * 7)] : KEYS[Math.floor(r() * KEYS.length)];
    Object.defineProperty(o, key, { value: randomValue(r, depth + 1), enumerable: true, writable: true, configurable: true });
  }
  return o;
}

function sameParse(text: string, label: string): void {
  const fast = parseBlockYaml(text);
  if (fast === undefined) return;
  let slow: unknown;
  try {
    slow = YAML.parse(text);
  } catch (e) {
    assert.fail(`${label}: read ${JSON.stringify(fast)} from a text yaml rejects (${(e as Error).message}):\n${text}`);
  }
  // As JSON (the metadata's model): js-yaml reads `-0` as 0, which JSON writes alike.
  assert.deepEqual(JSON.parse(JSON.stringify(fast)), JSON.parse(JSON.stringify(slow)), `${label}:\n${text}`);
  if (fast !== null && typeof fast === 'object') assert.equal(Object.getPrototypeOf(fast), Object.getPrototypeOf(slow), label);
}

test('the writer gives the yaml package\'s text and the reader its value, on 3,000 random documents', () => {
  const r = prng(42);
  let readFast = 0;
  let wroteFast = 0;
  for (let i = 0; i < 3000; i++) {
    const v = randomValue(r, 0);
    const text = blockYamlText(v) ?? YAML.stringify(v, OPTIONS);
    assert.equal(text, YAML.stringify(v, OPTIONS), `document ${i}: ${JSON.stringify(v)}`);
    sameParse(text, `document ${i}`);
    if (blockYamlText(v) !== undefined) wroteFast++;
    if (parseBlockYaml(text) !== undefined) readFast++;
  }
  // most of them are written and read without the yaml package (those with multi-line strings, `__proto__`… are not written)
  assert.ok(readFast > 2500 && wroteFast > 1500, `${readFast} of 3000 read fast, ${wroteFast} written fast`);
});

test('metadata files (keys in the canonical order) are the text yaml writes of the canonical copy', () => {
  const r = prng(7);
  for (let i = 0; i < 1000; i++) {
    const v = randomValue(r, 0);
    assert.equal(yamlText(v), YAML.stringify(canonical(v), OPTIONS), `document ${i}: ${JSON.stringify(v)}`);
  }
});

test('metadata of many tables is written without the yaml package and read back by js-yaml, as yaml writes and reads it', () => {
  const tables = Array.from({ length: 50 }, (_, i) => ({
    table: { name: `t${i}`, schema: 'public' },
    object_relationships: [{ name: 'parent', using: { foreign_key_constraint_on: 'parent_id' } }],
    array_relationships: [{ name: `children_t${i + 1}`, using: { foreign_key_constraint_on: { column: 'parent_id', table: `t${i + 1}` } } }],
    select_permissions: [{ role: 'r1', permission: { columns: ['id', 'label'], filter: { owner_id: { _eq: 'X-Svc-User-Id' } }, allow_aggregations: true, limit: 10 } }],
    event_triggers: [{ name: `e${i}`, definition: { enable_manual: false, insert: { columns: '*' } }, retry_conf: { interval_sec: 10, num_retries: 0, timeout_sec: 60 }, webhook: 'http://127.0.0.1:9090/hook?x=1', headers: [{ name: 'X-A', value_from_env: 'A_ENV' }] }],
    configuration: { custom_name: `T${i}`, custom_root_fields: {}, comment: i % 2 ? 'a table: its rows' : null },
  }));
  const text = blockYamlText(tables);
  assert.equal(text, YAML.stringify(tables, OPTIONS));
  const long = { ['k'.repeat(1100)]: 1, ['v'.repeat(1000)]: 'w'.repeat(5000) };
  assert.equal(blockYamlText(long) ?? YAML.stringify(long, OPTIONS), YAML.stringify(long, OPTIONS));
  const sorted = blockYamlText(tables, (keys) => keys.sort());
  assert.equal(sorted, YAML.stringify(tables, { ...OPTIONS, sortMapEntries: true }));
  const back = parseBlockYaml(text!);
  assert.notEqual(back, undefined);
  assert.deepEqual(back, YAML.parse(text!));
});

test('the go-yaml layout of Hasura\'s CLI (sequences at their key\'s column), comments and quotes are read as yaml reads them', () => {
  const text = [
    '# tables of the default source',
    '- table:',
    '    schema: public',
    '    name: author',
    '  object_relationships:',
    '  - name: profile',
    '    using:',
    '      foreign_key_constraint_on: profile_id',
    '  select_permissions:',
    '  - role: "user"',
    "    permission: {}",
    '  - role: \'it\'\'s\'',
    '    permission:',
    '      columns:',
    '      - id',
    '      - name',
    '      -   label: x',
    '          about: y',
    '      filter:',
    '        id:',
    '          _eq: X-Hasura-User-Id',
    '      limit: 10',
    '      nothing:',
    '      empty: ~',
    '      list: []',
    '-',
    '- - a',
    '  -',
    '  - - b',
    '',
  ].join('\n');
  const fast = parseBlockYaml(text);
  assert.notEqual(fast, undefined);
  assert.deepEqual(fast, YAML.parse(text));
});

test('texts js-yaml refuses are left to the yaml package (undefined); every other odd text is read as yaml reads it', () => {
  // Hasura's `!include` tag and duplicate keys: js-yaml refuses them, `yaml` reads (or reports) them.
  for (const t of ['a: !include x.yaml', '- !include a.yaml', 'a: 1\na: 2', "a: 'x", 'a: "x', 'a: b: c']) {
    assert.equal(parseBlockYaml(t), undefined, JSON.stringify(t));
  }
  const odd = [
    'a: [1, 2]', 'a: {b: 1}', 'a: &x 1\nb: *x', 'a: |\n  x\n', 'a: >\n  x\n', 'a: "x\n  y"', 'a: b\n  c', '---\na: 1', 'a: 1 # note',
    'a: b\r\nc: d', '? a\n: b', '"a":b', 'a: -x', 'a: 0x1F', 'a: 1e3', 'a: .inf', 'a: 007', 'a: +1', 'a: 1.', 'a: .5', 'a: 0o17', 'a: .NaN', 'a: 1E-3',
    'a: -0', 'a: "\\x41"', '%YAML 1.2\n---\na: 1', '<<: {a: 1}', '', '# only a comment\n', '[]', '{}', 'a: 1', 'a: -1', 'a: 1.50', 'a: -0.0', 'a: x:y',
    'a: http://h/p#frag', "a: 'q'", 'a: "é\\n\\u00e9"', '- null\n- ~\n- NULL\n- True', 'a:\n- 1\n- 2\nb: 3', 'a: 2024-01-01', 'a: 2nd table',
    'a: 1.2.3', 'a: .x', 'a: /p', 'a: 0o9', 'a: 0x1g', 'a: 12:30', 'a: yes', 'a: on',
  ];
  for (const t of odd) sameParse(t, JSON.stringify(t));
});

test('every YAML file of the repository\'s fixtures reads as yaml reads it', () => {
  const root = join(import.meta.dirname, '..', '..');
  const files: string[] = [];
  (function walk(d: string) {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.ya?ml$/.test(n)) files.push(p);
    }
  })(root);
  assert.ok(files.length > 0);
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    let slow: unknown;
    try {
      slow = YAML.parse(text);
    } catch {
      assert.equal(parseBlockYaml(text), undefined, f);
      continue;
    }
    const fast = parseBlockYaml(text);
    if (fast !== undefined) assert.deepEqual(JSON.parse(JSON.stringify(fast)), JSON.parse(JSON.stringify(slow)), f);
  }
});
