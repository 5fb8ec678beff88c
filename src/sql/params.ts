/**
 * Resolves a compiled statement's parameter list against one request's GraphQL variables and
 * session. Run once per execution; everything else about the statement is cached.
 */
import { ApiError } from '../core/index.js';
import { sessionJson, type Session } from '../core/index.js';
import type { ArrayParamSource, ListColumn, Param } from './fragment.js';
import type { ValueSource } from '../ir/index.js';
import { arrayParamText } from './arrayParamText.js';
import { JsonBigNumber } from '../lib/index.js';

const JSON_TYPES = new Set(['json', 'jsonb']);

export function resolveParams(params: readonly Param[], variables: Record<string, unknown> | undefined, session: Session): unknown[] {
  const out = new Array<unknown>(params.length);
  for (let i = 0; i < params.length; i++) {
    const p = params[i]!;
    const s = p.source;
    if (s.kind === 'array') {
      out[i] = arrayParamText(s.column === undefined ? itemValues(s, variables, session) : columnValues(s.column, s.items.length, s.element, variables));
    } else {
      out[i] = encode(sourceValue(s, variables, session), p.pgType);
    }
  }
  return out;
}

function itemValues(s: ArrayParamSource, variables: Record<string, unknown> | undefined, session: Session): unknown[] {
  const values = new Array<unknown>(s.items.length);
  for (let k = 0; k < values.length; k++) values[k] = encode(sourceValue(s.items[k]!, variables, session), s.element);
  return values;
}

/** Walks `path` from `v` as `sourceValue` does (stopping at null). */
function walk(v: unknown, path: ReadonlyArray<string | number>): unknown {
  for (let i = 0; i < path.length && v != null; i++) v = (v as Record<string | number, unknown>)[path[i]!];
  return v;
}

/**
 * The `n` values of a list column (what `itemValues` gives for its items, each encoded for
 * `element`), read in one walk over the list: the one-key suffix (a column of `$objects`) without
 * a path walk per item.
 */
function columnValues(c: ListColumn, n: number, element: string, variables: Record<string, unknown> | undefined): unknown[] {
  const values = new Array<unknown>(n);
  const list = walk(variables?.[c.name], c.prefix) as Record<number, unknown> | null | undefined;
  if (list == null) return values.fill(null);
  const json = JSON_TYPES.has(element);
  const key = c.suffix.length === 1 ? c.suffix[0]! : undefined;
  for (let i = 0; i < n; i++) {
    let v = list[i];
    if (v != null) v = key !== undefined ? (v as Record<string | number, unknown>)[key] : walk(v, c.suffix);
    values[i] = typeof v === 'string' && !json ? v : encode(v ?? null, element);
  }
  return values;
}

function sourceValue(s: ValueSource, variables: Record<string, unknown> | undefined, session: Session): unknown {
  switch (s.kind) {
    case 'value':
      return s.value;
    case 'variable': {
      let v: unknown = variables?.[s.name];
      const path = s.path;
      if (path !== undefined) for (let i = 0; i < path.length && v != null; i++) v = (v as Record<string | number, unknown>)[path[i]!];
      return v ?? null;
    }
    case 'session': {
      const v = session.vars[s.name];
      if (v === undefined) throw new ApiError('not-found', `"${s.name}" header is expected but not found`);
      return v;
    }
    case 'sessionJson':
      return session.hasura ? sessionJson(session) : session.vars;
  }
}

function encode(v: unknown, pgType: string | undefined): unknown {
  if (v === null || v === undefined) return null;
  // a long number from the request keeps every digit (valid JSON text too)
  if (v instanceof JsonBigNumber) return v.text;
  if (pgType && JSON_TYPES.has(pgType)) return JSON.stringify(v);
  if (typeof v === 'object' && !Array.isArray(v)) return JSON.stringify(v);
  return v;
}
