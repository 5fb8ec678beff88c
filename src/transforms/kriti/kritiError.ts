/** A source position in a Kriti template: 0-based line and column, as Hasura reports them. */
export interface KritiPos {
  line: number;
  col: number;
}

export interface KritiSpan {
  start: KritiPos;
  end: KritiPos;
}

/** The kinds of Kriti errors, named as Hasura's `error_code` values. */
export type KritiErrorCode =
  | 'Parse Error'
  | 'Type Error'
  | 'Name Error'
  | 'Attribute Error'
  | 'Index Error'
  | 'Function Error';

/** A template that does not parse, or an evaluation that fails: a value with a source span, never a crash. */
export class KritiError extends Error {
  readonly code: KritiErrorCode;
  readonly span: KritiSpan;
  constructor(code: KritiErrorCode, message: string, span: KritiSpan) {
    super(message);
    this.name = 'KritiError';
    this.code = code;
    this.span = span;
  }

  /** Hasura's serialized shape: `{error_code, message, source_position}`. */
  toJSON(): { error_code: string; message: string; source_position: Record<string, number> } {
    return {
      error_code: this.code,
      message: this.message,
      source_position: {
        start_line: this.span.start.line,
        start_column: this.span.start.col,
        end_line: this.span.end.line,
        end_column: this.span.end.col,
      },
    };
  }
}

export function joinSpans(a: KritiSpan, b: KritiSpan): KritiSpan {
  return { start: a.start, end: b.end };
}
