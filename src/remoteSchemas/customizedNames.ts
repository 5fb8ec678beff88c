/**
 * A customized remote schema (see metadata/schemaCache/remoteCustomization.ts) between the client and
 * the remote: what the client wrote in the engine's names is translated to the remote's
 * (`toRemoteNames`: renamed fields get the engine's name as their alias when they have none, as Hasura
 * does, so the answer's keys are already the client's; type conditions and variable types get the
 * remote's type names), and the remote's answer gets the engine's type names in every `__typename`
 * the client selected (`customizeAnswer`).
 */
import {
  Kind, TypeInfo, visit, visitWithTypeInfo, type ASTNode, type FieldNode, type FragmentDefinitionNode, type GraphQLSchema,
  type GraphQLType, type NamedTypeNode, type SelectionSetNode,
} from 'graphql';
import type { RemoteCustomizer } from '../metadata/index.js';

/** `node` (a document, a selection set or a fragment) in the remote's names; `initialType` types a bare selection set. */
export function toRemoteNames<T extends ASTNode>(node: T, schema: GraphQLSchema, c: RemoteCustomizer, initialType?: GraphQLType): T {
  const typeInfo = new TypeInfo(schema, initialType);
  return visit(node, visitWithTypeInfo(typeInfo, {
    Field: {
      leave(f: FieldNode) {
        const parent = typeInfo.getParentType();
        const remoteName = parent ? c.remoteFieldNames.get(parent.name)?.get(f.name.value) : undefined;
        if (!remoteName) return undefined;
        return { ...f, alias: f.alias ?? { kind: Kind.NAME, value: f.name.value }, name: { ...f.name, value: remoteName } };
      },
    },
    NamedType: {
      leave(t: NamedTypeNode) {
        const remoteName = c.remoteTypeNames.get(t.name.value);
        return remoteName ? { ...t, name: { ...t.name, value: remoteName } } : undefined;
      },
    },
  })) as T;
}

type Json = unknown;

/**
 * `value` (the remote's answer to `selectionSet`) with the engine's type names in the `__typename`s
 * the selection asked for; changed in place and returned.
 */
export function customizeAnswer(
  value: Json, selectionSet: SelectionSetNode | undefined, fragments: ReadonlyMap<string, FragmentDefinitionNode>, c: RemoteCustomizer,
): Json {
  // A key renamed once is not renamed again (two selections may reach the same key).
  const done = new WeakMap<object, Set<string>>();
  const walk = (v: Json, sel: SelectionSetNode | undefined, depth: number): Json => {
    if (v === null || typeof v !== 'object' || !sel || depth > 1000) return v;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) v[i] = walk(v[i], sel, depth);
      return v;
    }
    const o = v as Record<string, Json>;
    for (const s of sel.selections) {
      if (s.kind === Kind.FIELD) {
        const key = s.alias?.value ?? s.name.value;
        if (!(key in o)) continue;
        if (s.name.value === '__typename') {
          let keys = done.get(o);
          if (!keys) done.set(o, (keys = new Set()));
          if (keys.has(key)) continue;
          keys.add(key);
          const t = o[key];
          if (typeof t === 'string') o[key] = c.typeNames.get(t) ?? t;
        } else if (s.selectionSet) o[key] = walk(o[key], s.selectionSet, depth + 1);
      } else if (s.kind === Kind.INLINE_FRAGMENT) walk(o, s.selectionSet, depth + 1);
      else walk(o, fragments.get(s.name.value)?.selectionSet, depth + 1);
    }
    return o;
  };
  return walk(value, selectionSet, 0);
}
