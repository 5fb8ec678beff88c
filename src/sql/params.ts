/**
 * Resolves a compiled statement's parameter list against one request's GraphQL variables and
 * session. Run once per execution; everything else about the statement is cached.
 */
import { ApiError } from '../core/index.js';
import type { Session } from '../core/index.js';
import type { Param } from './fragment.js';
import { JsonBigNumber } from '../lib/index.js';

const JSON_TYPES = new Set(['json', 'jsonb']);

export function resolveParams(params: readonly Param[], variables: Record<string, unknown> | undefined, session: Session): unknown[] {
  return params.map((p) => encode(sourceValue(p, variables, session), p.pgType));
}

function sourceValue(p: Param, variables: Record<string, unknown> | undefined, session: Session): unknown {
  const s = p.source;
  switch (s.kind) {
    case 'value':
      return s.value;
    case 'variable': {
      let v: unknown = variables?.[s.name];
      for (const k of s.path ?? []) v = v == null ? undefined : (v as Record<string | number, unknown>)[k];
      return v ?? null;
    }
    case 'session': {
      const v = session.vars[s.name];
      if (v === undefined) throw new ApiError('not-found', `"${s.name}" header is expected but not found`);
      return v;
    }
    case 'sessionJson':
      return session.vars;
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
