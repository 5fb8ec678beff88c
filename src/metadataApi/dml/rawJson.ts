/**
 * JSON text built by Postgres, carried through a `/v1/query` result unchanged (so numbers keep
 * every digit and their scale), and the encoder that writes a result holding such values.
 */
export class RawJson {
  constructor(readonly text: string) {}
}

/** JSON.stringify, except that RawJson values are written as their text. */
export function encodeQueryResult(v: unknown): string {
  if (v instanceof RawJson) return v.text;
  if (Array.isArray(v) && v.some((x) => x instanceof RawJson || Array.isArray(x))) return `[${v.map(encodeQueryResult).join(',')}]`;
  return JSON.stringify(v) ?? 'null';
}
