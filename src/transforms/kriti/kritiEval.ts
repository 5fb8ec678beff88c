import type { KritiNode } from './kritiAst.js';
import { KritiError, type KritiSpan } from './kritiError.js';
import { KRITI_BASIC_FUNCTIONS, KritiFunctionError, kritiTypeName, type KritiFunction } from './kritiFunctions.js';

export type KritiBindings = Readonly<Record<string, unknown>>;

/** Evaluates a parsed template with the given variables (`$body`, …) and functions; throws a `KritiError`. */
export function evalKriti(
  node: KritiNode,
  bindings: KritiBindings,
  functions: Readonly<Record<string, KritiFunction>> = KRITI_BASIC_FUNCTIONS,
): unknown {
  const typeError = (span: KritiSpan, value: unknown, expected: string): never => {
    throw new KritiError('Type Error', `Couldn't match expected type '${expected}' with actual type '${kritiTypeName(value)}'`, span);
  };

  const lookup = (value: unknown, key: unknown): { found: boolean; value?: unknown } => {
    if (typeof key === 'string' && typeof value === 'object' && value !== null && !Array.isArray(value)) {
      return Object.prototype.hasOwnProperty.call(value, key) ? { found: true, value: (value as Record<string, unknown>)[key] } : { found: false };
    }
    if (typeof key === 'number' && Array.isArray(value)) {
      return Number.isInteger(key) && key >= 0 && key < value.length ? { found: true, value: value[key] } : { found: false };
    }
    return { found: false };
  };

  const ev = (n: KritiNode, scope: KritiBindings): unknown => {
    switch (n.t) {
      case 'literal':
        return n.value;
      case 'object': {
        const out: Record<string, unknown> = {};
        for (const [k, v] of n.fields) out[k] = ev(v, scope);
        return out;
      }
      case 'array':
        return n.items.map((x) => ev(x, scope));
      case 'interpolation':
        return n.parts
          .map((part) => {
            const v = ev(part, scope);
            return typeof v === 'string' ? v : JSON.stringify(v);
          })
          .join('');
      case 'var':
        if (!Object.prototype.hasOwnProperty.call(scope, n.name)) {
          throw new KritiError('Name Error', `Variable '${n.name}' not in scope`, n.span);
        }
        return scope[n.name];
      case 'field': {
        const target = ev(n.target, scope);
        if (typeof n.key === 'string') {
          if (typeof target !== 'object' || target === null || Array.isArray(target)) return typeError(n.target.span, target, 'Object');
          const hit = lookup(target, n.key);
          if (!hit.found) throw new KritiError('Attribute Error', `'Object' has no attribute '${n.key}'`, n.span);
          return hit.value;
        }
        const key = ev(n.key, scope);
        if (Array.isArray(target)) {
          if (typeof key !== 'number' || !Number.isInteger(key)) return typeError(n.span, key, 'Integer');
          const hit = lookup(target, key);
          if (!hit.found) throw new KritiError('Index Error', 'Index out of range', n.span);
          return hit.value;
        }
        if (typeof target === 'object' && target !== null) {
          if (typeof key !== 'string') return typeError(n.key.span, key, 'String');
          const hit = lookup(target, key);
          if (!hit.found) throw new KritiError('Attribute Error', `'Object' has no attribute '${key}'`, n.span);
          return hit.value;
        }
        return typeError(n.target.span, target, 'Object');
      }
      case 'optional': {
        let value: unknown;
        try {
          value = ev(n.target, scope);
        } catch (e) {
          if (!(e instanceof KritiError)) throw e;
          value = null;
        }
        if (value === null) return null;
        if (typeof value !== 'object') return typeError(n.target.span, value, 'Object');
        for (const step of n.path) {
          const key = typeof step === 'string' ? step : ev(step, scope);
          const hit = lookup(value, key);
          if (!hit.found) return null;
          value = hit.value;
        }
        return value;
      }
      case 'if': {
        for (const b of n.branches) {
          const c = ev(b.cond, scope);
          if (c === true) return ev(b.body, scope);
          if (c !== false) return typeError(b.span, c, 'Boolean');
        }
        return n.otherwise ? ev(n.otherwise, scope) : null;
      }
      case 'range': {
        const over = ev(n.over, scope);
        if (!Array.isArray(over)) return typeError(n.span, over, 'Array');
        return over.map((item, i) => {
          const inner: Record<string, unknown> = { ...scope, [n.binder]: item };
          if (n.index !== null) inner[n.index] = i;
          return ev(n.body, inner);
        });
      }
      case 'call': {
        const arg = ev(n.arg, scope);
        const f = Object.prototype.hasOwnProperty.call(functions, n.name) ? functions[n.name] : undefined;
        if (!f) throw new KritiError('Name Error', `Function '${n.name}' not in scope`, n.span);
        try {
          return f(arg);
        } catch (e) {
          if (e instanceof KritiFunctionError) throw new KritiError('Function Error', e.message, n.arg.span);
          throw e;
        }
      }
      case 'binary': {
        if (n.op === '??') {
          const l = ev(n.left, scope);
          return l === null ? ev(n.right, scope) : l;
        }
        const l = ev(n.left, scope);
        const r = ev(n.right, scope);
        switch (n.op) {
          case '==':
            return jsonEqual(l, r);
          case '!=':
            return !jsonEqual(l, r);
          case '<':
            return jsonCompare(l, r) < 0;
          case '>':
            return jsonCompare(l, r) > 0;
          case '<=':
            return jsonCompare(l, r) <= 0;
          case '>=':
            return jsonCompare(l, r) >= 0;
          case '&&':
          case '||':
            if (typeof l !== 'boolean') return typeError(n.span, l, 'Boolean');
            if (typeof r !== 'boolean') return typeError(n.span, r, 'Boolean');
            return n.op === '&&' ? l && r : l || r;
          case 'in':
            if (Array.isArray(r)) return r.some((x) => jsonEqual(l, x));
            if (typeof r === 'object' && r !== null) {
              if (typeof l !== 'string') return typeError(n.span, l, 'String');
              return Object.prototype.hasOwnProperty.call(r, l);
            }
            return typeError(n.span, r, 'Array');
        }
      }
    }
  };
  return ev(node, bindings);
}

export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null && !Array.isArray(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return false;
}

/** JSON ordering: values of one type by their natural order, values of different types by type (Object < Array < String < Number < Boolean < Null). */
function jsonCompare(a: unknown, b: unknown): number {
  const rank = (v: unknown): number => ['Object', 'Array', 'String', 'Number', 'Boolean', 'Null'].indexOf(kritiTypeName(v));
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (typeof a === 'number' || typeof a === 'string' || typeof a === 'boolean') return a < (b as typeof a) ? -1 : a > (b as typeof a) ? 1 : 0;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    for (let i = 0; i < Math.min(a.length, bb.length); i++) {
      const c = jsonCompare(a[i], bb[i]);
      if (c) return c;
    }
    return a.length - bb.length;
  }
  const sa = JSON.stringify(a);
  const sb = JSON.stringify(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}
