/**
 * Rewrites the `$n` parameter references of a compiled statement (see `compile()`), leaving
 * quoted identifiers and string literals alone. Live queries use it to turn a root field's
 * statement into one that reads every parameter from a lateral-joined row of variables:
 *
 *   mapParamRefs('SELECT … WHERE "id" = $1::"int4"', (i) => `("_subs"."result_vars"->>${i})`)
 *   → 'SELECT … WHERE "id" = ("_subs"."result_vars"->>0)::"int4"'
 */

/** `text` with each `$n` replaced by `replace(n - 1)` (0-based parameter index). */
export function mapParamRefs(text: string, replace: (index: number) => string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === "'" || ch === '"') {
      // '' and "" inside a quoted run are escaped quotes, not its end.
      let j = i + 1;
      while (j < text.length && !(text[j] === ch && text[j + 1] !== ch)) j += text[j] === ch ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (ch === '$' && isDigit(text[i + 1]) && !isWordChar(text[i - 1])) {
      let j = i + 1;
      while (j < text.length && isDigit(text[j])) j++;
      out += replace(Number(text.slice(i + 1, j)) - 1);
      i = j;
    } else {
      out += ch;
      i++;
    }
  }
  return out;
}

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
const isWordChar = (c: string | undefined): boolean => c !== undefined && /[A-Za-z0-9_$]/.test(c);
