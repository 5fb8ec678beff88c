/**
 * GraphQL document surgery for delegation: the fragments and variables a set of field nodes uses,
 * variables replaced by literal values, and JSON values printed as GraphQL literals (typed by the
 * remote's introspection where it knows the type, so enum values print bare).
 */
import {
  Kind, visit, type ASTNode, type FragmentDefinitionNode, type IntrospectionInputTypeRef, type IntrospectionType,
  type SelectionSetNode, type ValueNode,
} from 'graphql';
import { JsonBigNumber } from '../lib/index.js';

/** Names of the fragments `nodes` spread, transitively, in first-use order. */
export function usedFragments(nodes: readonly ASTNode[], all: readonly FragmentDefinitionNode[]): FragmentDefinitionNode[] {
  const byName = new Map(all.map((f) => [f.name.value, f]));
  const seen = new Set<string>();
  const out: FragmentDefinitionNode[] = [];
  const walk = (n: ASTNode) =>
    visit(n, {
      FragmentSpread(s) {
        const name = s.name.value;
        if (seen.has(name)) return;
        seen.add(name);
        const f = byName.get(name);
        if (f) {
          out.push(f);
          walk(f);
        }
      },
    });
  nodes.forEach(walk);
  return out;
}

/** Names of the variables `nodes` use. */
export function usedVariables(nodes: readonly ASTNode[]): Set<string> {
  const names = new Set<string>();
  for (const n of nodes) visit(n, { Variable(v) { names.add(v.name.value); } });
  return names;
}

/** A JSON value as an untyped GraphQL value node (strings stay strings). */
export function jsonToAst(v: unknown): ValueNode {
  if (v === null || v === undefined) return { kind: Kind.NULL };
  // Long numbers from the request's variables keep every digit.
  if (v instanceof JsonBigNumber) return /^-?\d+$/.test(v.text) ? { kind: Kind.INT, value: v.text } : { kind: Kind.FLOAT, value: v.text };
  if (typeof v === 'boolean') return { kind: Kind.BOOLEAN, value: v };
  if (typeof v === 'number') return Number.isInteger(v) ? { kind: Kind.INT, value: String(v) } : { kind: Kind.FLOAT, value: String(v) };
  if (typeof v === 'string') return { kind: Kind.STRING, value: v };
  if (Array.isArray(v)) return { kind: Kind.LIST, values: v.map(jsonToAst) };
  return {
    kind: Kind.OBJECT,
    fields: Object.entries(v as Record<string, unknown>).map(([k, x]) => ({ kind: Kind.OBJECT_FIELD, name: { kind: Kind.NAME, value: k }, value: jsonToAst(x) })),
  };
}

/** `node` with every `$variable` replaced by its value (remote-join queries carry no variables). */
export function inlineVariables<T extends ASTNode>(node: T, variables: Record<string, unknown>): T {
  return visit(node, { Variable: (v) => jsonToAst(variables[v.name.value]) }) as T;
}

/** A selection set with variables inlined, or undefined. */
export const inlinedSelection = (sel: SelectionSetNode | undefined, variables: Record<string, unknown>): SelectionSetNode | undefined =>
  sel ? inlineVariables(sel, variables) : undefined;

const namedOf = (t: IntrospectionInputTypeRef): string => {
  let x = t;
  while (x.kind === 'NON_NULL' || x.kind === 'LIST') x = x.ofType as IntrospectionInputTypeRef;
  return x.name;
};

/**
 * A join column's place in a printed remote-join template: printed as a marker (its type noted), so
 * the template is printed once per relationship and each row only prints its values into the gaps.
 */
export class ColRef {
  type: IntrospectionInputTypeRef | undefined;
  constructor(readonly column: string, readonly id: number) {}
  get marker(): string {
    return `\u0000${this.id}\u0000`;
  }
}

/** Stands for a join column's value when a remote-join query is only checked, not sent. */
export class Placeholder {}

/** A literal of `type` (any value will do: the query is validated, never sent). */
function placeholderFor(type: IntrospectionInputTypeRef | undefined, types: ReadonlyMap<string, IntrospectionType>): string {
  const t = type && type.kind === 'NON_NULL' ? (type.ofType as IntrospectionInputTypeRef) : type;
  if (!t) return '""';
  if (t.kind === 'LIST') return `[${placeholderFor(t.ofType as IntrospectionInputTypeRef, types)}]`;
  const named = types.get(namedOf(t));
  if (named?.kind === 'ENUM') return named.enumValues[0]?.name ?? '""';
  switch (named?.name) {
    case 'Int':
    case 'Float':
      return '0';
    case 'Boolean':
      return 'false';
    default:
      return '""';
  }
}

/** Prints a JSON value as a GraphQL literal of `type` (enum values bare, lists coerced from one item). */
export function printLiteral(v: unknown, type: IntrospectionInputTypeRef | undefined, types: ReadonlyMap<string, IntrospectionType>): string {
  if (v === null || v === undefined) return 'null';
  if (v instanceof JsonBigNumber) return v.text;
  if (v instanceof Placeholder) return placeholderFor(type, types);
  if (v instanceof ColRef) {
    v.type = type;
    return v.marker;
  }
  const t = type && type.kind === 'NON_NULL' ? (type.ofType as IntrospectionInputTypeRef) : type;
  if (Array.isArray(v)) {
    const item = t && t.kind === 'LIST' ? (t.ofType as IntrospectionInputTypeRef) : undefined;
    return `[${v.map((x) => printLiteral(x, item, types)).join(', ')}]`;
  }
  const named = t ? types.get(namedOf(t)) : undefined;
  if (t && t.kind === 'LIST') return printLiteral(v, t.ofType as IntrospectionInputTypeRef, types);
  if (typeof v === 'object') {
    const fields = named && named.kind === 'INPUT_OBJECT' ? named.inputFields : [];
    return `{${Object.entries(v as Record<string, unknown>).map(([k, x]) => `${k}: ${printLiteral(x, fields.find((f) => f.name === k)?.type, types)}`).join(', ')}}`;
  }
  if (typeof v === 'string' && named?.kind === 'ENUM') return v;
  if (typeof v === 'string') return JSON.stringify(v);
  return String(v);
}
