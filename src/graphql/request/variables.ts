/**
 * The operation's variables checked against their declarations (Hasura's `getAnnVarVals`):
 * duplicate declarations, values for undeclared variables, declarations on non-input types,
 * defaults, missing values for non-null variables. Errors are at `$.variableValues...`.
 * Runs on every request, also when the plan comes from the cache.
 */
import { GraphQLNonNull, getNamedType, isInputType, typeFromAST, type GraphQLSchema, type VariableDefinitionNode } from 'graphql';
import { coerceConst, coerceJson, type VariableInfo } from './inputValue.js';
import { duplicates, showGT, showName, showNames, showNamedTy, vf } from './messages.js';
import type { DeclaredVariable } from './types.js';

export interface CoercedVariables {
  declared: DeclaredVariable[];
  infos: Map<string, VariableInfo>;
  /** Values to read parameters from: given values, else defaults, else null. */
  values: Record<string, unknown>;
}

const PATH = '$.variableValues';

/** The declared types of an operation's variables (errors for unknown or non-input types). */
export function declaredVariables(schema: GraphQLSchema, defs: readonly VariableDefinitionNode[]): DeclaredVariable[] {
  const dups = duplicates(defs.map((d) => d.variable.name.value));
  if (dups.length > 0) throw vf(`the following variables are defined more than once: ${showNames(dups)}`, PATH);
  return defs.map((d) => {
    const type = typeFromAST(schema, d.type);
    const namedAst = unwrapAst(d.type);
    if (!type) throw vf(`no such type exists in the schema: ${showNamedTy(namedAst)}`, PATH);
    if (!isInputType(type)) {
      throw vf(`variables can only be defined on input types(enums, scalars, input objects), but ${showNamedTy(getNamedType(type).name)} is an object type`, PATH);
    }
    return { name: d.variable.name.value, type };
  });
}

function unwrapAst(t: VariableDefinitionNode['type']): string {
  return t.kind === 'NamedType' ? t.name.value : unwrapAst(t.type);
}

/** An own property even for a variable named `__proto__` (plain assignment would set the prototype). */
const setOwn = (o: Record<string, unknown>, k: string, value: unknown): void => {
  Object.defineProperty(o, k, { value, enumerable: true, writable: true, configurable: true });
};

/** Validates `given` against the declarations; fills defaults and nulls. */
export function coerceVariables(
  declared: DeclaredVariable[], defs: readonly VariableDefinitionNode[], given: Record<string, unknown> | null | undefined,
): CoercedVariables {
  const input = given ?? {};
  const names = new Set(declared.map((d) => d.name));
  const unexpected = Object.keys(input).filter((k) => !names.has(k));
  if (unexpected.length > 0) throw vf(`unexpected variables in variableValues: ${showNames(unexpected)}`, PATH);
  const infos = new Map<string, VariableInfo>();
  const values: Record<string, unknown> = {};
  declared.forEach((d, i) => {
    const def = defs[i];
    const ref = { name: d.name, path: [] };
    const nonNull = d.type instanceof GraphQLNonNull;
    if (Object.prototype.hasOwnProperty.call(input, d.name)) {
      const value = input[d.name];
      infos.set(d.name, { type: d.type, value: coerceJson(d.type, value, `${PATH}.${d.name}`, ref) });
      setOwn(values, d.name, value ?? null);
      return;
    }
    if (def.defaultValue) {
      const ann = coerceConst(d.type, def.defaultValue, `${PATH}.defaultValue`);
      const json = annToJson(ann);
      infos.set(d.name, { type: d.type, value: coerceJson(d.type, json, `${PATH}.defaultValue`, ref) });
      setOwn(values, d.name, json);
      return;
    }
    if (nonNull) {
      throw vf(`expecting a value for non-nullable variable: ${showName(d.name)} of type: ${showGT(d.type)} in variableValues`, PATH);
    }
    infos.set(d.name, { type: d.type, value: { kind: 'null', variable: ref } });
    setOwn(values, d.name, null);
  });
  return { declared, infos, values };
}

/** A validated literal back to the JSON a client would have sent (enum values by name). */
function annToJson(v: ReturnType<typeof coerceConst>): unknown {
  switch (v.kind) {
    case 'null': return null;
    case 'scalar': return v.value;
    case 'enum': return v.name;
    case 'list': return v.items.map(annToJson);
    case 'object': return Object.fromEntries(v.fields.map(([k, x]) => [k, annToJson(x)]));
  }
}
