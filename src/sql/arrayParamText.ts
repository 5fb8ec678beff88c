/**
 * The text of a one-dimensional Postgres array literal whose element i is read exactly as a scalar
 * parameter holding `values[i]` would be: each element is the text node-postgres sends for that
 * value as a parameter (`prepareValue`: strings as they are, numbers and booleans by `toString`, an
 * array as its own array literal, bytes as `\x` hex, an object with `toPostgres` by it, any other
 * object as JSON), quoted and escaped, and `null` is NULL. A multi-row insert binds one such array
 * per column (unnestRows.ts), so an element of an array-typed column is that column's literal,
 * read back by a cast from text.
 */

function quoted(text: string): string {
  return text.indexOf('"') < 0 && text.indexOf('\\') < 0 ? `"${text}"` : `"${text.replace(/[\\"]/g, '\\$&')}"`;
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

/**
 * `{"a","b",NULL,…}`: one element per value, each read as that value alone would be. Every element
 * is quoted (a quoted `1` is read as 1; an array of numbers only is written unquoted) so that, with
 * no NULL, the literal is one `join` of the elements: a flat string, where concatenating element by
 * element makes a rope that writing the parameter would have to flatten.
 */
export function arrayParamText(values: readonly unknown[]): string {
  const n = values.length;
  if (n === 0) return '{}';
  // Numbers only: unquoted, `join` writing each as `String` does (a number's text is never NULL
  // and has no space, quote, comma or brace, so it reads the same quoted or not).
  if (typeof values[0] === 'number') {
    let numbers = true;
    for (let i = 1; i < n && numbers; i++) numbers = typeof values[i] === 'number';
    if (numbers) return `{${values.join(',')}}`;
  }
  // No NULL and no quote in any element: the elements as they are, and one look for a backslash in
  // the joined text (a backslash anywhere sends it to the escaping path below). The braces go on the
  // first and last elements, so the literal is the flat string `join` makes (a `{…}` around it would
  // be a rope, copied into a flat string again when the parameter is written).
  const texts = new Array<string>(n);
  let plain = true;
  for (let i = 0; i < n && plain; i++) {
    const v = values[i];
    if (v === null || v === undefined) plain = false;
    else {
      const t = typeof v === 'string' ? v : scalarText(v);
      if (t.indexOf('"') >= 0) plain = false;
      else texts[i] = t;
    }
  }
  if (plain) {
    texts[0] = `{"${texts[0]}`;
    texts[n - 1] = `${texts[n - 1]}"}`;
    const out = texts.join('","');
    if (out.indexOf('\\') < 0) return out;
  }
  return escapedArrayText(values);
}

/** `arrayParamText` of values that hold a NULL, a quote or a backslash: each element escaped. */
function escapedArrayText(values: readonly unknown[]): string {
  const n = values.length;
  const texts = new Array<string>(n);
  let nulls = false;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v === null || v === undefined) {
      nulls = true;
      texts[i] = 'NULL';
      continue;
    }
    const t = typeof v === 'string' ? v : scalarText(v);
    texts[i] = t.indexOf('"') < 0 && t.indexOf('\\') < 0 ? t : t.replace(/[\\"]/g, '\\$&');
  }
  if (!nulls) {
    texts[0] = `{"${texts[0]}`;
    texts[n - 1] = `${texts[n - 1]}"}`;
    return texts.join('","');
  }
  for (let i = 0; i < n; i++) if (values[i] !== null && values[i] !== undefined) texts[i] = `"${texts[i]}"`;
  texts[0] = `{${texts[0]}`;
  texts[n - 1] = `${texts[n - 1]}}`;
  return texts.join(',');
}
