import { jsonTypeName } from '../../core/index.js';

/** A Kriti function: one JSON argument in, a JSON value out; throws a string message on bad input. */
export type KritiFunction = (arg: unknown) => unknown;

export class KritiFunctionError extends Error {}

const fail = (message: string): never => {
  throw new KritiFunctionError(message);
};

/** A JSON value's type as Kriti's messages name it: aeson's names, as the rest of the engine's messages. */
export const kritiTypeName = jsonTypeName;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const expectString = (v: unknown): string =>
  typeof v === 'string' ? v : fail(`parsing String failed, expected String, but encountered ${kritiTypeName(v)}`);

const size: KritiFunction = (v) => {
  if (Array.isArray(v)) return v.length;
  if (typeof v === 'string') return [...v].length;
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (v === null) return 0;
  return Object.keys(v as object).length;
};

/** Unicode title case: the first letter of each word upper case, the rest lower case. */
function toTitle(s: string): string {
  return s.toLowerCase().replace(/(^|[^\p{L}\p{N}'’])(\p{L})/gu, (_m, pre: string, ch: string) => pre + ch.toUpperCase());
}

/** Percent-encodes everything but RFC 3986's unreserved characters. */
function escapeUri(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Kriti's basic function set (`empty` … `not`) plus `escapeUri`; `length` is `size` under Hasura's other name. */
export const KRITI_BASIC_FUNCTIONS: Readonly<Record<string, KritiFunction>> = Object.freeze({
  empty: (v: unknown) => {
    if (typeof v === 'boolean') return fail('Cannot define emptiness for a boolean');
    if (v === null) return true;
    if (Array.isArray(v)) return v.length === 0;
    if (typeof v === 'string') return v.trim() === '';
    if (typeof v === 'number') return v === 0;
    return Object.keys(v as object).length === 0;
  },
  size,
  length: size,
  inverse: (v: unknown) => {
    if (Array.isArray(v)) return [...v].reverse();
    if (typeof v === 'string') return [...v].reverse().join('');
    if (typeof v === 'number') return 1 / v;
    if (typeof v === 'boolean') return !v;
    return v;
  },
  head: (v: unknown) => {
    if (Array.isArray(v)) return v.length ? v[0] : fail('Empty array');
    if (typeof v === 'string') return v.length ? [...v][0] : fail('Empty string');
    return fail('Expected an array or string');
  },
  tail: (v: unknown) => {
    if (Array.isArray(v)) return v.slice(1);
    if (typeof v === 'string') return [...v].slice(1).join('');
    return fail('Expected an array or string');
  },
  toCaseFold: (v: unknown) => expectString(v).toLowerCase().replace(/ß/g, 'ss'),
  toLower: (v: unknown) => expectString(v).toLowerCase(),
  toUpper: (v: unknown) => expectString(v).toUpperCase(),
  toTitle: (v: unknown) => toTitle(expectString(v)),
  escapeUri: (v: unknown) => escapeUri(expectString(v)),
  fromPairs: (v: unknown) => {
    const shape = 'Expected an array of shape [ [k1,v1], [k2,v2] ... ] - With String keys.';
    if (!Array.isArray(v)) return fail(`parsing Nested Arrays failed, expected Array, but encountered ${kritiTypeName(v)}`);
    const out: Record<string, unknown> = {};
    for (const pair of v) {
      if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string') return fail(shape);
      out[pair[0]] = pair[1];
    }
    return out;
  },
  toPairs: (v: unknown) => {
    if (!isObject(v)) return fail(`parsing Object failed, expected Object, but encountered ${kritiTypeName(v)}`);
    return Object.entries(v).map(([k, x]) => [k, x]);
  },
  removeNulls: (v: unknown) => {
    if (!Array.isArray(v)) return fail(`parsing Array failed, expected Array, but encountered ${kritiTypeName(v)}`);
    return v.filter((x) => x !== null);
  },
  concat: (v: unknown) => {
    if (!Array.isArray(v)) return fail(`parsing Array failed, expected Array, but encountered ${kritiTypeName(v)}`);
    if (v.every(Array.isArray)) return (v as unknown[][]).flat(1);
    if (v.every((x) => typeof x === 'string')) return (v as string[]).join('');
    if (v.every(isObject)) return Object.assign({}, ...(v as object[]));
    return fail('Expected an array of arrays, of strings or of objects');
  },
  not: (v: unknown) =>
    typeof v === 'boolean' ? !v : fail(`parsing Bool failed, expected Boolean, but encountered ${kritiTypeName(v)}`),
});

/**
 * Hasura's transform functions on top of the basic set: `getSessionVariable(name)` reads the request's session
 * variables (names compared case-insensitively); an unknown one is an error.
 */
export function transformFunctions(sessionVariables: Record<string, unknown> | null): Record<string, KritiFunction> {
  return {
    ...KRITI_BASIC_FUNCTIONS,
    getSessionVariable: (v: unknown) => {
      const name = expectString(v).toLowerCase();
      const hit = Object.entries(sessionVariables ?? {}).find(([k]) => k.toLowerCase() === name);
      return hit ? hit[1] : fail(`Session variable "${expectString(v)}" not found`);
    },
  };
}
