/**
 * Resolves a compiled statement's parameter list against one request's GraphQL variables and
 * session. Run once per execution; everything else about the statement is cached.
 */
import { ApiError } from '../core/index.js';
import { sessionJson, type Session } from '../core/index.js';
import type { Param } from './fragment.js';
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
      const values = new Array<unknown>(s.items.length);
      for (let k = 0; k < values.length; k++) values[k] = encode(sourceValue(s.items[k]!, variables, session), s.element);
      out[i] = arrayParamText(values);
    } else {
      out[i] = encode(sourceValue(s, variables, session), p.pgType);
    }
  }
  return out;
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
