/**
 * A fast reader for the block YAML that metadata files are made of (what `metadata export` and Hasura's
 * CLI write): block mappings and sequences (indented under their key or not), `key: value` lines,
 * `- item` lines, plain scalars of a safe class, one-line double- and single-quoted strings, `[]`, `{}`,
 * whole-line comments. It returns what `YAML.parse(text)` returns, or `undefined` when the text has
 * anything else (flow collections, anchors, tags, block scalars, multi-line scalars, a trailing comment,
 * a duplicate key, tabs, document markers…): the caller then parses it with the `yaml` package, which also
 * gives the error of a text that is not valid. The `yaml` package takes ~4 s per 1,000 tables of
 * metadata; this takes milliseconds.
 */

type Line = { indent: number; text: string };

class NotBlock extends Error {}
const bail = (): never => {
  throw new NotBlock();
};

/**
 * A plain scalar read here: starts with a letter, a digit or one of `_ $ / .`; printable; no `: ` or ` #`
 * inside, no `:` at its end. It is a core-schema word (`null`, `true`, …), a number, or a string.
 */
const PLAIN = /^[A-Za-z0-9_$/.][\x20-\x7e\u00a0-\ud7ff\ue000-\ufefe\uff00-\ufffd]*$/;
/** Numbers read here (Number() gives what `yaml` gives); other forms of the core schema's numbers are left to `yaml`. */
const INT = /^(?:0|-?[1-9][0-9]{0,14})$/;
const FLOAT = /^-?(?:0|[1-9][0-9]{0,14})\.[0-9]{1,15}$/;
/** Every plain scalar the YAML 1.2 core schema reads as a number (`yaml`'s int, octal, hex, float, inf and nan). */
const CORE_NUMBER = /^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;
const WORDS = new Map<string, unknown>([['null', null], ['Null', null], ['NULL', null], ['~', null], ['true', true], ['True', true], ['TRUE', true], ['false', false], ['False', false], ['FALSE', false]]);

function isPlain(s: string): boolean {
  return PLAIN.test(s) && !s.includes(': ') && !s.includes(' #') && !s.endsWith(':') && !s.endsWith(' ');
}

/** A one-line scalar (the whole of `s`). */
function scalar(s: string): unknown {
  if (WORDS.has(s)) return WORDS.get(s);
  if (INT.test(s) || FLOAT.test(s)) return Number(s);
  if (s === '[]') return [];
  if (s === '{}') return {};
  if (isPlain(s)) return CORE_NUMBER.test(s) || (s.length >= 3 && (s.startsWith('---') || s.startsWith('...'))) ? bail() : s;
  const q = quoted(s, 0);
  if (q !== undefined && q.end === s.length) return q.value;
  return bail();
}

/** A quoted string starting at `s[at]`: its value and where it ends; `undefined` when `s[at]` is no quote. */
function quoted(s: string, at: number): { value: string; end: number } | undefined {
  const c = s[at];
  if (c === '"') {
    // JSON's escapes are YAML's with the same meaning; any other (`\x41`, `\e`, a line break) is left to `yaml`.
    for (let i = at + 1; i < s.length; i++) {
      const ch = s.charCodeAt(i);
      if (ch === 92) i++;
      else if (ch === 34) {
        let value: unknown;
        try {
          value = JSON.parse(s.slice(at, i + 1));
        } catch {
          return bail();
        }
        return { value: value as string, end: i + 1 };
      } else if (ch < 32) return bail();
    }
    return bail();
  }
  if (c === "'") {
    let value = '';
    for (let i = at + 1; i < s.length; i++) {
      if (s[i] === "'") {
        if (s[i + 1] === "'") {
          value += "'";
          i++;
          continue;
        }
        return { value, end: i + 1 };
      }
      if (s.charCodeAt(i) < 32) return bail();
      value += s[i];
    }
    return bail();
  }
  return undefined;
}

