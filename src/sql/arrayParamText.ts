/**
 * The text of a one-dimensional Postgres array literal whose element i is read exactly as a scalar
 * parameter holding `values[i]` would be: each element is the text node-postgres sends for that
 * value as a parameter (`prepareValue`: strings as they are, numbers and booleans by `toString`, an
 * array as its own array literal, bytes as `\x` hex, an object with `toPostgres` by it, any other
 * object as JSON), quoted and escaped, and `null` is NULL. A multi-row insert binds one such array
 * per column (insertRows.ts), so an element of an array-typed column is that column's literal,
 * read back by a cast from text.
 */

const NEEDS_ESCAPE = /["\\]/;

function quoted(text: string): string {
  return NEEDS_ESCAPE.test(text) ? `"${text.replace(/[\\"]/g, '\\$&')}"` : `"${text}"`;
}

function bytesOf(v: ArrayBufferView): Buffer {
  return Buffer.isBuffer(v) ? v : Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

/** What node-postgres' `prepareValue` sends for a non-null value as a text parameter. */
function scalarText(v: unknown): string {
  switch (typeof v) {
    case 'string': return v;
    case 'number': case 'boolean': case 'bigint': return String(v);
    case 'object': {
      if (Array.isArray(v)) return nestedArrayText(v);
      if (ArrayBuffer.isView(v)) return `\\x${bytesOf(v).toString('hex')}`;
      const toPostgres = (v as { toPostgres?: unknown }).toPostgres;
      if (typeof toPostgres === 'function') return scalarText((toPostgres as () => unknown).call(v));
      return JSON.stringify(v);
    }
    default: return String(v);
  }
}

/** node-postgres' `arrayString`: the array literal of a JavaScript array value (nested arrays nested). */
function nestedArrayText(items: readonly unknown[]): string {
  let out = '{';
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out += ',';
    const item = items[i];
    if (item === null || item === undefined) out += 'NULL';
    else if (Array.isArray(item)) out += nestedArrayText(item);
    else if (ArrayBuffer.isView(item)) out += `\\\\x${bytesOf(item).toString('hex')}`;
    else out += quoted(scalarText(item));
  }
  return `${out}}`;
}

/** `{"a","b",NULL,…}`: one element per value, each read as that value alone would be. */
export function arrayParamText(values: readonly unknown[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) out += ',';
    const v = values[i];
    if (v === null || v === undefined) out += 'NULL';
    else if (typeof v === 'number' && Number.isFinite(v)) out += String(v);
    else out += quoted(scalarText(v));
  }
  return `${out}}`;
}
