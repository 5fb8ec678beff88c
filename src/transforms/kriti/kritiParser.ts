import type { KritiBinaryOp, KritiNode } from './kritiAst.js';
import { KritiError, joinSpans, type KritiSpan } from './kritiError.js';
import { isKritiKeyword, lexKriti, type KritiToken } from './kritiLexer.js';

/** Binary operators by binding strength (weakest first); each level is left-associative. */
const LEVELS: KritiBinaryOp[][] = [['||'], ['&&'], ['==', '!=', '>', '<', '>=', '<=', 'in'], ['??']];

/** Parses a Kriti template (a JSON superset with `{{ }}` expressions); throws a `KritiError` ('Parse Error'). */
export function parseKriti(src: string): KritiNode {
  const tokens = lexKriti(src);
  let p = 0;

  const peek = (k = 0): KritiToken => tokens[Math.min(p + k, tokens.length - 1)]!;
  const isPunct = (text: string, k = 0): boolean => {
    const tok = peek(k);
    return tok.kind === 'punct' && tok.text === text;
  };
  const isWord = (text: string, k = 0): boolean => {
    const tok = peek(k);
    return tok.kind === 'ident' && tok.text === text;
  };
  const describe = (tok: KritiToken): string => {
    switch (tok.kind) {
      case 'eof':
        return 'end of input';
      case 'number':
        return String(tok.value);
      case 'strBegin':
      case 'strEnd':
        return '\'"\'';
      case 'strPart':
      case 'plainString':
        return `'${tok.text}'`;
      default:
        return `'${tok.text}'`;
    }
  };
  const fail = (tok: KritiToken = peek()): never => {
    throw new KritiError('Parse Error', `Unexpected token ${describe(tok)}`, tok.span);
  };
  const expectPunct = (text: string): KritiSpan => {
    if (!isPunct(text)) fail();
    return tokens[p++]!.span;
  };
  const expectWord = (text: string): KritiSpan => {
    if (!isWord(text)) fail();
    return tokens[p++]!.span;
  };
  const expectBinder = (): string => {
    const tok = peek();
    if (tok.kind !== 'ident' || (isKritiKeyword(tok.text) && tok.text !== '_')) fail();
    p++;
    return (tok as { text: string }).text;
  };

  function expr(level = 0): KritiNode {
    if (level === LEVELS.length) return unary();
    let left = expr(level + 1);
    for (;;) {
      const tok = peek();
      const op = LEVELS[level]!.find((o) => (tok.kind === 'punct' || tok.kind === 'ident') && tok.text === o);
      if (!op) return left;
      p++;
      const right = expr(level + 1);
      left = { t: 'binary', op, left, right, span: joinSpans(left.span, right.span) };
    }
  }

  function unary(): KritiNode {
    const tok = peek();
    if (isWord('not')) {
      p++;
      const arg = unary();
      return { t: 'call', name: 'not', arg, span: joinSpans(tok.span, arg.span) };
    }
    if (tok.kind === 'ident' && !isKritiKeyword(tok.text) && !tok.text.startsWith('$') && isPunct('(', 1)) {
      p += 2;
      const arg = expr();
      const end = expectPunct(')');
      return postfix({ t: 'call', name: tok.text, arg, span: joinSpans(tok.span, end) });
    }
    return postfix(primary());
  }

  function pathKey(): string | KritiNode {
    // after '[': a quoted key or an expression, then ']'
    const tok = peek();
    let key: string | KritiNode;
    if (tok.kind === 'plainString' && isPunct(']', 1)) {
      p++;
      key = tok.text;
    } else key = expr();
    expectPunct(']');
    return key;
  }

  function fieldName(): string {
    const tok = peek();
    if (tok.kind !== 'ident') fail();
    p++;
    return (tok as { text: string }).text;
  }

  function postfix(node: KritiNode): KritiNode {
    for (;;) {
      if (isPunct('.')) {
        p++;
        const start = peek().span;
        const name = fieldName();
        node = { t: 'field', target: node, key: name, span: joinSpans(node.span, start) };
      } else if (isPunct('[')) {
        p++;
        const key = pathKey();
        node = { t: 'field', target: node, key, span: joinSpans(node.span, tokens[p - 1]!.span) };
      } else if (isPunct('?')) {
        const qSpan = tokens[p++]!.span;
        const path: Array<string | KritiNode> = [];
        let end = qSpan;
        for (;;) {
          if (isPunct('.')) {
            p++;
            end = peek().span;
            path.push(fieldName());
          } else if (isPunct('[')) {
            p++;
            path.push(pathKey());
            end = tokens[p - 1]!.span;
          } else break;
        }
        node = { t: 'optional', target: node, path, span: joinSpans(node.span, end) };
      } else return node;
    }
  }

  function primary(): KritiNode {
    const tok = peek();
    switch (tok.kind) {
      case 'number':
        p++;
        return { t: 'literal', value: tok.value, span: tok.span };
      case 'plainString':
        p++;
        return { t: 'literal', value: tok.text, span: tok.span };
      case 'strBegin':
        return stringTemplate();
      case 'ident': {
        if (tok.text === 'true' || tok.text === 'false') {
          p++;
          return { t: 'literal', value: tok.text === 'true', span: tok.span };
        }
        if (tok.text === 'null') {
          p++;
          return { t: 'literal', value: null, span: tok.span };
        }
        if (isKritiKeyword(tok.text)) fail();
        p++;
        return { t: 'var', name: tok.text, span: tok.span };
      }
      case 'punct':
        if (tok.text === '(') {
          p++;
          const inner = expr();
          expectPunct(')');
          return inner;
        }
        if (tok.text === '[') return array();
        if (tok.text === '{') return object();
        if (tok.text === '{{') return template();
        return fail();
      default:
        return fail();
    }
  }

  function stringTemplate(): KritiNode {
    const begin = tokens[p++]!;
    const parts: KritiNode[] = [];
    let plain = true;
    for (;;) {
      const tok = peek();
      if (tok.kind === 'strPart') {
        p++;
        parts.push({ t: 'literal', value: tok.text, span: tok.span });
      } else if (isPunct('{{')) {
        p++;
        plain = false;
        parts.push(expr());
        expectPunct('}}');
      } else if (tok.kind === 'strEnd') {
        p++;
        const span = joinSpans(begin.span, tok.span);
        if (plain) return { t: 'literal', value: parts.map((x) => (x as { value: string }).value).join(''), span };
        return { t: 'interpolation', parts, span };
      } else return fail();
    }
  }

  function array(): KritiNode {
    const start = expectPunct('[');
    const items: KritiNode[] = [];
    if (!isPunct(']')) {
      items.push(expr());
      while (isPunct(',')) {
        p++;
        items.push(expr());
      }
    }
    const end = expectPunct(']');
    return { t: 'array', items, span: joinSpans(start, end) };
  }

  function object(): KritiNode {
    const start = expectPunct('{');
    const fields: Array<[string, KritiNode]> = [];
    if (!isPunct('}')) {
      for (;;) {
        const key = objectKey();
        expectPunct(':');
        fields.push([key, expr()]);
        if (!isPunct(',')) break;
        p++;
      }
    }
    const end = expectPunct('}');
    return { t: 'object', fields, span: joinSpans(start, end) };
  }

  function objectKey(): string {
    const tok = peek();
    if (tok.kind === 'plainString') {
      p++;
      return tok.text;
    }
    if (tok.kind !== 'strBegin') fail();
    p++;
    let key = '';
    while (peek().kind === 'strPart') key += (tokens[p++] as { text: string }).text;
    if (peek().kind !== 'strEnd') fail();
    p++;
    return key;
  }

  /** At `{{`: an `if`, a `range`, or an expression. */
  function template(): KritiNode {
    const open = expectPunct('{{');
    if (isWord('if')) {
      p++;
      const branches: Array<{ cond: KritiNode; body: KritiNode; span: KritiSpan }> = [];
      const cond = expr();
      expectPunct('}}');
      branches.push({ cond, body: expr(), span: cond.span });
      let otherwise: KritiNode | null = null;
      for (;;) {
        expectPunct('{{');
        if (isWord('elif')) {
          p++;
          const c = expr();
          expectPunct('}}');
          branches.push({ cond: c, body: expr(), span: c.span });
        } else if (isWord('else')) {
          p++;
          expectPunct('}}');
          otherwise = expr();
          expectPunct('{{');
          expectWord('end');
          break;
        } else {
          expectWord('end');
          break;
        }
      }
      const close = expectPunct('}}');
      return { t: 'if', branches, otherwise, span: joinSpans(open, close) };
    }
    if (isWord('range')) {
      p++;
      const first = expectBinder();
      expectPunct(',');
      const binder = expectBinder();
      if (binder === '_') fail(tokens[p - 1]);
      expectPunct(':=');
      const over = expr();
      expectPunct('}}');
      const body = expr();
      expectPunct('{{');
      expectWord('end');
      const close = expectPunct('}}');
      return { t: 'range', index: first === '_' ? null : first, binder, over, body, span: joinSpans(open, close) };
    }
    const inner = expr();
    expectPunct('}}');
    return inner;
  }

  const root = expr();
  if (peek().kind !== 'eof') fail();
  return root;
}