/** `key: rest` or `key:` (the key plain or quoted): the key and the rest (`''` when none); `undefined` when `text` is no such line. */
function keyOf(text: string): { key: string; rest: string } | undefined {
  let key: string;
  let end: number;
  const q = quoted(text, 0);
  if (q !== undefined) {
    if (q.end === text.length) return undefined;
    if (text[q.end] !== ':') return bail();
    key = q.value;
    end = q.end;
  } else {
    end = text.indexOf(': ');
    if (end < 0) {
      if (!text.endsWith(':')) return undefined;
      end = text.length - 1;
    }
    key = text.slice(0, end);
    if (!/^[A-Za-z_$]/.test(key) || !isPlain(key) || WORDS.has(key)) return bail();
  }
  if (key === '__proto__') return bail();
  const after = text.slice(end + 1);
  if (after === '') return { key, rest: '' };
  // one space before a value on the line (`yaml` reads `key:  a` as " a", YAML as "a": neither is guessed)
  if (after[0] !== ' ' || after[1] === ' ') return bail();
  return { key, rest: after.slice(1) };
}

function isItem(text: string): boolean {
  return text === '-' || text.startsWith('- ');
}

class Reader {
  i = 0;
  constructor(readonly lines: Line[]) {}

  /** The node whose first line is the current one (at column `lines[i].indent`). */
  node(): unknown {
    const line = this.lines[this.i];
    if (isItem(line.text)) return this.sequence(line.indent);
    if (keyOf(line.text) !== undefined) return this.mapping(line.indent);
    this.i++;
    return scalar(line.text);
  }

  /**
   * The value after `- ` (`item`) or `key:` on the current line, `rest` starting at column `col`: on this line
   * (after `- `, a sequence or mapping may start there too), else on the lines below deeper than `parent`, or,
   * for a key, a sequence at `parent` itself (Hasura's CLI writes a key's sequence at the key's column).
   */
  value(rest: string, col: number, parent: number, item: boolean): unknown {
    if (rest !== '') {
      if (item && (isItem(rest) || keyOf(rest) !== undefined)) {
        this.lines[this.i] = { indent: col, text: rest };
        return this.node();
      }
      this.i++;
      return scalar(rest);
    }
    this.i++;
    const next = this.lines[this.i];
    if (next === undefined) return null;
    if (next.indent > parent) return this.node();
    if (!item && next.indent === parent && isItem(next.text)) return this.sequence(parent);
    return null;
  }

  sequence(col: number): unknown[] {
    const out: unknown[] = [];
    for (;;) {
      const line = this.lines[this.i];
      if (line === undefined || line.indent < col) return out;
      if (line.indent > col || !isItem(line.text)) return line.indent > col ? bail() : out;
      const rest = line.text === '-' ? '' : line.text.slice(2).trimStart();
      if (line.text.length - rest.length > 2 && !isItem(rest) && keyOf(rest) === undefined) return bail();
      const restCol = col + (line.text.length - rest.length);
      out.push(this.value(rest, restCol, col, true));
    }
  }

  mapping(col: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (;;) {
      const line = this.lines[this.i];
      if (line === undefined || line.indent < col) return out;
      if (line.indent > col) return bail();
      if (isItem(line.text)) return out;
      const kv = keyOf(line.text) ?? bail();
      if (Object.prototype.hasOwnProperty.call(out, kv.key)) return bail();
      const restCol = col + (line.text.length - kv.rest.length);
      out[kv.key] = this.value(kv.rest, restCol, col, false);
    }
  }
}

/** `YAML.parse(text)` for block YAML of the kind metadata files hold; `undefined` for any other text. */
export function parseBlockYaml(text: string): unknown {
  if (text.includes('\t') || text.includes('\r')) return undefined;
  const lines: Line[] = [];
  const raw = text.split('\n');
  for (let no = 0; no < raw.length; no++) {
    const t = raw[no];
    let indent = 0;
    while (t.charCodeAt(indent) === 32) indent++;
    if (indent === t.length || t[indent] === '#') continue;
    const body = t.slice(indent);
    if (no === 0 && body.charCodeAt(0) === 0xfeff) return undefined;
    if (body.startsWith('---') || body.startsWith('...') || body[0] === '%') return undefined;
    lines.push({ indent, text: body.endsWith(' ') ? body.trimEnd() : body });
  }
  if (lines.length === 0) return null;
  const r = new Reader(lines);
  try {
    const v = r.node();
    if (r.i !== lines.length) return undefined;
    return v;
  } catch (e) {
    if (e instanceof NotBlock) return undefined;
    throw e;
  }
}
