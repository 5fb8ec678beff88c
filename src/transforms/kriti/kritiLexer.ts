import { KritiError, type KritiPos, type KritiSpan } from './kritiError.js';

/**
 * Tokens of a Kriti template. Outside strings the lexer reads JSON and expression tokens; inside a string it
 * reads literal text until the closing quote or a `{{`, whose expression runs to its matching `}}`.
 * `}}` closes a template only when a `{{` is open innermost; otherwise `}` closes a JSON object, so
 * `{"a": {"b": 1}}` lexes as two object ends. `#` starts a comment to the end of the line (outside strings).
 */
export type KritiToken =
  | { kind: 'punct'; text: string; span: KritiSpan }
  | { kind: 'ident'; text: string; span: KritiSpan }
  | { kind: 'number'; value: number; span: KritiSpan }
  | { kind: 'strBegin'; span: KritiSpan }
  | { kind: 'strPart'; text: string; span: KritiSpan }
  | { kind: 'strEnd'; span: KritiSpan }
  | { kind: 'plainString'; text: string; span: KritiSpan }
  | { kind: 'eof'; span: KritiSpan };

const KEYWORDS = new Set(['true', 'false', 'null', 'if', 'elif', 'else', 'end', 'range', 'in', 'not', '_']);
const PUNCT3: string[] = [];
const PUNCT2 = ['{{', ':=', '??', '==', '!=', '>=', '<=', '&&', '||'];
const PUNCT1 = ['{', '}', '[', ']', '(', ')', ',', ':', '.', '?', '>', '<'];
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', "'": "'" };

export function isKritiKeyword(text: string): boolean {
  return KEYWORDS.has(text);
}

export function lexKriti(src: string): KritiToken[] {
  const tokens: KritiToken[] = [];
  let i = 0;
  let line = 0;
  let col = 0;
  /** What is open innermost: a JSON object, a `{{` template, or a double-quoted string. */
  const stack: Array<'obj' | 'tmpl' | 'str'> = [];

  const pos = (): KritiPos => ({ line, col });
  const advance = (n: number): void => {
    for (let k = 0; k < n; k++) {
      if (src[i] === '\n') {
        line++;
        col = 0;
      } else col++;
      i++;
    }
  };
  const fail = (message: string, start: KritiPos = pos()): never => {
    throw new KritiError('Parse Error', message, { start, end: { line: start.line, col: start.col + 1 } });
  };
  const readEscape = (): string => {
    // at a backslash
    const c = src[i + 1];
    if (c === 'u') {
      const hex = src.slice(i + 2, i + 6);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('Invalid unicode escape');
      advance(6);
      return String.fromCharCode(parseInt(hex, 16));
    }
    if (c === undefined || !(c in ESCAPES)) fail(`Invalid escape sequence '\\${c ?? ''}'`);
    advance(2);
    return ESCAPES[c!]!;
  };

  while (true) {
    const top = stack[stack.length - 1];
    if (top === 'str') {
      const start = pos();
      let text = '';
      while (i < src.length && src[i] !== '"' && !src.startsWith('{{', i)) {
        if (src[i] === '\\') text += readEscape();
        else if (src[i] === '\n') fail('Unterminated string');
        else {
          text += src[i];
          advance(1);
        }
      }
      if (text) tokens.push({ kind: 'strPart', text, span: { start, end: pos() } });
      if (i >= src.length) fail('Unterminated string', start);
      const s = pos();
      if (src[i] === '"') {
        advance(1);
        stack.pop();
        tokens.push({ kind: 'strEnd', span: { start: s, end: pos() } });
      } else {
        advance(2);
        stack.push('tmpl');
        tokens.push({ kind: 'punct', text: '{{', span: { start: s, end: pos() } });
      }
      continue;
    }
    // JSON / expression mode
    // whitespace and `#` comments (to the end of the line)
    while (i < src.length && (/\s/.test(src[i]!) || src[i] === '#')) {
      if (src[i] === '#') while (i < src.length && src[i] !== '\n') advance(1);
      else advance(1);
    }
    const start = pos();
    if (i >= src.length) {
      if (stack.length) fail(top === 'tmpl' ? "Missing closing '}}'" : "Missing closing '}'");
      tokens.push({ kind: 'eof', span: { start, end: start } });
      return tokens;
    }
    const c = src[i]!;
    if (c === '"') {
      advance(1);
      stack.push('str');
      tokens.push({ kind: 'strBegin', span: { start, end: pos() } });
      continue;
    }
    if (c === "'") {
      advance(1);
      let text = '';
      while (i < src.length && src[i] !== "'") {
        if (src[i] === '\\') text += readEscape();
        else if (src[i] === '\n') fail('Unterminated string', start);
        else {
          text += src[i];
          advance(1);
        }
      }
      if (i >= src.length) fail('Unterminated string', start);
      advance(1);
      tokens.push({ kind: 'plainString', text, span: { start, end: pos() } });
      continue;
    }
    if (c === '}') {
      if (top === 'tmpl' && src[i + 1] === '}') {
        advance(2);
        stack.pop();
        tokens.push({ kind: 'punct', text: '}}', span: { start, end: pos() } });
        continue;
      }
      if (top !== 'obj') fail("Unexpected '}'");
      advance(1);
      stack.pop();
      tokens.push({ kind: 'punct', text: '}', span: { start, end: pos() } });
      continue;
    }
    const num = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/.exec(src.slice(i, i + 64));
    if (num && (c !== '-' || /[0-9]/.test(src[i + 1] ?? ''))) {
      advance(num[0].length);
      tokens.push({ kind: 'number', value: Number(num[0]), span: { start, end: pos() } });
      continue;
    }
    const ident = /^(?:\$?[A-Za-z_][A-Za-z0-9_$-]*|\$)/.exec(src.slice(i, i + 256));
    if (ident) {
      let text = ident[0];
      // `a-b` is one identifier, but a trailing '-' belongs to what follows.
      while (text.endsWith('-')) text = text.slice(0, -1);
      advance(text.length);
      tokens.push({ kind: 'ident', text, span: { start, end: pos() } });
      continue;
    }
    const p = [...PUNCT3, ...PUNCT2, ...PUNCT1].find((t) => src.startsWith(t, i));
    if (!p) fail(`Unexpected character '${c}'`);
    advance(p!.length);
    if (p === '{{') stack.push('tmpl');
    else if (p === '{') stack.push('obj');
    tokens.push({ kind: 'punct', text: p!, span: { start, end: pos() } });
  }
}
