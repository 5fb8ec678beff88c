/**
 * Computed field metadata → `ComputedFieldInfo`, validated as Hasura v1.3 does: the function must
 * exist (not overloaded), not be VOLATILE, return a base type or SETOF a tracked table, and take
 * the table row (first argument, or `table_argument`) and optionally the session (`session_argument`, json).
 */
import { qualifiedKey } from '../../core/index.js';
import type { QualifiedFunction } from '../../core/index.js';
import type { ComputedFieldMetadata } from '../model/metadata.js';
import type { DbFunction, DbFunctionArg } from '../introspection/types.js';
import type { ComputedFieldInfo, TableInfo } from './types.js';
import type { SchemaRef } from './objects.js';
import { BuildError, quoted, quotedTable, type BuildState } from './buildState.js';

const asFn = (f: QualifiedFunction | string): QualifiedFunction => (typeof f === 'string' ? { schema: 'public', name: f } : f);
const qualifiedType = (schema: string, name: string): string => (schema === 'public' ? name : `${schema}.${name}`);

/** Finds the one function called `fn` (BuildError when missing or overloaded). */
export function lookupFunction(state: Pick<BuildState, 'snapshot'>, fn: QualifiedFunction): DbFunction {
  const found = state.snapshot.functions.get(qualifiedKey(fn)) ?? [];
  if (found.length === 0) throw new BuildError(`no such function exists in postgres : ${quotedTable(fn)}`);
  if (found.length > 1) throw new BuildError(`function ${quotedTable(fn)} is overloaded. Overloaded functions are not supported`);
  return found[0];
}

export function resolveComputedField(
  state: Pick<BuildState, 'snapshot' | 'tables'>,
  table: TableInfo,
  cf: ComputedFieldMetadata,
): { info: ComputedFieldInfo; dependencies: SchemaRef[] } {
  const fnName = asFn(cf.definition.function);
  const fn = lookupFunction(state, fnName);
  const qf = quotedTable(fnName);
  const errors: string[] = [];
  const fail = (): never => {
    const body = errors.length === 1 ? `because ${errors[0]}` : `for the following reasons:\n${errors.map((e) => `  • ${e}\n`).join('')}`;
    throw new BuildError(`the computed field ${quoted(cf.name)} cannot be added to table ${quotedTable(table.name)} ${body}`);
  };

  if (fn.volatility === 'VOLATILE') errors.push(`the function ${qf} is of type VOLATILE; cannot be added as a computed field`);
  let returns: ComputedFieldInfo['returns'];
  if (fn.returnsSet && fn.returnTable) {
    if (!state.tables.has(qualifiedKey(fn.returnTable))) {
      errors.push(`the function ${qf} returning set of table ${quotedTable(fn.returnTable)} is not tracked or not found in database`);
    }
    returns = { kind: 'table', table: fn.returnTable };
  } else {
    if (fn.returnTypeKind !== 'b' && fn.returnTypeKind !== 'd' && fn.returnTypeKind !== 'e') {
      errors.push(`the function ${qf} returning type ${fn.returnType} is not a BASE type`);
    }
    returns = { kind: 'scalar', pgType: fn.returnType };
  }

  const args = fn.args;
  const validateTableArg = (label: string, arg: DbFunctionArg) => {
    if (arg.typeKind !== 'c') errors.push(`${label} is not COMPOSITE type`);
    if (qualifiedKey({ schema: arg.typeSchema, name: arg.type }) !== qualifiedKey(table.name)) {
      errors.push(`${label} of type ${quoted(qualifiedType(arg.typeSchema, arg.type))} is not the table to which the computed field is being added`);
    }
  };
  let tableArgIndex: number;
  const tableArgument = cf.definition.table_argument;
  if (tableArgument) {
    tableArgIndex = args.findIndex((a) => a.name === tableArgument);
    if (tableArgIndex < 0) {
      errors.push(`${quoted(tableArgument)} is not an input argument of ${qf} function`);
      fail();
    }
    validateTableArg(quoted(tableArgument), args[tableArgIndex]);
  } else {
    if (args.length === 0) {
      errors.push(`the function ${qf} has no input arguments`);
      fail();
    }
    tableArgIndex = 0;
    validateTableArg(`first argument of the function ${qf}`, args[0]);
  }

  let sessionArgIndex: number | undefined;
  const sessionArgument = cf.definition.session_argument;
  if (sessionArgument) {
    sessionArgIndex = args.findIndex((a) => a.name === sessionArgument);
    if (sessionArgIndex < 0) {
      errors.push(`${quoted(sessionArgument)} is not an input argument of ${qf} function`);
      fail();
    }
    if (args[sessionArgIndex!].type !== 'json') errors.push(`${quoted(sessionArgument)} is not of type JSON`);
  }
  if (errors.length > 0) fail();

  const inputArgs = args
    .map((a, i) => ({ a, i }))
    .filter(({ i }) => i !== tableArgIndex && i !== sessionArgIndex)
    .map(({ a }) => ({ name: a.name ?? '', pgType: a.type, hasDefault: a.hasDefault }));
  const deps: SchemaRef[] = [{ kind: 'function', function: fnName }];
  if (returns.kind === 'table') deps.push({ kind: 'table', table: returns.table });
  const info: ComputedFieldInfo = {
    name: cf.name,
    function: { ...fnName },
    returns,
    tableArgIndex,
    inputArgs,
    comment: cf.comment ?? fn.comment ?? null,
  };
  if (sessionArgIndex !== undefined) info.sessionArgIndex = sessionArgIndex;
  return { info, dependencies: deps };
}
