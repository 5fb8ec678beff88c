/**
 * `JSON.parse` that keeps every digit of long numbers. JavaScript numbers hold 15-17 significant
 * digits, so `{"id": 9007199254740993}` would silently become ...992; a number token with more
 * than 15 significant digits is kept as a `JsonBigNumber` holding its exact text instead, which
 * Postgres receives as that text (`toPostgres`, used by node-postgres for parameters).
 *
 * Fast path: a text without 16 consecutive digits (`hasLongDigitRun`) is just `JSON.parse`.
 * Otherwise one linear scan (string-aware) marks the long number tokens, then `JSON.parse` with a
 * reviver restores them.
 */
import { randomBytes } from 'node:crypto';

/** A JSON number kept as its exact text (more significant digits than a JS number holds). */
export class JsonBigNumber {
  constructor(readonly text: string) {}
  /** Inside JSON documents it is a plain (rounded) number, as `JSON.parse` would have given. */
  toJSON(): number {
    return Number(this.text);
  }
  /** As a query parameter: the exact text (Postgres parses it for bigint/numeric/float8). */
  toPostgres(): string {
    return this.text;
  }
  toString(): string {
    return this.text;
  }
}

const isDigit = (c: number): boolean => c >= 48 && c <= 57;

/**
 * Whether `text` has 16 consecutive digits. Any 16 consecutive indexes include one that is 15
 * modulo 16, so only those are looked at, and the run around a digit found there measured: a
 * 16th of the reads `/\d{16}/` makes on a body without long numbers.
 */
export function hasLongDigitRun(text: string): boolean {
  const n = text.length;
  for (let i = 15; i < n; i += 16) {
    if (!isDigit(text.charCodeAt(i))) continue;
    let start = i;
    while (start > 0 && isDigit(text.charCodeAt(start - 1))) start--;
    let end = i + 1;
    while (end < n && end - start < 16 && isDigit(text.charCodeAt(end))) end++;
    if (end - start >= 16) return true;
  }
  return false;
}
const NUMBER_CHAR = /[0-9eE+\-.]/;
const MARK = `\u0000bignum-${randomBytes(6).toString('hex')}:`;
const NUMBER_TEXT = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;

/** Significant digits of a JSON number token (no sign, exponent, point or leading zeros). */
function significantDigits(token: string): number {
  const mantissa = token.replace(/^-/, '').replace(/[eE].*$/, '').replace('.', '');
  return mantissa.replace(/^0+/, '').length;
}

/** Parses JSON text; numbers with more than 15 significant digits become `JsonBigNumber`s. */
export function parseJsonExact(text: string): unknown {
  if (!hasLongDigitRun(text)) return JSON.parse(text);
  let out = '';
  let last = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === 92 /* \ */) i += 2;
        else {
          i++;
          if (d === 34) break;
        }
      }
      continue;
    }
    if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
      const start = i;
      i++;
      while (i < n && NUMBER_CHAR.test(text[i])) i++;
      const token = text.slice(start, i);
      if (NUMBER_TEXT.test(token) && significantDigits(token) > 15) {
        out += text.slice(last, start) + JSON.stringify(MARK + token);
        last = i;
      }
      continue;
    }
    i++;
  }
  if (last === 0) return JSON.parse(text);
  out += text.slice(last);
  return JSON.parse(out, (_k, v: unknown) => (typeof v === 'string' && v.startsWith(MARK) ? new JsonBigNumber(v.slice(MARK.length)) : v));
}
