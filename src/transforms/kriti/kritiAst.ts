import type { KritiSpan } from './kritiError.js';

/** A parsed Kriti template. */
export type KritiNode =
  | { t: 'literal'; value: null | boolean | number | string; span: KritiSpan }
  | { t: 'object'; fields: Array<[string, KritiNode]>; span: KritiSpan }
  | { t: 'array'; items: KritiNode[]; span: KritiSpan }
  /** A string with `{{ }}` parts: strings are appended as they are, other values as JSON text. */
  | { t: 'interpolation'; parts: KritiNode[]; span: KritiSpan }
  | { t: 'var'; name: string; span: KritiSpan }
  /** `a.b`, `a[0]`, `a['b c']`: a missing field or index is an error. */
  | { t: 'field'; target: KritiNode; key: string | KritiNode; span: KritiSpan }
  /** `a?`, `a?.b.c`, `a?[0]`: a missing variable, field or index gives null, and the rest of the chain is skipped. */
  | { t: 'optional'; target: KritiNode; path: Array<string | KritiNode>; span: KritiSpan }
  | { t: 'if'; branches: Array<{ cond: KritiNode; body: KritiNode; span: KritiSpan }>; otherwise: KritiNode | null; span: KritiSpan }
  | { t: 'range'; index: string | null; binder: string; over: KritiNode; body: KritiNode; span: KritiSpan }
  | { t: 'call'; name: string; arg: KritiNode; span: KritiSpan }
  | { t: 'binary'; op: KritiBinaryOp; left: KritiNode; right: KritiNode; span: KritiSpan };

export type KritiBinaryOp = '==' | '!=' | '>' | '<' | '>=' | '<=' | '&&' | '||' | 'in' | '??';
