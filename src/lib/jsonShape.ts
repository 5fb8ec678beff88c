/**
 * A JSON text's shape, counted before it is parsed: how many values it holds (every `{`, `[`,
 * `,` and `:` outside strings), how deep it nests, and how many members a top-level array has.
 * `JSON.parse` costs time per value (an object per `{}`, a property per key), not per byte —
 * a 1 MB `[{},{},…]` blocks the event loop ~70 ms, a 1 MB string ~1 ms — so a body from a
 * caller who is not trusted is refused on its shape before it is parsed. One pass over the
 * bytes, stopping as soon as a bound is passed (~1 ms per MB).
 */

export interface JsonShape {
  /** Structural characters outside strings (a bound on the values the text holds). */
  values: number;
  /** Deepest nesting of objects and arrays seen. */
  depth: number;
  /** Members of the top-level array; -1 when the text is not an array. */
  topLength: number;
  /** Which bound stopped the count early, if any. */
  over?: 'values' | 'depth';
}

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_OBJECT = 123;
const CLOSE_OBJECT = 125;
const OPEN_ARRAY = 91;
const CLOSE_ARRAY = 93;
const COMMA = 44;
const COLON = 58;

/** Counts `text`'s shape up to `maxValues` values and `maxDepth` levels (invalid JSON is left to the parser). */
export function jsonShape(text: Uint8Array, maxValues: number, maxDepth: number): JsonShape {
  let values = 0;
  let depth = 0;
  let deepest = 0;
  let topCommas = 0;
  let topIsArray = false;
  let topEmpty = true;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text[i]!;
    if (c === QUOTE) {
      // Skip the string: an escape skips the next byte.
      for (i++; i < n; i++) {
        const d = text[i]!;
        if (d === BACKSLASH) i++;
        else if (d === QUOTE) break;
      }
      if (depth === 1) topEmpty = false;
      continue;
    }
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (depth === 0 && values === 0) topIsArray = c === OPEN_ARRAY;
      if (depth === 1) topEmpty = false;
      depth++;
      values++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > maxDepth) return { values, depth: deepest, topLength: -1, over: 'depth' };
      }
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--;
    } else if (c === COMMA || c === COLON) {
      values++;
      if (depth === 1 && c === COMMA) topCommas++;
    } else if (depth === 1 && c > 32) topEmpty = false;
    if (values > maxValues) return { values, depth: deepest, topLength: -1, over: 'values' };
  }
  return { values, depth: deepest, topLength: topIsArray ? (topEmpty ? 0 : topCommas + 1) : -1 };
}
